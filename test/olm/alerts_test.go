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
	"path/filepath"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"sigs.k8s.io/yaml"
)

// TestAlertsFireOnSyntheticSeriesAndStayQuietOnAHealthyOperator runs promtool's rule
// unit tests (testdata/alerts.test.yaml) on the PrometheusRule the bundle ships: each
// alert fires, with its labels and rendered annotations, on series that describe its
// failure, and none fires on a healthy operator. EC2OperatorDown firing in a real
// Prometheus when the operator is scaled to zero is test/cluster's
// TestCluster/monitoring (make test-cluster).
func TestAlertsFireOnSyntheticSeriesAndStayQuietOnAHealthyOperator(t *testing.T) {
	bin := os.Getenv("PROMTOOL")
	if bin == "" {
		bin = path("bin/promtool")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("promtool not found at %s: run `make promtool` (make test-olm does): %v", bin, err)
	}
	u := find(t, openshiftObjects(t), "PrometheusRule", "")
	var rule monitoringv1.PrometheusRule
	data, _ := json.Marshal(u.Object)
	if err := json.Unmarshal(data, &rule); err != nil {
		t.Fatal(err)
	}
	// A Prometheus rule file is the PrometheusRule's spec.
	rules, err := yaml.Marshal(rule.Spec)
	if err != nil {
		t.Fatal(err)
	}
	annotations := map[string]map[string]string{}
	fired := map[string]bool{}
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				annotations[r.Alert] = r.Annotations
			}
		}
	}

	raw, err := os.ReadFile(path("test/olm/testdata/alerts.test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var suite map[string]any
	if err := yaml.Unmarshal(raw, &suite); err != nil {
		t.Fatal(err)
	}
	// Fill in the expected annotations that have no template from the rule.
	for _, tc := range asList(suite["tests"]) {
		for _, art := range asList(asMap(tc)["alert_rule_test"]) {
			name, _ := asMap(art)["alertname"].(string)
			want, ok := annotations[name]
			if !ok {
				t.Fatalf("the unit tests name an alert %q the rule does not have", name)
			}
			for _, exp := range asList(asMap(art)["exp_alerts"]) {
				fired[name] = true
				e := asMap(exp)
				got, _ := e["exp_annotations"].(map[string]any)
				if got == nil {
					got = map[string]any{}
				}
				for k, v := range want {
					if _, given := got[k]; given {
						continue
					}
					if strings.Contains(v, "{{") {
						t.Fatalf("alert %s: annotation %s has a template; write it out rendered in testdata/alerts.test.yaml", name, k)
					}
					got[k] = v
				}
				e["exp_annotations"] = got
			}
		}
	}
	for name := range annotations {
		if !fired[name] {
			t.Errorf("alert %s has no unit test that fires it", name)
		}
	}

	dir := t.TempDir()
	out, err := yaml.Marshal(suite)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "alerts.test.yaml"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "test", "rules", "alerts.test.yaml")
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s%s", err, stdout.String(), stderr.String())
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
