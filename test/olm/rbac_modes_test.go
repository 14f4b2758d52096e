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
	"context"
	"fmt"
	"slices"
	"testing"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ec2-operator/ec2-operator/internal/controller/grants"
	"github.com/ec2-operator/ec2-operator/internal/rbactest"
)

// installMode is one way the operator is installed, and the namespaces it then has.
type installMode struct {
	name string
	// grant creates, as admin, what this install mode grants the manager's
	// ServiceAccount in opNS (and target, the namespace the OperatorGroup targets).
	grant        func(t *testing.T, c client.Client, m *installMode)
	opNS, target string
}

// TestNoInstallModeLetsTheManagerMintTokensOrReadOtherSecrets grants the manager's
// ServiceAccount exactly what each install mode grants (OLM's OwnNamespace,
// SingleNamespace and AllNamespaces installs of the bundle, OLM's lifting of the CSV's
// permissions included, and `make deploy`), then asks the API server with
// SubjectAccessReviews what that identity may do. It may create no Secret and no
// token anywhere, list or watch Secrets nowhere, get no Secret outside its own
// namespace (not even one named like its own), and touch no other CredentialsRequest;
// the positive checks keep the test honest (a broken grant would deny everything).
func TestNoInstallModeLetsTheManagerMintTokensOrReadOtherSecrets(t *testing.T) {
	cfg := apiServer(t)
	admin, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	csv := loadCSV(t)
	bundleObjs := loadBundle(t).Objects
	modes := []*installMode{
		{name: "own", grant: func(t *testing.T, c client.Client, m *installMode) {
			grantBundle(t, c, m, csv, bundleObjs, []string{m.opNS})
		}},
		{name: "single", grant: func(t *testing.T, c client.Client, m *installMode) {
			grantBundle(t, c, m, csv, bundleObjs, []string{m.opNS, m.target})
		}},
		{name: "all", grant: func(t *testing.T, c client.Client, m *installMode) {
			grantBundle(t, c, m, csv, bundleObjs, nil)
		}},
		{name: "deploy", grant: func(t *testing.T, c client.Client, m *installMode) {
			grantDeploy(t, c, m)
		}},
	}
	other := newNamespace(t, admin, "rbac-other-")
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			m.opNS = newNamespace(t, admin, "rbac-"+m.name+"-")
			m.target = m.opNS
			if m.name != "own" {
				m.target = newNamespace(t, admin, "rbac-"+m.name+"-target-")
			}
			m.grant(t, admin, m)
			checkManagerAccess(t, admin, m, other)
		})
	}
}

// checkManagerAccess asks, as the manager of install mode m, what it may do.
func checkManagerAccess(t *testing.T, c client.Client, m *installMode, other string) {
	t.Helper()
	rbactest.CheckManager(t, c, m.name, m.opNS, m.target, other)
	checkUserDataGrant(t, c, m)
	checkOutputsGrant(t, c, m)
}

// checkUserDataGrant binds the shipped userdata-reader ClusterRole in a tenant
// namespace, as the README tells its admin to: then, and only there, the manager may
// get, list and watch its Secrets (the watch that sees user data edits at once).
func checkUserDataGrant(t *testing.T, c client.Client, m *installMode) {
	t.Helper()
	checkTenantGrant(t, c, m, grants.UserDataReaderRole, []string{"get", "list", "watch"}, []string{"create", "update", "delete"})
}

// checkOutputsGrant binds the shipped outputs-writer ClusterRole in a tenant
// namespace: then, and only there, the manager may write its ConfigMaps and Secrets
// (spec.outputsTo), and still not list or watch them.
func checkOutputsGrant(t *testing.T, c client.Client, m *installMode) {
	t.Helper()
	checkTenantGrant(t, c, m, grants.OutputsWriterRole, []string{"get", "create", "update", "delete"}, []string{"list", "watch", "patch"})
}

// checkTenantGrant binds role to the manager in a new tenant namespace and checks
// that the manager may then do granted, and only granted, to that namespace's Secrets
// and ConfigMaps: nothing before the binding, nothing in another namespace, never
// withheld.
func checkTenantGrant(t *testing.T, c client.Client, m *installMode, role string, granted, withheld []string) {
	t.Helper()
	tenant := newNamespace(t, c, "rbac-"+m.name+"-tenant-")
	elsewhere := newNamespace(t, c, "rbac-"+m.name+"-other-")
	for _, res := range []string{"secrets", "configmaps"} {
		for _, verb := range granted {
			if rbactest.May(t, c, m.opNS, rbactest.Access{Verb: verb, Resource: res, Namespace: tenant, Name: "boot"}) {
				t.Fatalf("%s install: the manager may %s a tenant's %s before the tenant bound %s", m.name, verb, res, role)
			}
		}
	}
	create(t, c, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: role},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: managerSA, Namespace: m.opNS}},
	})
	if !rbactest.Eventually(t, c, m.opNS, rbactest.Access{Verb: granted[0], Resource: "secrets", Namespace: tenant, Name: "boot"}) {
		t.Fatalf("%s install: binding %s does not let the manager %s the tenant's Secrets", m.name, role, granted[0])
	}
	for _, res := range []string{"secrets", "configmaps"} {
		for _, verb := range granted {
			if !rbactest.May(t, c, m.opNS, rbactest.Access{Verb: verb, Resource: res, Namespace: tenant, Name: "boot"}) {
				t.Errorf("%s install: binding %s does not let the manager %s the tenant's %s", m.name, role, verb, res)
			}
			if rbactest.May(t, c, m.opNS, rbactest.Access{Verb: verb, Resource: res, Namespace: elsewhere, Name: "boot"}) {
				t.Errorf("%s install: one tenant's %s lets the manager %s %s of another namespace", m.name, role, verb, res)
			}
		}
		for _, verb := range withheld {
			if rbactest.May(t, c, m.opNS, rbactest.Access{Verb: verb, Resource: res, Namespace: tenant, Name: "boot"}) {
				t.Errorf("%s install: binding %s lets the manager %s the tenant's %s", m.name, role, verb, res)
			}
		}
	}
}

