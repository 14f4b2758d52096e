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
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/metrics"
	"github.com/ec2-operator/ec2-operator/internal/monitoring"
)

// runtimeMetrics are the controller-runtime and process metrics the manager's registry
// serves besides the operator's own.
var runtimeMetrics = []string{
	"up", // added by Prometheus for every target
	"controller_runtime_reconcile_total",
	"controller_runtime_reconcile_errors_total",
	"controller_runtime_reconcile_time_seconds",
	"controller_runtime_active_workers",
	"controller_runtime_max_concurrent_reconciles",
	"workqueue_depth",
	"workqueue_queue_duration_seconds",
	"workqueue_retries_total",
	"process_resident_memory_bytes",
	"process_cpu_seconds_total",
}

// knownMetrics returns every metric name the manager serves: the ones
// internal/metrics registers (read from its collectors, so a renamed metric breaks the
// alert that uses it here rather than silently in production) and controller-runtime's.
func knownMetrics(t *testing.T) map[string]bool {
	t.Helper()
	rec := &recordingRegisterer{names: map[string]bool{}}
	metrics.New(rec)
	if len(rec.names) == 0 {
		t.Fatal("internal/metrics registered no collectors")
	}
	for _, n := range runtimeMetrics {
		rec.names[n] = true
	}
	return rec.names
}

// recordingRegisterer records the names of the metrics registered with it.
type recordingRegisterer struct{ names map[string]bool }

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

func (r *recordingRegisterer) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc, 16)
	go func() { c.Describe(ch); close(ch) }()
	for d := range ch {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			r.names[m[1]] = true
		}
	}
	return nil
}

func (r *recordingRegisterer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		_ = r.Register(c)
	}
}

func (r *recordingRegisterer) Unregister(prometheus.Collector) bool { return true }

var metricName = regexp.MustCompile(`\b((?:ec2_operator|controller_runtime|workqueue|process)_[a-z0-9_]+|up)\b`)

// checkMetricNames fails when expr uses no metric, or one the manager does not serve.
func checkMetricNames(t *testing.T, known map[string]bool, where, expr string) {
	t.Helper()
	names := metricName.FindAllString(expr, -1)
	if len(names) == 0 {
		t.Errorf("%s uses none of the operator's metrics: %s", where, expr)
	}
	for _, n := range names {
		base := n
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if b, ok := strings.CutSuffix(n, suffix); ok && known[b] {
				base = b
			}
		}
		if !known[base] {
			t.Errorf("%s uses %s, which the manager does not serve", where, n)
		}
	}
}

// openshiftObjects renders config/openshift (ServiceMonitor, PrometheusRule and the
// objects they reference).
func openshiftObjects(t *testing.T) []*unstructured.Unstructured {
	return kustomize(t, "config/openshift")
}

