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

// finish waits until EC2OperatorDown fires (not before its `for:`), scales the manager
// back to the CSV's replicas and waits until the alert resolves and the target is up.
func (a *alertCheck) finish(t *testing.T) {
	c, ns := a.c, a.ns
	t.Cleanup(func() { setCSVReplicas(t, c, ns, a.csv, a.idx, a.replicas) })
	prom := newPromClient(c.PortForward(t, uwmNamespace, uwmPrometheusPod, 9090))
	lastState := ""
	c.WaitFor(t, a.wantFor+4*time.Minute-time.Since(a.down), operatorDownAlert+" to fire", func() (bool, error) {
		al := findAlert(t, prom, ns)
		if al == nil {
			return false, nil
		}
		if al.State != lastState {
			lastState = al.State
			t.Logf("%s %s (active since %s), %s after scale-down", operatorDownAlert, al.State, al.ActiveAt, time.Since(a.down).Round(time.Second))
		}
		if al.State != "firing" {
			return false, nil
		}
		if al.Labels["severity"] != "warning" || al.Labels["namespace"] != ns {
			return false, fmt.Errorf("alert labels %v: want severity warning, namespace %s", al.Labels, ns)
		}
		return true, nil
	})
	if elapsed := time.Since(a.down); elapsed < a.wantFor {
		t.Errorf("%s fired %s after the scale-down, before its for: %s", operatorDownAlert, elapsed, a.wantFor)
	}

	// Back to the CSV's replicas: the target comes back and the alert resolves.
	setCSVReplicas(t, c, ns, a.csv, a.idx, a.replicas)
	up0 := time.Now()
	c.WaitFor(t, 5*time.Minute, operatorDownAlert+" to stop firing once the manager is back", func() (bool, error) {
		return findAlert(t, prom, ns) == nil, nil
	})
	t.Logf("%s resolved %s after scaling back", operatorDownAlert, time.Since(up0).Round(time.Second))
	res, err := prom.query(a.upQuery)
	if err != nil || len(res) != 1 || res[0].Value[1] != "1" {
		t.Errorf("%s after the manager is back: %v %v", a.upQuery, res, err)
	}
}

// findAlert returns the operator namespace's EC2OperatorDown alert, pending or firing,
// or nil.
func findAlert(t *testing.T, prom *promClient, ns string) *promAlert {
	alerts, err := prom.alerts()
	if err != nil {
		t.Logf("alerts: %v", err)
		return nil
	}
	for _, a := range alerts {
		if a.Labels["alertname"] == operatorDownAlert && a.Labels["namespace"] == ns {
			return &a
		}
	}
	return nil
}

// shippedFor reads an alert's `for:` from the bundle's PrometheusRule.
func shippedFor(t *testing.T, c *Cluster, alert string) time.Duration {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.Root, "bundle", "manifests", "ec2-operator-alerts_monitoring.coreos.com_v1_prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []struct {
					Alert string `json:"alert"`
					For   string `json:"for"`
				} `json:"rules"`
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
				return d
			}
		}
	}
	t.Fatalf("alert %s is not in the bundle's PrometheusRule", alert)
	return 0
}
