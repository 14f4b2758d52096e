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

package argocdhealth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// What the scripts say of objects the operator never wrote to: the controller tests
// prove them on real statuses; these are the cases a real status cannot show (an
// object Argo CD sees before any operator runs, a generation ahead of the status).
func TestTheHealthChecksWaitForTheOperator(t *testing.T) {
	root := testenv.ProjectRoot()
	for _, kind := range []string{"EC2Instance", "AWSAccount"} {
		script := ScriptPath(root, "compute.ec2-operator.dev", kind)
		for name, obj := range map[string]map[string]any{
			"no status": {"metadata": map[string]any{"name": "a", "generation": int64(1)}},
			"a generation ahead of the status": {"metadata": map[string]any{"name": "a", "generation": int64(3)},
				"status": map[string]any{"observedGeneration": int64(2), "conditions": []any{
					map[string]any{"type": "Ready", "status": "True", "reason": "Available"}}}},
		} {
			got, err := Check(script, obj)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != Progressing {
				t.Errorf("%s, %s: %+v, want Progressing", kind, name, got)
			}
		}
	}
}

// A script must return a status Argo CD knows; anything else is an error, so that a
// typo in a script fails the tests instead of showing as Unknown in Argo CD.
func TestAScriptReturningAnUnknownStatusIsAnError(t *testing.T) {
	script := filepath.Join(t.TempDir(), "health.lua")
	if err := os.WriteFile(script, []byte(`return {status = "Fine", message = obj.metadata.name}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Check(script, map[string]any{"metadata": map[string]any{"name": "a"}})
	if err == nil || !strings.Contains(err.Error(), `"Fine"`) {
		t.Errorf("error %v, want one naming the unknown status", err)
	}
}