// TestServiceMonitorSatisfiesUserWorkloadMonitoring checks the rules OpenShift's
// user-workload Prometheus enforces and the references the ServiceMonitor makes. A
// real Prometheus scraping through this ServiceMonitor, as UWM selects it, is
// test/cluster's TestCluster/monitoring (make test-cluster).
func TestServiceMonitorSatisfiesUserWorkloadMonitoring(t *testing.T) {
	objs := openshiftObjects(t)
	u := find(t, objs, "ServiceMonitor", "")
	var sm monitoringv1.ServiceMonitor
	data, _ := json.Marshal(u.Object)
	if err := yaml.UnmarshalStrict(data, &sm); err != nil {
		t.Fatalf("ServiceMonitor has fields prometheus-operator does not know: %v", err)
	}
	if u.GetNamespace() != installNS {
		t.Errorf("ServiceMonitor namespace = %q, want %q", u.GetNamespace(), installNS)
	}
	if len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("want one endpoint, got %d", len(sm.Spec.Endpoints))
	}
	ep := sm.Spec.Endpoints[0]
	//nolint:staticcheck // checking that the deprecated, rejected fields are unset
	if ep.BearerTokenFile != "" || ep.BearerTokenSecret != nil {
		t.Error("endpoint uses bearerTokenFile/bearerTokenSecret; user-workload monitoring needs authorization")
	}
	if ep.Authorization == nil || ep.Authorization.Credentials == nil || ep.Authorization.Credentials.Key != "token" {
		t.Fatal("endpoint does not take its bearer token from a Secret via authorization.credentials")
	}
	if ep.Scheme == nil || string(*ep.Scheme) != "https" || ep.Port != "https" || ep.Path != "/metrics" {
		t.Errorf("endpoint scheme/port/path = %v/%s/%s, want https/https//metrics", ep.Scheme, ep.Port, ep.Path)
	}
	tls := ep.TLSConfig
	if tls == nil {
		t.Fatal("endpoint has no tlsConfig")
	}
	if tls.CAFile != "" || tls.CertFile != "" || tls.KeyFile != "" {
		t.Error("tlsConfig references files, which user-workload monitoring rejects")
	}
	if tls.InsecureSkipVerify != nil && *tls.InsecureSkipVerify {
		t.Error("tlsConfig skips certificate verification")
	}
	if want := metricsService + "." + installNS + ".svc"; tls.ServerName == nil || *tls.ServerName != want {
		t.Errorf("serverName = %v, want %s (the name service-ca's certificate is issued for)", tls.ServerName, want)
	}
	if tls.CA.ConfigMap == nil || tls.CA.ConfigMap.Key != "service-ca.crt" {
		t.Fatal("CA does not come from the service-ca.crt key of a ConfigMap")
	}

	cm := find(t, objs, "ConfigMap", tls.CA.ConfigMap.Name)
	if cm.GetAnnotations()["service.beta.openshift.io/inject-cabundle"] != "true" {
		t.Errorf("ConfigMap %s is not annotated for service-ca injection", cm.GetName())
	}
	// The token is the manager's scrape token (internal/monitoring): an Opaque Secret
	// the bundle ships empty, and the name the manager fills in.
	secret := find(t, objs, "Secret", ep.Authorization.Credentials.Name)
	var s corev1.Secret
	into(t, secret.Object, &s)
	if s.Type != corev1.SecretTypeOpaque || len(s.Data)+len(s.StringData) != 0 {
		t.Errorf("Secret %s is not an empty Opaque Secret for the manager to fill", s.Name)
	}
	if s.Name != monitoring.DefaultObjects(installNS).TokenSecret || ep.Authorization.Credentials.Key != monitoring.TokenKey {
		t.Errorf("the ServiceMonitor reads %s/%s; the manager writes its token to %s/%s", s.Name, ep.Authorization.Credentials.Key,
			monitoring.DefaultObjects(installNS).TokenSecret, monitoring.TokenKey)
	}

	// The user-workload Prometheus's own identity is bound to a ClusterRole that allows
	// GET /metrics, for scrape configurations that authenticate as Prometheus.
	defaults := kustomize(t, "config/default")
	subjects := map[string]bool{}
	for _, o := range objs {
		if o.GetKind() != "ClusterRoleBinding" {
			continue
		}
		var binding rbacv1.ClusterRoleBinding
		into(t, o.Object, &binding)
		reader := find(t, append(defaults, objs...), "ClusterRole", binding.RoleRef.Name)
		var role rbacv1.ClusterRole
		into(t, reader.Object, &role)
		if !hasNonResourceRule(role.Rules, "/metrics", "get") {
			t.Errorf("ClusterRole %s does not allow GET /metrics", role.Name)
		}
		for _, sub := range binding.Subjects {
			subjects[sub.Namespace+"/"+sub.Name] = true
		}
	}
	if want := "openshift-user-workload-monitoring/prometheus-user-workload"; !subjects[want] {
		t.Errorf("no metrics reader role is bound to %s", want)
	}

	// The ServiceMonitor selects the metrics Service by its labels and named port.
	svc := find(t, defaults, "Service", metricsService)
	for k, v := range sm.Spec.Selector.MatchLabels {
		if svc.GetLabels()[k] != v {
			t.Errorf("selector %s=%s does not match the metrics Service", k, v)
		}
	}
}

func hasNonResourceRule(rules []rbacv1.PolicyRule, url, verb string) bool {
	for _, r := range rules {
		if contains(r.NonResourceURLs, url) && contains(r.Verbs, verb) {
			return true
		}
	}
	return false
}

