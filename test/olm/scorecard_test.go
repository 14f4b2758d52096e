//go:build scorecard

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

package olm

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
)

// TestScorecard runs every test listed in bundle/tests/scorecard/config.yaml with the
// scorecard-test program, the Go program inside the scorecard-test image, offline.
// It reads the bundle from the fixed path /bundle, so each run gets a private mount
// namespace in which ./bundle is bind-mounted there. The program exits 0 even when a
// test fails; the result's state decides. Run it with `make scorecard`. operator-sdk
// scorecard itself, scheduling these tests and the custom one as pods, runs in
// test/cluster (TestCluster/scorecard, make test-cluster).
func TestScorecard(t *testing.T) {
	bin := os.Getenv("SCORECARD_TEST")
	if bin == "" {
		bin = path("bin/scorecard-test")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("scorecard-test not found (run `make scorecard-test`): %v", err)
	}
	unshare := []string{"unshare", "--mount", "--propagation", "private"}
	if os.Geteuid() != 0 {
		// An unprivileged user namespace may bind-mount, but /bundle must exist.
		unshare = append(unshare, "--map-root-user")
	} else if err := os.MkdirAll("/bundle", 0o755); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat("/bundle"); err != nil || !fi.IsDir() {
		t.Fatalf("/bundle must be a directory to mount the bundle on (create it as root): %v", err)
	}
	names := scorecardTests(t)
	if len(names) == 0 {
		t.Fatal("no scorecard tests configured")
	}
	for _, name := range names {
		if name == "instance-ready" {
			// Our own test needs a running operator; test/release runs it from its
			// image against the manager's image.
			continue
		}
		t.Run(name, func(t *testing.T) {
			args := append(append([]string{}, unshare[1:]...), "sh", "-c",
				`mount --bind "$1" /bundle && exec "$2" "$3"`, "sh", path("bundle"), bin, name)
			cmd := exec.Command(unshare[0], args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("running %s: %v\n%s", name, err, stderr.String())
			}
			var status scapiv1alpha3.TestStatus
			if err := json.Unmarshal(stdout.Bytes(), &status); err != nil {
				t.Fatalf("%s printed no test status: %v\n%s%s", name, err, stdout.String(), stderr.String())
			}
			if len(status.Results) == 0 {
				t.Fatalf("%s reported no results", name)
			}
			for _, r := range status.Results {
				t.Logf("%s: %s %v", r.Name, r.State, r.Suggestions)
				if r.State != scapiv1alpha3.PassState {
					t.Errorf("%s: state %s, errors %v, suggestions %v\n%s", r.Name, r.State, r.Errors, r.Suggestions, r.Log)
				}
			}
		})
	}
}
