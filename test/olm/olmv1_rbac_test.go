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
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
)

// TestOLMv1InstallerRBACNamesTheRolesOLMv1Generates: OLM v1 (operator-controller
// v1.2.0) names the ClusterRoles it makes from the CSV's permissions
// "<csv>-<serviceAccount>-<hash of the permission>", and the installer ServiceAccount of
// cmd/devcluster/olmv1/installer-rbac.yaml (docs/olmv1.md) may change only those names.
// A permission added to the CSV changes the hash, so the names are computed here the
// way operator-controller computes them (convert.generateName: base36 of the SHA-224
// of the permission's JSON) and must be the ones the file grants. In AllNamespaces mode
// v1.2.0 promotes the namespaced permissions to ClusterRoles; it means to add get, list
// and watch on namespaces first, but appends to a copy in its range loop, so neither
// the name nor the role has that rule (checked against the names it gave this CSV's
// roles before the uninstall guard's rule changed the first one).
func TestOLMv1InstallerRBACNamesTheRolesOLMv1Generates(t *testing.T) {
	csv := loadCSV(t)
	strategy := deploymentStrategy(t, csv)
	var want []string
	for _, p := range strategy.ClusterPermissions {
		want = append(want, olmv1RoleName(t, csv.Name, p))
	}
	for _, p := range strategy.Permissions {
		want = append(want, olmv1RoleName(t, csv.Name, p))
	}
	data, err := os.ReadFile(path("cmd/devcluster/olmv1/installer-rbac.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range want {
		// Each name is granted twice: on the ClusterRole and on its binding.
		if n := strings.Count(string(data), "- "+name); n < 2 {
			t.Errorf("installer-rbac.yaml grants %s %d times, want it on the ClusterRole and the ClusterRoleBinding rules: "+
				"the CSV's permissions changed, so OLM v1 names its roles anew (update the file and docs/olmv1.md)", name, n)
		}
	}
}

// olmv1RoleName is operator-controller v1.2.0's generateName for a CSV permission.
func olmv1RoleName(t *testing.T, csvName string, p operatorsv1alpha1.StrategyDeploymentPermissions) string {
	t.Helper()
	h := sha256.New224()
	if err := json.NewEncoder(h).Encode(p); err != nil {
		t.Fatal(err)
	}
	var i big.Int
	i.SetBytes(h.Sum(nil))
	hash := i.Text(36)
	base := fmt.Sprintf("%s-%s", csvName, p.ServiceAccountName)
	if len(base)+len(hash) > 63 {
		base = base[:63-len(hash)-1]
	}
	return base + "-" + hash
}

// TestOLMv1InstallerRBACCoversEveryBundleObject: the installer ServiceAccount manages
// the bundle's cluster-scoped objects by name and watches its namespaced ones by kind,
// so an object added to the bundle (a new ClusterRole, a console sample) that the file
// does not name makes the OLM v1 install fail. Every kind must be known here, so a new
// cluster-scoped kind cannot slip through as "namespaced".
func TestOLMv1InstallerRBACCoversEveryBundleObject(t *testing.T) {
	clusterScoped := map[string]string{
		"CustomResourceDefinition": "customresourcedefinitions",
		"ClusterRole":              "clusterroles",
		"ClusterRoleBinding":       "clusterrolebindings",
		"ConsoleYAMLSample":        "consoleyamlsamples",
		"ConsoleQuickStart":        "consolequickstarts",
	}
	namespaced := map[string]string{
		"Service": "services", "ConfigMap": "configmaps", "Secret": "secrets",
		"Role": "roles", "RoleBinding": "rolebindings",
		"ServiceMonitor": "servicemonitors", "PrometheusRule": "prometheusrules",
	}
	data, err := os.ReadFile(path("cmd/devcluster/olmv1/installer-rbac.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rbac := string(data)
	for _, obj := range loadBundle(t).Objects {
		kind, name := obj.GetKind(), obj.GetName()
		if kind == "ClusterServiceVersion" {
			continue
		}
		resource, ok := clusterScoped[kind]
		if !ok {
			if resource, ok = namespaced[kind]; !ok {
				t.Errorf("bundle object %s %s has a kind this test does not know: say whether it is cluster-scoped", kind, name)
				continue
			}
		}
		if !strings.Contains(rbac, resource) {
			t.Errorf("installer-rbac.yaml has no rule for %s (bundle object %s %s)", resource, kind, name)
		}
		if _, cluster := clusterScoped[kind]; cluster && !strings.Contains(rbac, name) {
			t.Errorf("installer-rbac.yaml does not name %s %s: OLM v1 cannot create or update it", kind, name)
		}
	}
}
