//go:build cluster

/*
Copyright 2026 The ec2-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package cluster

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	corev1 "k8s.io/api/core/v1"
)

// scorecardUntarImage is the image of the test pods' untar step (cmd/devcluster packs it).
const scorecardUntarImage = "localhost/cluster/busybox:1.35"

// testScorecard runs operator-sdk scorecard as its users do, against this cluster with
// the bundle: it schedules one pod per test of bundle/tests/scorecard/config.yaml (the
// six built-in tests from the scorecard-test image, and ours, which creates the CSV's
// example EC2Instance and waits for it to be Ready), and every test passes. The
// operator must watch ns, and scorecard's pods set no security context, so ns enforces
// "baseline", not "restricted".
func testScorecard(t *testing.T, c *Cluster, ns string) {
	ctx := context.Background()
	c.Kubectl(t, "-n", ns, "apply", "-f", filepath.Join(c.Root, "docs", "scorecard-rbac.yaml"))
	untar := c.Image(t, scorecardUntarImage)
	cmd := exec.Command(filepath.Join(c.Root, "bin", "operator-sdk"), "scorecard", filepath.Join(c.manifestsDir(), "bundle"),
		"--kubeconfig", c.Kubeconfig, "--namespace", ns, "--service-account", "ec2-operator-scorecard",
		"--untar-image", untar, "--storage-image", untar, "--wait-time", "300s", "--output", "json")
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		t.Fatalf("operator-sdk scorecard: %v", err)
	}
	var list scapiv1alpha3.TestList
	if jerr := json.Unmarshal(out, &list); jerr != nil {
		t.Fatalf("operator-sdk scorecard printed no test list (%v, exit %v): %s", jerr, err, out)
	}
	passed := 0
	for _, item := range list.Items {
		for _, r := range item.Status.Results {
			if r.State == scapiv1alpha3.PassState {
				passed++
				continue
			}
			t.Errorf("scorecard test %s: %s %v %v", r.Name, r.State, r.Errors, r.Log)
		}
	}
	if passed != 7 {
		t.Errorf("%d scorecard tests passed, want all 7 (exit %v)", passed, err)
	}
	t.Logf("scorecard: %d tests passed in pods of namespace %s", passed, ns)
	c.WaitFor(t, time.Minute, "scorecard's test pods gone", func() (bool, error) {
		pods := &corev1.PodList{}
		err := c.Client.List(ctx, pods)
		n := 0
		for _, p := range pods.Items {
			if p.Namespace == ns && p.Labels["app"] == "scorecard-test" {
				n++
			}
		}
		return err == nil && n == 0, err
	})
}