// TestPrometheusRuleAlertsHaveRunbooks checks the alert set and that every alert says
// what to do.
func TestPrometheusRuleAlertsHaveRunbooks(t *testing.T) {
	u := find(t, openshiftObjects(t), "PrometheusRule", "")
	var rule monitoringv1.PrometheusRule
	data, _ := json.Marshal(u.Object)
	if err := yaml.UnmarshalStrict(data, &rule); err != nil {
		t.Fatalf("PrometheusRule has unknown fields: %v", err)
	}
	runbooks, err := os.ReadFile(path("docs/runbooks.md"))
	if err != nil {
		t.Fatal(err)
	}
	known := knownMetrics(t)
	var alerts []string
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts = append(alerts, r.Alert)
			checkMetricNames(t, known, "alert "+r.Alert, r.Expr.String())
			// OpenShift's alerting conventions keep critical for alerts that need a human
			// on the cluster at once (openshift/enhancements, monitoring/alerting-consistency.md).
			// Nothing this operator reports is that: instances keep running while it is down.
			if r.Labels["severity"] != "warning" && r.Labels["severity"] != "info" {
				t.Errorf("alert %s severity = %q, want warning or info", r.Alert, r.Labels["severity"])
			}
			if r.For == nil || *r.For == "" {
				t.Errorf("alert %s has no for: duration", r.Alert)
			}
			if r.Annotations["summary"] == "" || len(r.Annotations["description"]) < 80 {
				t.Errorf("alert %s lacks a summary or a description that says what to do", r.Alert)
			}
			anchor := "#" + strings.ToLower(r.Alert)
			if !strings.HasSuffix(r.Annotations["runbook_url"], "docs/runbooks.md"+anchor) {
				t.Errorf("alert %s runbook_url = %q", r.Alert, r.Annotations["runbook_url"])
			}
			if !strings.Contains(string(runbooks), "\n## "+r.Alert+"\n") {
				t.Errorf("docs/runbooks.md has no section for %s", r.Alert)
			}
		}
	}
	sort.Strings(alerts)
	want := []string{"EC2InstanceNotReady", "EC2OperatorAWSAccessDenied", "EC2OperatorAWSAccountNotReady", "EC2OperatorAWSThrottled", "EC2OperatorDown", "EC2OperatorReconcileErrors", "EC2OperatorReplacementsPaused"}
	if strings.Join(alerts, ",") != strings.Join(want, ",") {
		t.Errorf("alerts = %v, want %v", alerts, want)
	}
}

func TestGrafanaDashboardUsesTheOperatorsMetrics(t *testing.T) {
	data, err := os.ReadFile(path("config/grafana/ec2-operator-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string `json:"title"`
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("dashboard is not JSON: %v", err)
	}
	if dash.Title == "" || dash.UID == "" || len(dash.Panels) < 6 {
		t.Fatalf("dashboard lacks a title, uid or panels")
	}
	known := knownMetrics(t)
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			checkMetricNames(t, known, "panel "+p.Title, q.Expr)
		}
	}
}

// TestMonitoringObjectsAreAcceptedByTheAPIServer applies the ServiceMonitor, the
// PrometheusRule and the objects they reference to a real API server that has
// prometheus-operator's CRDs, so schema mistakes fail here rather than in a cluster.
func TestMonitoringObjectsAreAcceptedByTheAPIServer(t *testing.T) {
	cfg := apiServer(t)
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, ns := range []string{installNS, "openshift-user-workload-monitoring"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	applied := map[string]bool{}
	for _, o := range openshiftObjects(t) {
		if err := c.Create(ctx, o, client.DryRunAll); err != nil {
			t.Errorf("dry-run create %s %s: %v", o.GetKind(), o.GetName(), err)
			continue
		}
		if err := c.Create(ctx, o); err != nil {
			t.Errorf("create %s %s: %v", o.GetKind(), o.GetName(), err)
		}
		applied[o.GetKind()] = true
	}
	for _, kind := range []string{"ServiceMonitor", "PrometheusRule", "ConfigMap", "Secret", "ClusterRoleBinding"} {
		if !applied[kind] {
			t.Errorf("no %s was applied", kind)
		}
	}
	// A ServiceMonitor the API server must reject proves the CRD validates at all.
	bad := find(t, openshiftObjects(t), "ServiceMonitor", "").DeepCopy()
	bad.SetName("invalid-scheme")
	_ = unstructured.SetNestedSlice(bad.Object, []any{map[string]any{"port": "https", "scheme": "gopher"}}, "spec", "endpoints")
	if err := c.Create(ctx, bad); err == nil {
		t.Error("the API server accepted a ServiceMonitor with scheme gopher; the CRDs do not validate")
	}
}

// TestALMExamplesAreAcceptedByTheAPIServer creates every alm-example, as the console's
// "Create EC2Instance" form would, against the bundle's CRD.
func TestALMExamplesAreAcceptedByTheAPIServer(t *testing.T) {
	cfg := apiServer(t)
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var examples []map[string]any
	if err := json.Unmarshal([]byte(loadCSV(t).Annotations["alm-examples"]), &examples); err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		u := &unstructured.Unstructured{Object: ex}
		u.SetNamespace("default")
		if err := c.Create(context.Background(), u, client.DryRunAll); err != nil {
			t.Errorf("alm-example %s rejected: %v", u.GetName(), err)
		}
	}
}
