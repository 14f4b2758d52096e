package olm

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ec2-operator/ec2-operator/internal/monitoring"
)

// TestTheManagerFixesTheMonitoringObjectsOfAnyInstallNamespace installs the bundle's
// ServiceMonitor into a namespace other than the suggested one, as OLM does when the
// user picks another, and runs the manager's monitoring fixer there with only the
// namespaced RBAC the manager gets (the Role generated from its markers): the
// ServiceMonitor names this namespace's metrics Service, and the metrics reader's
// token Secret is created once its ServiceAccount exists, and again after the token
// controller deleted it.
func TestTheManagerFixesTheMonitoringObjectsOfAnyInstallNamespace(t *testing.T) {
	cfg := apiServer(t)
	admin, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "picked-by-the-user-"}}
	if err := admin.Create(ctx, nsObj); err != nil {
		t.Fatal(err)
	}
	ns := nsObj.Name

	// The bundle's ServiceMonitor, as OLM creates it in the install namespace.
	sm := find(t, openshiftObjects(t), "ServiceMonitor", "").DeepCopy()
	sm.SetNamespace(ns)
	sm.SetResourceVersion("")
	if err := admin.Create(ctx, sm); err != nil {
		t.Fatal(err)
	}
	// The manager's namespaced Role, bound to its ServiceAccount there.
	const managerSA = "ec2-operator-controller-manager"
	var role rbacv1.Role
	into(t, find(t, kustomize(t, "config/default"), "Role", "ec2-operator-manager-role").Object, &role)
	role.Namespace, role.ResourceVersion = ns, ""
	if err := admin.Create(ctx, &role); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manager"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: managerSA, Namespace: ns}},
	}
	if err := admin.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	asManager := rest.CopyConfig(cfg)
	asManager.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + managerSA}
	c, err := client.New(asManager, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	objects := monitoring.DefaultObjects(ns)
	fixer := &monitoring.Fixer{Client: c, Objects: objects, Log: logr.Discard()}

	// OLM has not created the reader's ServiceAccount yet: no Secret (the token
	// controller would delete it), but the ServiceMonitor is fixed already.
	if err := fixer.Fix(ctx); err == nil || !strings.Contains(err.Error(), "ServiceAccount") {
		t.Fatalf("a pass before the ServiceAccount exists: %v, want an error about the ServiceAccount", err)
	}
	if got := serverNames(t, admin, sm); len(got) != 1 || got[0] != objects.ServerName() {
		t.Errorf("ServiceMonitor serverName %v, want %s", got, objects.ServerName())
	}
	secretKey := client.ObjectKey{Namespace: ns, Name: objects.TokenSecret}
	if err := admin.Get(ctx, secretKey, &corev1.Secret{}); err == nil {
		t.Error("the token Secret was created before its ServiceAccount")
	}

	if err := admin.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: objects.ReaderServiceAccount}}); err != nil {
		t.Fatal(err)
	}
	if err := fixer.Fix(ctx); err != nil {
		t.Fatal(err)
	}
	var secret corev1.Secret
	if err := admin.Get(ctx, secretKey, &secret); err != nil {
		t.Fatal(err)
	}
	if secret.Type != corev1.SecretTypeServiceAccountToken || secret.Annotations[corev1.ServiceAccountNameKey] != objects.ReaderServiceAccount {
		t.Errorf("token Secret %+v is not a token of %s", secret, objects.ReaderServiceAccount)
	}

	// The token controller deleted it (it was created before the ServiceAccount in an
	// earlier install): the next pass creates it again. A pass with nothing to fix
	// writes nothing.
	if err := admin.Delete(ctx, &secret); err != nil {
		t.Fatal(err)
	}
	before := resourceVersion(t, admin, sm)
	if err := fixer.Fix(ctx); err != nil {
		t.Fatal(err)
	}
	if err := admin.Get(ctx, secretKey, &corev1.Secret{}); err != nil {
		t.Errorf("the deleted token Secret was not created again: %v", err)
	}
	if after := resourceVersion(t, admin, sm); after != before {
		t.Errorf("a pass with nothing to fix updated the ServiceMonitor (%s -> %s)", before, after)
	}

	// Start runs passes until its context ends.
	runCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	fixer.Interval, fixer.Retry = 100*time.Millisecond, 100*time.Millisecond
	if err := fixer.Start(runCtx); err != nil {
		t.Errorf("Start: %v", err)
	}
}

func serverNames(t *testing.T, c client.Client, sm *unstructured.Unstructured) []string {
	t.Helper()
	got := sm.DeepCopy()
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(sm), got); err != nil {
		t.Fatal(err)
	}
	endpoints, _, _ := unstructured.NestedSlice(got.Object, "spec", "endpoints")
	var out []string
	for _, e := range endpoints {
		name, _, _ := unstructured.NestedString(e.(map[string]any), "tlsConfig", "serverName")
		out = append(out, name)
	}
	return out
}

func resourceVersion(t *testing.T, c client.Client, sm *unstructured.Unstructured) string {
	t.Helper()
	got := sm.DeepCopy()
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(sm), got); err != nil {
		t.Fatal(err)
	}
	return got.GetResourceVersion()
}