// grantBundle creates what OLM creates for the bundle's CSV and RBAC objects when the
// OperatorGroup targets namespaces (nil: all namespaces). The CSV's clusterPermissions
// become a ClusterRole and ClusterRoleBinding; its permissions a Role and RoleBinding
// in the operator's namespace, copied into each target namespace, or lifted to a
// ClusterRole and ClusterRoleBinding for AllNamespaces; the bundle's own RBAC objects
// are created as they are, the namespaced ones in the operator's namespace.
func grantBundle(t *testing.T, c client.Client, m *installMode, csv *operatorsv1alpha1.ClusterServiceVersion,
	objs []*unstructured.Unstructured, targets []string) {
	t.Helper()
	strategy := csv.Spec.InstallStrategy.StrategySpec
	for i, p := range strategy.ClusterPermissions {
		bindCluster(t, c, fmt.Sprintf("%s-%s-cluster-%d", packageName, m.name, i), p.Rules, p.ServiceAccountName, m.opNS)
	}
	for i, p := range strategy.Permissions {
		if targets == nil {
			bindCluster(t, c, fmt.Sprintf("%s-%s-lifted-%d", packageName, m.name, i), p.Rules, p.ServiceAccountName, m.opNS)
		}
		for _, ns := range slices.Compact(slices.Sorted(slices.Values(append([]string{m.opNS}, targets...)))) {
			bindNamespaced(t, c, ns, fmt.Sprintf("%s-permissions-%d", packageName, i), p.Rules, p.ServiceAccountName, m.opNS)
		}
	}
	for _, o := range objs {
		switch o.GetKind() {
		case "Role", "RoleBinding":
			obj := o.DeepCopy()
			obj.SetNamespace(m.opNS)
			create(t, c, obj)
		case "ClusterRoleBinding":
			var b rbacv1.ClusterRoleBinding
			into(t, o.Object, &b)
			for _, s := range b.Subjects {
				if s.Kind == rbacv1.ServiceAccountKind && s.Name == managerSA {
					t.Errorf("the bundle binds a ClusterRole to the manager outside the CSV: %s", b.Name)
				}
			}
		case "ClusterRole":
			// The bundle's ClusterRoles are for people (and the userdata-reader and
			// outputs-writer roles for namespace admins); created once, as OLM would.
			obj := o.DeepCopy()
			if err := c.Create(context.Background(), obj); client.IgnoreAlreadyExists(err) != nil {
				t.Fatal(err)
			}
		}
	}
}

// grantDeploy creates the RBAC of `make deploy` (config/default), moved into the mode's
// namespace: every cluster-scoped role gets the mode's suffix.
func grantDeploy(t *testing.T, c client.Client, m *installMode) {
	t.Helper()
	for _, o := range kustomize(t, "config/default") {
		switch o.GetKind() {
		case "Role":
			obj := o.DeepCopy()
			obj.SetNamespace(m.opNS)
			create(t, c, obj)
		case "RoleBinding":
			var b rbacv1.RoleBinding
			into(t, o.Object, &b)
			retargetSubjects(b.Subjects, m.opNS)
			b.Namespace = m.opNS
			create(t, c, &b)
		case "ClusterRole":
			obj := o.DeepCopy()
			obj.SetName(obj.GetName() + "-" + m.name)
			create(t, c, obj)
		case "ClusterRoleBinding":
			var b rbacv1.ClusterRoleBinding
			into(t, o.Object, &b)
			b.Name += "-" + m.name
			b.RoleRef.Name += "-" + m.name
			retargetSubjects(b.Subjects, m.opNS)
			create(t, c, &b)
		}
	}
	// The namespace admins' roles under the names the README's commands bind.
	for _, name := range []string{grants.UserDataReaderRole, grants.OutputsWriterRole} {
		var role rbacv1.ClusterRole
		into(t, find(t, kustomize(t, "config/default"), "ClusterRole", name).Object, &role)
		if err := c.Create(context.Background(), &role); client.IgnoreAlreadyExists(err) != nil {
			t.Fatal(err)
		}
	}
}

// retargetSubjects moves the manager's ServiceAccount subjects into ns.
func retargetSubjects(subjects []rbacv1.Subject, ns string) {
	for i := range subjects {
		if subjects[i].Kind == rbacv1.ServiceAccountKind && subjects[i].Namespace == installNS {
			subjects[i].Namespace = ns
		}
	}
}

func bindCluster(t *testing.T, c client.Client, name string, rules []rbacv1.PolicyRule, sa, ns string) {
	t.Helper()
	create(t, c, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules})
	create(t, c, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}},
	})
}

func bindNamespaced(t *testing.T, c client.Client, ns, name string, rules []rbacv1.PolicyRule, sa, saNS string) {
	t.Helper()
	create(t, c, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules})
	create(t, c, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: saNS}},
	})
}

func create(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	obj.SetResourceVersion("")
	if err := c.Create(context.Background(), obj); err != nil {
		t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
	}
}

func newNamespace(t *testing.T, c client.Client, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}
