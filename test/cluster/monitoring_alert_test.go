//go:build cluster

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

package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// The alert pipeline is proven without waiting for EC2OperatorDown's production
// `for:` (10 minutes): promtool's unit tests (test/olm, alerts.test.yaml) prove each
// shipped rule's expression and timing, so the cluster proves the wiring. Beside the
// bundle's PrometheusRule the test installs wiringRuleName, a rule with the shipped
// alert's expression and labels, a different name and a `for:` of wiringFor. With the
// manager scaled to zero, that alert must fire (the rule is loaded, the namespace
// label enforced, the scrape target gone) while the shipped one is pending (its
// expression holds and its `for:` is honoured); both must resolve once the manager
// is back.
const (
	wiringRuleName = "ec2-operator-alerts-wiring"
	wiringAlert    = operatorDownAlert + "Wiring"
	wiringFor      = 15 * time.Second
)

// alertCheck is EC2OperatorDown's test after the manager was scaled to zero.
type alertCheck struct {
	c                *Cluster
	ns, csv, upQuery string
	idx              int
	replicas         int64
	wantFor          time.Duration
	down             time.Time
}

// restore scales the manager back to the CSV's replicas without waiting for the alert
// (make cluster, which keeps the install for a person).
func (a *alertCheck) restore(t *testing.T) {
	setCSVReplicas(t, a.c, a.ns, a.csv, a.idx, a.replicas)
}

// finish waits until the wiring alert fires and checks that the shipped one is pending,
// not firing, before its `for:`; then scales the manager back to the CSV's replicas and
// waits until both resolve and the target is up.
func (a *alertCheck) finish(t *testing.T) {
	c, ns := a.c, a.ns
	t.Cleanup(func() {
		setCSVReplicas(t, c, ns, a.csv, a.idx, a.replicas)
		c.Kubectl(t, "-n", ns, "delete", "prometheusrule", wiringRuleName, "--ignore-not-found")
	})
	prom := newPromClient(c.PortForward(t, uwmNamespace, uwmPrometheusPod, 9090))
	lastState := ""
	c.WaitFor(t, wiringFor+4*time.Minute-time.Since(a.down), wiringAlert+" to fire", func() (bool, error) {
		al := findAlert(t, prom, wiringAlert, ns)
		if al == nil {
			return false, nil
		}
		if al.State != lastState {
			lastState = al.State
			t.Logf("%s %s (active since %s), %s after scale-down", wiringAlert, al.State, al.ActiveAt, time.Since(a.down).Round(time.Second))
		}
		if al.State != "firing" {
			return false, nil
		}
		if al.Labels["severity"] != "warning" || al.Labels["namespace"] != ns {
			return false, fmt.Errorf("alert labels %v: want severity warning, namespace %s", al.Labels, ns)
		}
		return true, nil
	})
	if elapsed := time.Since(a.down); elapsed < wiringFor {
		t.Errorf("%s fired %s after the scale-down, before its for: %s", wiringAlert, elapsed, wiringFor)
	}
	// The shipped rule sees the same absence: pending, and still not firing before
	// its own `for:`.
	shipped := findAlert(t, prom, operatorDownAlert, ns)
	switch elapsed := time.Since(a.down); {
	case shipped == nil:
		t.Errorf("%s is inactive %s after the scale-down: its expression does not see the manager gone", operatorDownAlert, elapsed.Round(time.Second))
	case shipped.State == "firing" && elapsed < a.wantFor:
		t.Errorf("%s fired %s after the scale-down, before its for: %s", operatorDownAlert, elapsed, a.wantFor)
	default:
		t.Logf("%s %s %s after the scale-down (for: %s)", operatorDownAlert, shipped.State, elapsed.Round(time.Second), a.wantFor)
	}

	// Back to the CSV's replicas: the target comes back and both alerts resolve.
	setCSVReplicas(t, c, ns, a.csv, a.idx, a.replicas)
	up0 := time.Now()
	c.WaitFor(t, 5*time.Minute, "the alerts to stop once the manager is back", func() (bool, error) {
		return findAlert(t, prom, wiringAlert, ns) == nil && findAlert(t, prom, operatorDownAlert, ns) == nil, nil
	})
	t.Logf("%s and %s resolved %s after scaling back", wiringAlert, operatorDownAlert, time.Since(up0).Round(time.Second))
	res, err := prom.query(a.upQuery)
	if err != nil || len(res) != 1 || res[0].Value[1] != "1" {
		t.Errorf("%s after the manager is back: %v %v", a.upQuery, res, err)
	}
}

// findAlert returns the operator namespace's alert of that name, pending or firing,
// or nil.
func findAlert(t *testing.T, prom *promClient, name, ns string) *promAlert {
	alerts, err := prom.alerts()
	if err != nil {
		t.Logf("alerts: %v", err)
		return nil
	}
	for _, a := range alerts {
		if a.Labels["alertname"] == name && a.Labels["namespace"] == ns {
			return &a
		}
	}
	return nil
}

// shippedRule is one alerting rule of the bundle's PrometheusRule.
type shippedRule struct {
	Alert  string            `json:"alert"`
	Expr   string            `json:"expr"`
	For    string            `json:"for"`
	Labels map[string]string `json:"labels"`
}

// shippedAlert reads an alerting rule from the bundle's PrometheusRule, with its
// `for:` parsed.
func shippedAlert(t *testing.T, c *Cluster, alert string) (shippedRule, time.Duration) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.manifestsDir(), "bundle", "manifests", "ec2-operator-alerts_monitoring.coreos.com_v1_prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []shippedRule `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &rule); err != nil {
		t.Fatal(err)
	}
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			if r.Alert == alert {
				d, err := time.ParseDuration(r.For)
				if err != nil {
					t.Fatalf("alert %s: for %q: %v", alert, r.For, err)
				}
				return r, d
			}
		}
	}
	t.Fatalf("alert %s is not in the bundle's PrometheusRule", alert)
	return shippedRule{}, 0
}

// installWiringRule creates wiringRuleName in ns: the shipped rule's expression and
// labels under wiringAlert, with a `for:` of wiringFor.
func installWiringRule(t *testing.T, c *Cluster, ns string, shipped shippedRule) {
	t.Helper()
	obj := map[string]any{
		"apiVersion": "monitoring.coreos.com/v1",
		"kind":       "PrometheusRule",
		"metadata":   map[string]any{"name": wiringRuleName, "namespace": ns},
		"spec": map[string]any{"groups": []any{map[string]any{
			"name": "ec2-operator-wiring",
			"rules": []any{map[string]any{
				"alert": wiringAlert, "expr": shipped.Expr, "for": wiringFor.String(), "labels": shipped.Labels,
			}},
		}}},
	}
	data, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	c.ApplyYAML(t, string(data))
}
