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
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestMetricsNeedAnAuthorizedServiceAccountTokenAndShowTheOperatorsWork scrapes the
// manager's HTTPS /metrics the way Prometheus in the cluster does: with a
// ServiceAccount token that the manager checks with a TokenReview and a
// SubjectAccessReview against the API server.
func TestMetricsNeedAnAuthorizedServiceAccountTokenAndShowTheOperatorsWork(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t, "metrics")
	mgr := startManager(t, "metrics", ns)

	// What config/rbac/metrics_reader_role.yaml grants, bound to one ServiceAccount.
	scraper := createServiceAccount(t, ns, "prometheus")
	stranger := createServiceAccount(t, ns, "stranger")
	ensureMetricsReaderRole(t)
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader-" + ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "prometheus", Namespace: ns}},
	}
	if err := k8s.Create(context.Background(), binding); err != nil {
		t.Fatal(err)
	}
	token := serviceAccountToken(t, ns, scraper)
	strangerToken := serviceAccountToken(t, ns, stranger)

	createInstance(t, ns, "metered-1")
	waitReady(t, ns, "metered-1")

	if code, _ := scrape(t, mgr.metricsAddr, ""); code != http.StatusUnauthorized {
		t.Errorf("without a token: status %d, want 401", code)
	}
	// A token the API server rejects (its TokenReview says not authenticated) is
	// unauthorized too, as the API server itself would answer.
	if code, _ := scrape(t, mgr.metricsAddr, "not-a-token"); code != http.StatusUnauthorized {
		t.Errorf("with a bogus token: status %d, want 401", code)
	}
	if code, _ := scrape(t, mgr.metricsAddr, strangerToken); code != http.StatusForbidden {
		t.Errorf("with the token of a ServiceAccount without the role: status %d, want 403", code)
	}

	// The manager caches authorization decisions, and RBAC reaches the API server's
	// authorizer through an informer, so the first allowed scrape is polled for.
	var before string
	eventually(t, waitTimeout, func() string {
		code, body := scrape(t, mgr.metricsAddr, token)
		if code != http.StatusOK {
			return fmt.Sprintf("with the reader's token: status %d: %.200s", code, body)
		}
		before = body
		return ""
	})
	runsBefore := metricValue(before, "ec2_operator_aws_api_calls_total", `operation="RunInstances"`, `code="OK"`)
	if runsBefore < 1 {
		t.Errorf("no successful RunInstances counted after a launch:\n%s", grepLines(before, "ec2_operator_aws_api_calls_total"))
	}
	// A settled instance is requeued for its resync, so results are mostly
	// requeue_after rather than success: count them all.
	if n := metricValue(before, "controller_runtime_reconcile_total", `controller="ec2instance"`); n < 1 {
		t.Errorf("no reconcile counted:\n%s", grepLines(before, "controller_runtime_reconcile_total"))
	}
	if n := metricValue(before, "ec2_operator_instances", `state="running"`); n != 1 {
		t.Errorf("ec2_operator_instances{state=running} is %v, want 1:\n%s", n, grepLines(before, "ec2_operator_instances"))
	}

	createInstance(t, ns, "metered-2")
	waitReady(t, ns, "metered-2")
	// The gauge and counters move on reconcile, which the Ready status write follows,
	// but poll anyway: that is not a promise the tests should rely on.
	eventually(t, waitTimeout, func() string {
		_, after := scrape(t, mgr.metricsAddr, token)
		runs := metricValue(after, "ec2_operator_aws_api_calls_total", `operation="RunInstances"`, `code="OK"`)
		running := metricValue(after, "ec2_operator_instances", `state="running"`)
		if runs <= runsBefore || running != 2 {
			return fmt.Sprintf("RunInstances %v (before %v), running instances %v (want 2)", runs, runsBefore, running)
		}
		return ""
	})
}

// TestManagerAnswersHealthAndReadinessProbes checks the endpoints a Deployment's
// liveness and readiness probes call.
func TestManagerAnswersHealthAndReadinessProbes(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t, "probes")
	mgr := startManager(t, "probes", ns)
	for _, path := range []string{"/healthz", "/readyz"} {
		code, err := probe(mgr.probeAddr, path)
		if err != nil || code != http.StatusOK {
			t.Errorf("GET %s: %d %v, want 200", path, code, err)
		}
	}
}

// createServiceAccount creates a ServiceAccount and returns its name.
func createServiceAccount(t *testing.T, ns, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if err := k8s.Create(context.Background(), sa); err != nil {
		t.Fatal(err)
	}
	return name
}

// ensureMetricsReaderRole creates the ClusterRole of config/rbac/metrics_reader_role.yaml
// unless it exists.
func ensureMetricsReaderRole(t *testing.T) {
	t.Helper()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader"},
		Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
	}
	if err := k8s.Create(context.Background(), role); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// serviceAccountToken mints a short-lived token with the TokenRequest API, as the
// kubelet does for a projected token volume.
func serviceAccountToken(t *testing.T, ns, name string) string {
	t.Helper()
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	got, err := clientset.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), name, req, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for %s/%s: %v", ns, name, err)
	}
	return got.Status.Token
}

// scrape GETs /metrics over HTTPS with the bearer token ("" sends none) and returns the
// status and body. The certificate is the manager's self-signed one, so it is not
// verified.
func scrape(t *testing.T, addr, token string) (int, string) {
	t.Helper()
	c := &http.Client{
		Timeout: 15 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // self-signed test certificate
			DisableKeepAlives: true,
		},
	}
	req, err := http.NewRequest(http.MethodGet, "https://"+addr+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("scraping %s: %v", addr, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// metricValue sums the samples of metric name, in Prometheus text format, whose
// labels contain every one of labels (each written `key="value"`). A missing series
// counts as 0, as Prometheus would treat an absent counter.
func metricValue(body, name string, labels ...string) float64 {
	var sum float64
	for _, line := range strings.Split(body, "\n") {
		// Label values may hold spaces; the value is the last field (client_golang
		// writes no timestamps).
		cut := strings.LastIndexByte(line, ' ')
		if cut < 0 || strings.HasPrefix(line, "#") {
			continue
		}
		series, value := line[:cut], line[cut+1:]
		metric, labelSet, _ := strings.Cut(series, "{")
		if metric != name {
			continue
		}
		labelSet = "," + labelSet
		matches := true
		for _, l := range labels {
			if !strings.Contains(labelSet, ","+l) {
				matches = false
				break
			}
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); matches && err == nil {
			sum += v
		}
	}
	return sum
}

// grepLines returns the lines of body that contain s, for failure messages.
func grepLines(body, s string) string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
