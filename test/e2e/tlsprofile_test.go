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

package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	"github.com/ec2-operator/ec2-operator/internal/tlsprofile"
)

// setClusterTLSProfile writes the APIServer named cluster with the given profile.
func setClusterTLSProfile(t *testing.T, profile map[string]any) {
	t.Helper()
	ctx := context.Background()
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(tlsprofile.APIServerGVR.GroupVersion().WithKind("APIServer"))
	obj.SetName(tlsprofile.ClusterConfigName)
	obj.Object["spec"] = map[string]any{"tlsSecurityProfile": profile}
	if err := k8s.Patch(ctx, obj, client.Apply, client.FieldOwner("e2e"), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
}

// On OpenShift (here: an API server serving config.openshift.io's APIServer) the
// metrics server follows the cluster's TLS security profile: it starts with it, and a
// change applies to the next connection without a restart. --tls-profile overrides it.
// The APIServer is cluster-wide, so managers of tests running meanwhile follow it too;
// their clients negotiate TLS 1.3, which every profile serves.
func TestOnOpenShiftTheMetricsServerFollowsTheClustersTLSSecurityProfile(t *testing.T) {
	if _, err := envtest.InstallCRDs(env.Kube.Config, envtest.CRDInstallOptions{
		Paths:              []string{filepath.Join(projectRoot, "internal", "tlsprofile", "testdata", "apiserver-crd.yaml")},
		ErrorIfPathMissing: true,
	}); err != nil {
		t.Fatal(err)
	}
	setClusterTLSProfile(t, map[string]any{"type": "Modern", "modern": map[string]any{}})
	t.Cleanup(func() {
		obj := &unstructured.Unstructured{}
		obj.SetGroupVersionKind(tlsprofile.APIServerGVR.GroupVersion().WithKind("APIServer"))
		obj.SetName(tlsprofile.ClusterConfigName)
		_ = k8s.Delete(context.Background(), obj)
	})
	ns := newNamespace(t, "tlsprofile")
	mgr := startManager(t, "tlsprofile", ns)

	// Modern from the first connection on: the profile is read before the server starts.
	if err := simtest.TLSHandshake(mgr.metricsAddr, tls.VersionTLS12); err == nil {
		t.Error("Modern: a TLS 1.2 client was served")
	}
	if err := simtest.TLSHandshake(mgr.metricsAddr, tls.VersionTLS13); err != nil {
		t.Errorf("Modern: a TLS 1.3 client was refused: %v", err)
	}
	if !strings.Contains(mgr.Log(), "Modern (the cluster's APIServer)") {
		t.Errorf("the log does not say the metrics server follows the cluster's Modern profile")
	}

	// The cluster goes to Intermediate: TLS 1.2 is served, through the watch.
	changed := time.Now()
	setClusterTLSProfile(t, map[string]any{"type": "Intermediate", "intermediate": map[string]any{}})
	eventually(t, 30*time.Second, func() string {
		if err := simtest.TLSHandshake(mgr.metricsAddr, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256); err != nil {
			return fmt.Sprintf("Intermediate: a TLS 1.2 client is refused: %v", err)
		}
		return ""
	})
	t.Logf("Modern to Intermediate took effect %v after the APIServer was written", time.Since(changed).Round(time.Millisecond))
	if err := simtest.TLSHandshake(mgr.metricsAddr, tls.VersionTLS11); err == nil {
		t.Error("Intermediate: a TLS 1.1 client was served")
	}

	// The same watch as the manager's ServiceAccount with only the shipped ClusterRole:
	// listing and watching the one APIServer by name is all it needs and is granted.
	followAsTheOperator(t, ns)

	// Custom with one TLS 1.2 cipher: a client offering only another is refused.
	setClusterTLSProfile(t, map[string]any{"type": "Custom", "custom": map[string]any{
		"minTLSVersion": "VersionTLS12", "ciphers": []any{"ECDHE-RSA-AES256-GCM-SHA384"},
	}})
	eventually(t, 30*time.Second, func() string {
		if err := simtest.TLSHandshake(mgr.metricsAddr, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256); err == nil {
			return "Custom: a TLS 1.2 client offering a cipher the profile leaves out is still served"
		}
		return ""
	})
	if err := simtest.TLSHandshake(mgr.metricsAddr, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384); err != nil {
		t.Errorf("Custom: a client offering the profile's cipher was refused: %v", err)
	}
	if mgr.HasExited() {
		t.Fatalf("the manager exited:\n%s", mgr.Log())
	}

	// --tls-profile wins over the cluster's profile.
	pinned := startManager(t, "tlsprofile-pinned", newNamespace(t, "tlsprofile-pinned"), "--tls-profile=Modern")
	if err := simtest.TLSHandshake(pinned.metricsAddr, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384); err == nil {
		t.Error("--tls-profile=Modern: a TLS 1.2 client was served under the cluster's Custom profile")
	}
	if err := simtest.TLSHandshake(pinned.metricsAddr, tls.VersionTLS13); err != nil {
		t.Errorf("--tls-profile=Modern: a TLS 1.3 client was refused: %v", err)
	}
}

// followAsTheOperator runs the profile follower as the operator's ServiceAccount bound
// to the ClusterRole config/rbac/role.yaml ships (the CSV's clusterPermissions), and
// checks that it reads the profile and sees a change through its watch.
func followAsTheOperator(t *testing.T, ns string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	role := shippedClusterRole(t)
	role.Name = "ec2-operator-manager-" + ns
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "ec2-operator-controller-manager", Namespace: ns}},
	}
	for _, o := range []client.Object{role, binding} {
		if err := k8s.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(context.Background(), o) })
	}
	cfg := rest.CopyConfig(env.Kube.Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + ns + ":ec2-operator-controller-manager",
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	current := tlsprofile.NewCurrent(tlsprofile.Default())
	// Every error the follower logs (a list or watch RBAC refuses, say) is kept: the
	// informer would paper over a refused watch by listing again after its backoff.
	var mu sync.Mutex
	var logged []string
	log := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, args)
	}, funcr.Options{})
	f := &tlsprofile.Follower{Client: dyn, Current: current, Log: log}
	// RBAC reaches the API server's authorizer through an informer: the first read is
	// retried until the new binding is seen.
	eventually(t, 10*time.Second, func() string {
		if err := f.Sync(ctx); err != nil {
			return err.Error()
		}
		return ""
	})
	if got := current.Get(); got.MinVersion != tls.VersionTLS12 || len(got.CipherSuites) != 6 {
		t.Fatalf("as the operator, the follower read %+v; want the cluster's Intermediate", got)
	}
	done := make(chan error, 1)
	go func() { done <- f.Start(ctx) }()
	setClusterTLSProfile(t, map[string]any{"type": "Old", "old": map[string]any{}})
	eventually(t, 30*time.Second, func() string {
		if got := current.Get(); got.MinVersion != tls.VersionTLS10 {
			return "as the operator, the follower's watch has not seen Old: " + tls.VersionName(got.MinVersion)
		}
		return ""
	})
	cancel()
	if err := <-done; err != nil {
		t.Errorf("the follower ended with %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, line := range logged {
		if strings.Contains(line, `"error"`) {
			t.Errorf("as the operator, the follower logged an error: %s", line)
		}
	}
}

// shippedClusterRole is the ClusterRole of config/rbac/role.yaml, which controller-gen
// writes from the RBAC markers.
func shippedClusterRole(t *testing.T) *rbacv1.ClusterRole {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(projectRoot, "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		role := &rbacv1.ClusterRole{}
		if err := yaml.Unmarshal([]byte(doc), role); err == nil && role.Kind == "ClusterRole" {
			return role
		}
	}
	t.Fatal("config/rbac/role.yaml has no ClusterRole")
	return nil
}
