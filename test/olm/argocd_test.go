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
	"os"
	"path/filepath"
	"testing"
)

// TestTheArgoCDKustomizationAddsEachHealthCheckToArgocdCM builds config/argocd as
// docs/argocd.md tells users to apply it: one ConfigMap, argocd-cm in the namespace
// argocd, whose keys are Argo CD's names for the health checks of the operator's kinds
// and whose values are the scripts the controller tests run.
func TestTheArgoCDKustomizationAddsEachHealthCheckToArgocdCM(t *testing.T) {
	objs := kustomize(t, path("config/argocd"))
	if len(objs) != 1 || objs[0].GetKind() != "ConfigMap" || objs[0].GetName() != "argocd-cm" || objs[0].GetNamespace() != "argocd" {
		t.Fatalf("config/argocd builds %d objects, want the ConfigMap argocd/argocd-cm alone", len(objs))
	}
	data := objs[0].Object["data"].(map[string]any)
	for _, kind := range []string{"EC2Instance", "AWSAccount", "EC2InstanceSet"} {
		script, err := os.ReadFile(filepath.Join(path("config/argocd"), "compute.ec2-operator.dev", kind, "health.lua"))
		if err != nil {
			t.Fatal(err)
		}
		key := "resource.customizations.health.compute.ec2-operator.dev_" + kind
		if data[key] != string(script) {
			t.Errorf("argocd-cm key %s does not hold %s's health.lua", key, kind)
		}
	}
	if len(data) != 3 {
		t.Errorf("argocd-cm has %d keys, want the three health checks only (applied server-side, each key it holds is taken over)", len(data))
	}
}
