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
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ec2-operator/ec2-operator/internal/monitoring"
)

// TestTheManagerFixesTheMonitoringObjectsOfAnyInstallNamespace installs the bundle's
// ServiceMonitor and empty token Secret into a namespace other than the suggested one,
// as OLM does when the user picks another, and runs the manager's monitoring fixer
// there with only the Role the bundle gives the manager in its own namespace: the
// ServiceMonitor names this namespace's metrics Service, the token Secret gets a scrape
// token once and keeps it, and the metrics filter admits exactly that token. A deleted
// Secret is reported, not created: the manager may create no Secret.
func TestTheManagerFixesTheMonitoringObjectsOfAnyInstallNamespace(t *testing.T) {
	cfg := apiServer(t)
	admin, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns := newNamespace(t, admin, "picked-by-the-user-")

	// The bundle's ServiceMonitor and token Secret, and the manager's own-namespace
	// Roles and RoleBindings, as OLM creates them in the install namespace.
	var installed []*unstructured.Unstructured
	installed = append(installed, find(t, openshiftObjects(t), "ServiceMonitor", "").DeepCopy())
	installed = append(installed, find(t, openshiftObjects(t), "Secret", monitoring.DefaultObjects(ns).TokenSecret).DeepCopy())
	installed = append(installed, kustomize(t, "config/bundle/own-namespace")...)
	var sm *unstructured.Unstructured
	for _, o := range installed {
		o.SetNamespace(ns)
		create(t, admin, o)
		if o.GetKind() == "ServiceMonitor" {
			sm = o
		}
	}
	asManager := rest.CopyConfig(cfg)
	asManager.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + managerSA}
	c, err := client.New(asManager, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	objects := monitoring.DefaultObjects(ns)
	token := &monitoring.ScrapeToken{}
	fixer := &monitoring.Fixer{Client: c, Objects: objects, Log: logr.Discard(), Token: token}
	if err := fixer.Fix(ctx); err != nil {
		t.Fatal(err)
	}
	if got := serverNames(t, admin, sm); len(got) != 1 || got[0] != objects.ServerName() {
		t.Errorf("ServiceMonitor serverName %v, want %s", got, objects.ServerName())
	}
	secretKey := client.ObjectKey{Namespace: ns, Name: objects.TokenSecret}
	var secret corev1.Secret
	if err := admin.Get(ctx, secretKey, &secret); err != nil {
		t.Fatal(err)
	}
	value := string(secret.Data[monitoring.TokenKey])
	if secret.Type != corev1.SecretTypeOpaque || len(value) < 40 {
		t.Fatalf("token Secret of type %s holds %d characters, want an Opaque Secret with a random token", secret.Type, len(value))
	}
	checkScrapeFilter(t, token, value)

	// A pass with nothing to fix writes nothing, and keeps the token.
	before, beforeSecret := resourceVersion(t, admin, sm), secret.ResourceVersion
	if err := fixer.Fix(ctx); err != nil {
		t.Fatal(err)
	}
	if after := resourceVersion(t, admin, sm); after != before {
		t.Errorf("a pass with nothing to fix updated the ServiceMonitor (%s -> %s)", before, after)
	}
	if err := admin.Get(ctx, secretKey, &secret); err != nil || secret.ResourceVersion != beforeSecret {
		t.Errorf("a pass with nothing to fix rewrote the token Secret (%v)", err)
	}

	// Deleted by hand: reported, and not created again.
	if err := admin.Delete(ctx, &secret); err != nil {
		t.Fatal(err)
	}
	if err := fixer.Fix(ctx); err == nil || !strings.Contains(err.Error(), objects.TokenSecret) {
		t.Errorf("a pass without the token Secret: %v, want an error naming it", err)
	}
	if err := admin.Get(ctx, secretKey, &corev1.Secret{}); err == nil {
		t.Error("the manager created the deleted token Secret again: it must not be able to create Secrets")
	}

	// Start runs passes until its context ends.
	runCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	fixer.Interval, fixer.Retry = 100*time.Millisecond, 100*time.Millisecond
	if err := fixer.Start(runCtx); err != nil {
		t.Errorf("Start: %v", err)
	}
}

// checkScrapeFilter serves a handler behind the scrape token's filter, with a
// Kubernetes check that refuses everyone: the token is admitted, anything else goes
// to that check.
func checkScrapeFilter(t *testing.T, token *monitoring.ScrapeToken, value string) {
	t.Helper()
	refuse := func(*rest.Config, *http.Client) (metricsserver.Filter, error) {
		return func(_ logr.Logger, _ http.Handler) (http.Handler, error) {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusForbidden) }), nil
		}, nil
	}
	filter, err := token.Filter(refuse)(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := filter(logr.Discard(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		auth string
		want int
	}{
		{"Bearer " + value, http.StatusOK},
		{"Bearer " + value + "x", http.StatusForbidden},
		{"Bearer ", http.StatusForbidden},
		{"", http.StatusForbidden},
		{"Basic " + value, http.StatusForbidden},
	} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("Authorization %q: status %d, want %d", strings.Replace(tc.auth, value, "<token>", 1), rec.Code, tc.want)
		}
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
