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

package release

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// kubeconfigPath is where the tests put the kubeconfig inside an image's filesystem,
// as a mounted Secret would provide it.
const kubeconfigPath = "/var/run/ec2-operator-test/kubeconfig"

// TestOperatorImageRunsTheManagerAsItsUserAndTheScorecardTestPasses starts the manager
// from the operator image's own filesystem, through its entrypoint and as the image's
// user, against the test control plane and the EC2 emulator: an EC2Instance becomes
// Ready. Then the scorecard image's custom test, run the same way with the bundle
// where scorecard mounts it, passes against that manager. This proves the images hold
// what their binaries need, not just that the binaries run on the build machine.
// Running them as pods under a kubelet, with its probes, is test/cluster's job
// (TestCluster, make test-cluster); this stand-in stays in make test-release because it needs
// no node.
func TestOperatorImageRunsTheManagerAsItsUserAndTheScorecardTestPasses(t *testing.T) {
	k8s, err := client.New(env.Kube.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "release-"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := os.ReadFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}

	img, cf := hostImage(t, "operator")
	rootfs := unpack(t, img)
	writeInto(t, rootfs, kubeconfigPath, kubeconfig)
	probe := simtest.FreeAddr(t)
	manager := startContainer(t, "manager", rootfs, cf.Config.User,
		append(cf.Config.Entrypoint, "--health-probe-bind-address="+probe, "--watch-namespaces="+ns.Name,
			"--resync-period=5s", "--poll-interval=1s"),
		append(append(cf.Config.Env, "KUBECONFIG="+kubeconfigPath), env.AWSEnv()...))
	eventually(t, 60*time.Second, func() string {
		select {
		case <-manager.done:
			t.Fatalf("the manager exited: %v", manager.err)
		default:
		}
		resp, err := http.Get("http://" + probe + "/readyz")
		if err != nil {
			return err.Error()
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Sprintf("readyz %d", resp.StatusCode)
		}
		return ""
	})

	if os.Geteuid() == 0 {
		// The kernel's view of the process: the image's user, not root.
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", manager.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(status), "\nUid:\t65532\t65532\t65532\t65532\n") {
			t.Errorf("the manager does not run as 65532:\n%s", status)
		}
	}

	t.Run("an EC2Instance becomes Ready", func(t *testing.T) {
		waitObjectReady(t, k8s, ns.Name, "from-image", func(c *metav1.Condition) string {
			if c == nil || c.Status != metav1.ConditionTrue {
				return fmt.Sprintf("not Ready: %+v", c)
			}
			return ""
		}, nil)
	})

	t.Run("the custom scorecard test passes", func(t *testing.T) {
		img, cf := hostImage(t, "scorecard")
		scRootfs := unpack(t, img)
		// operator-sdk scorecard unpacks the bundle at /bundle in the test pod.
		copyDir(t, filepath.Join(manifestsRoot, "bundle"), filepath.Join(scRootfs, "bundle"))
		writeInto(t, scRootfs, kubeconfigPath, kubeconfig)
		test := startContainer(t, "scorecard-test", scRootfs, cf.Config.User,
			append(cf.Config.Entrypoint, "instance-ready"),
			append(cf.Config.Env, "KUBECONFIG="+kubeconfigPath, "SCORECARD_NAMESPACE="+ns.Name, "SCORECARD_READY_TIMEOUT=90s"))
		if err := test.wait(4 * time.Minute); err != nil {
			t.Fatalf("the scorecard test did not finish: %v", err)
		}
		var status scapiv1alpha3.TestStatus
		if err := json.Unmarshal([]byte(test.out.String()), &status); err != nil {
			t.Fatalf("the scorecard test printed no test status: %v\n%s", err, test.out.String())
		}
		if len(status.Results) != 1 || status.Results[0].State != scapiv1alpha3.PassState {
			t.Fatalf("scorecard result: %+v", status.Results)
		}
		t.Logf("scorecard instance-ready passed:\n%s", status.Results[0].Log)
		// It cleaned up after itself: only the object of the first subtest remains.
		list := &computev1alpha1.EC2InstanceList{}
		if err := k8s.List(context.Background(), list, client.InNamespace(ns.Name)); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 {
			t.Errorf("%d EC2Instances left in the namespace, want only from-image", len(list.Items))
		}
	})
}

// copyDir copies a directory tree, readable by everyone, as a volume mount shows it.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
