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
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// The bundle's monitoring objects, as bundle/manifests names them.
const (
	managerDeployment   = "ec2-operator-controller-manager"
	metricsService      = "ec2-operator-controller-manager-metrics-service"
	metricsCertSecret   = "ec2-operator-metrics-cert"
	metricsCAConfigMap  = "ec2-operator-metrics-ca"
	metricsTokenSecret  = "ec2-operator-metrics-token"
	serviceMonitorName  = "ec2-operator-controller-manager-metrics-monitor"
	prometheusRuleName  = "ec2-operator-alerts"
	operatorDownAlert   = "EC2OperatorDown"
	uwmNamespace        = "openshift-user-workload-monitoring"
	uwmPrometheusPod    = "prometheus-user-workload-0"
	promOperatorModule  = "github.com/prometheus-operator/prometheus-operator"
	promOperatorVersion = "v0.85.0"
)

// managerPods selects the manager's pods (the Deployment's selector in the CSV).
var managerPods = client.MatchingLabels{"app.kubernetes.io/name": "ec2-operator", "control-plane": "controller-manager"}

// testMonitoring installs a monitoring stack that behaves like OpenShift's user-workload
// monitoring (cmd/devcluster/monitoring: a service CA, prometheus-operator and a
// Prometheus with UWM's selectors and restrictions) and proves, through the Prometheus
// HTTP API, that the bundle's monitoring objects work as shipped: the ServiceMonitor
// scrapes the manager over HTTPS, verifying the service CA's certificate and sending
// the token from the Secret; the PrometheusRule is loaded; EC2OperatorDown fires when
// the manager is scaled to zero through its CSV, and stops when it is back.
//
// The ec2-operator must already be installed by OLM in operatorNamespace. It does not
// wait for EC2OperatorDown's production `for:` (see wiringRuleName).
func testMonitoring(t *testing.T, c *Cluster, operatorNamespace string) *alertCheck {
	ctx := context.Background()
	dir := filepath.Join(c.Root, "cmd", "devcluster", "monitoring")

	// UWM selects every namespace except platform ones (openshift.io/cluster-monitoring
	// "true") and those opted out (openshift.io/user-monitoring "false"): the operator's
	// namespace needs no label, but must not carry either.
	ns := &corev1.Namespace{}
	if err := c.Client.Get(ctx, client.ObjectKey{Name: operatorNamespace}, ns); err != nil {
		t.Fatal(err)
	}
	if ns.Labels["openshift.io/cluster-monitoring"] == "true" || ns.Labels["openshift.io/user-monitoring"] == "false" {
		t.Fatalf("namespace %s has labels %v: user-workload monitoring would not select it", operatorNamespace, ns.Labels)
	}

	// 1. The service CA, first: the serving certificate, the CA bundle and the manager's
	// scrape token must exist before prometheus-operator first reads the ServiceMonitor
	// (it does not watch Secrets and ConfigMaps outside its Prometheus's namespace, and
	// re-reads them only every 5 minutes).
	c.Apply(t, filepath.Join(dir, "00-namespaces.yaml"))
	c.Apply(t, filepath.Join(dir, "10-service-ca.yaml"))
	checkServiceCA(t, c, operatorNamespace)
	c.WaitFor(t, 2*time.Minute, "the manager to write its scrape token into Secret "+metricsTokenSecret, func() (bool, error) {
		s := &corev1.Secret{}
		if err := c.Client.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: metricsTokenSecret}, s); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return len(s.Data["token"]) > 0, nil
	})

	// 2. prometheus-operator with every CRD of its release, then the Prometheus.
	crds := filepath.Join(moduleDir(t, promOperatorModule, promOperatorVersion), "example", "prometheus-operator-crd")
	// --force-conflicts: the ServiceMonitor and PrometheusRule CRDs were applied before
	// the bundle was installed, maybe by another field manager.
	c.Kubectl(t, "apply", "--server-side", "--force-conflicts", "-f", crds)
	c.Kubectl(t, "wait", "--for=condition=Established", "--timeout=60s", "-f", crds)
	c.Apply(t, filepath.Join(dir, "30-prometheus-operator.yaml"))
	c.Apply(t, filepath.Join(dir, "40-prometheus-user-workload.yaml"))
	waitPodReady(t, c, uwmNamespace, uwmPrometheusPod, 5*time.Minute)
	prom := newPromClient(c.PortForward(t, uwmNamespace, uwmPrometheusPod, 9090))

	// (a) The bundle's ServiceMonitor scrapes the manager: HTTPS, health up. A TLS
	// failure (certificate not from the service CA, wrong serverName) or a refused token
	// would leave the target down with lastError saying so. The manager switches from
	// its self-signed certificate to the mounted one without a restart, once the kubelet
	// has put the new Secret into its volume (up to a minute or two).
	job := metricsService
	pool := "serviceMonitor/" + operatorNamespace + "/" + serviceMonitorName + "/0"
	var target promTarget
	lastErr := ""
	c.WaitFor(t, 6*time.Minute, "Prometheus to scrape the manager through "+pool, func() (bool, error) {
		targets, err := prom.activeTargets()
		if err != nil {
			t.Logf("targets: %v", err)
			return false, nil
		}
		for _, tg := range targets {
			if tg.ScrapePool == pool {
				target = tg
				if tg.LastError != lastErr {
					lastErr = tg.LastError
					t.Logf("target %s: health %s, lastError %q", tg.ScrapeURL, tg.Health, tg.LastError)
				}
				return tg.Health == "up", nil
			}
		}
		return false, nil
	})
	if !strings.HasPrefix(target.ScrapeURL, "https://") || target.Labels["job"] != job || target.Labels["namespace"] != operatorNamespace {
		t.Errorf("target %+v: want an https scrapeUrl, job %q, namespace %q", target, job, operatorNamespace)
	}
	checkScrapeConfig(t, prom, pool, operatorNamespace)
	upQuery := fmt.Sprintf(`up{job=%q,namespace=%q}`, job, operatorNamespace)
	c.WaitFor(t, time.Minute, upQuery+" == 1", func() (bool, error) {
		res, err := prom.query(upQuery)
		return err == nil && len(res) == 1 && res[0].Value[1] == "1", nil
	})
	seriesQuery := fmt.Sprintf(`count by (__name__) ({__name__=~"ec2_operator_.+",job=%q,namespace=%q})`, job, operatorNamespace)
	var names []string
	c.WaitFor(t, time.Minute, "ec2_operator_* series from the manager", func() (bool, error) {
		res, err := prom.query(seriesQuery)
		if err != nil {
			return false, nil
		}
		names = names[:0]
		for _, s := range res {
			names = append(names, s.Metric["__name__"])
		}
		return strings.Contains(strings.Join(names, ","), "ec2_operator_build_info"), nil
	})
	t.Logf("ec2_operator series scraped: %v", names)

	// (b) The bundle's PrometheusRule is loaded, with the namespace label enforced into
	// its expressions and the `for:` it ships with.
	shipped, wantFor := shippedAlert(t, c, operatorDownAlert)
	installWiringRule(t, c, operatorNamespace, shipped)
	down := waitRuleLoaded(t, c, prom, operatorNamespace, prometheusRuleName, operatorDownAlert)
	wiring := waitRuleLoaded(t, c, prom, operatorNamespace, wiringRuleName, wiringAlert)
	if time.Duration(wiring.Duration*float64(time.Second)) != wiringFor || wiring.Query != down.Query {
		t.Errorf("rule %s: %+v; want for %s and the query of %s (%s)", wiringAlert, wiring, wiringFor, operatorDownAlert, down.Query)
	}
	if time.Duration(down.Duration*float64(time.Second)) != wantFor || down.Health == "err" ||
		!strings.Contains(down.Query, fmt.Sprintf(`namespace=%q`, operatorNamespace)) {
		t.Errorf("rule %s: %+v; want for %s, health ok, namespace %q enforced in the query", operatorDownAlert, down, wantFor, operatorNamespace)
	}
	// The manager may have served its self-signed certificate until the service CA's
	// Secret reached its volume, so the alert may have gone pending; with the target up
	// the next evaluations clear it, and it must stay clear.
	c.WaitFor(t, time.Minute, operatorDownAlert+" inactive while the manager is up", func() (bool, error) {
		if a := findAlert(t, prom, operatorDownAlert, operatorNamespace); a != nil {
			return false, fmt.Errorf("%s is %s", operatorDownAlert, a.State)
		}
		return true, nil
	})

	// (c) The manager scaled to zero: the wiring alert fires and EC2OperatorDown goes
	// pending (monitoring_alert_test.go). OLM owns the Deployment and reverts direct
	// edits, so the replicas change goes through the CSV. The suite runs other steps
	// meanwhile and then calls finish, which waits for the alerts and their resolution.
	a := &alertCheck{c: c, ns: operatorNamespace, wantFor: wantFor, upQuery: upQuery}
	a.csv, a.idx, a.replicas = managerCSV(t, c, operatorNamespace)
	setCSVReplicas(t, c, operatorNamespace, a.csv, a.idx, 0)
	c.WaitFor(t, 3*time.Minute, "the manager's pods to be gone", func() (bool, error) {
		pods := &corev1.PodList{}
		if err := c.Client.List(ctx, pods, client.InNamespace(operatorNamespace), managerPods); err != nil {
			return false, err
		}
		return len(pods.Items) == 0, nil
	})
	a.down = time.Now()
	t.Logf("manager scaled to 0 through CSV %s; %s should fire after %s, %s go pending", a.csv, wiringAlert, wiringFor, operatorDownAlert)
	return a
}

// waitRuleLoaded waits until Prometheus has loaded alert from PrometheusRule ruleName
// in ns and returns it.
func waitRuleLoaded(t *testing.T, c *Cluster, prom *promClient, ns, ruleName, alert string) promRule {
	t.Helper()
	var found promRule
	c.WaitFor(t, 2*time.Minute, "Prometheus to load "+alert+" from PrometheusRule "+ruleName, func() (bool, error) {
		groups, err := prom.alertingRules()
		if err != nil {
			return false, nil
		}
		for _, g := range groups {
			for _, r := range g.Rules {
				if r.Name == alert && strings.Contains(g.File, ns+"-"+ruleName) {
					found = r
					return true, nil
				}
			}
		}
		return false, nil
	})
	return found
}

// checkServiceCA waits for the service CA to issue the metrics Service's serving
// certificate and inject its CA into the bundle's CA ConfigMap, and checks both as the
// ServiceMonitor will use them.
func checkServiceCA(t *testing.T, c *Cluster, ns string) {
	t.Helper()
	ctx := context.Background()
	secret, cm, svc := &corev1.Secret{}, &corev1.ConfigMap{}, &corev1.Service{}
	c.WaitFor(t, 2*time.Minute, "the service CA to issue "+metricsCertSecret+" and fill "+metricsCAConfigMap, func() (bool, error) {
		for name, obj := range map[string]client.Object{metricsCertSecret: secret, metricsCAConfigMap: cm, metricsService: svc} {
			if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
				return false, client.IgnoreNotFound(err)
			}
		}
		// The service CA writes the Secret first and then annotates the Service, so
		// the wait covers both: checking the Service as soon as the Secret exists
		// raced with that second write.
		return len(secret.Data["tls.crt"]) > 0 && cm.Data["service-ca.crt"] != "" &&
			svc.Annotations["service.beta.openshift.io/serving-cert-signed-by"] != "", nil
	})
	if secret.Type != corev1.SecretTypeTLS ||
		secret.Annotations["service.beta.openshift.io/originating-service-name"] != metricsService ||
		secret.Annotations["service.beta.openshift.io/originating-service-uid"] != string(svc.UID) ||
		secret.Annotations["service.beta.openshift.io/expiry"] == "" ||
		svc.Annotations["service.beta.openshift.io/serving-cert-signed-by"] == "" {
		t.Errorf("serving cert Secret %s (type %s, annotations %v) or Service annotations %v are not what the service CA writes",
			metricsCertSecret, secret.Type, secret.Annotations, svc.Annotations)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(cm.Data["service-ca.crt"])) {
		t.Fatalf("ConfigMap %s: no certificate in service-ca.crt", metricsCAConfigMap)
	}
	block, _ := pem.Decode(secret.Data["tls.crt"])
	if block == nil {
		t.Fatalf("Secret %s: no PEM in tls.crt", metricsCertSecret)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{metricsService + "." + ns + ".svc", metricsService + "." + ns + ".svc.cluster.local"} {
		if _, err := cert.Verify(x509.VerifyOptions{DNSName: name, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("serving certificate for %s: %v", name, err)
		}
	}
}

// checkScrapeConfig checks, in the configuration prometheus-operator generated, that the
// scrape verifies TLS for the Service's name against a CA file the operator wrote (from
// the ConfigMap) and sends a bearer token (from the Secret).
func checkScrapeConfig(t *testing.T, prom *promClient, pool, ns string) {
	t.Helper()
	var status struct {
		YAML string `json:"yaml"`
	}
	if err := prom.get("/api/v1/status/config", nil, &status); err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		ScrapeConfigs []struct {
			JobName       string `json:"job_name"`
			Scheme        string `json:"scheme"`
			Authorization struct {
				Type        string `json:"type"`
				Credentials string `json:"credentials"`
			} `json:"authorization"`
			TLSConfig struct {
				CAFile             string `json:"ca_file"`
				ServerName         string `json:"server_name"`
				InsecureSkipVerify bool   `json:"insecure_skip_verify"`
			} `json:"tls_config"`
		} `json:"scrape_configs"`
	}
	if err := yaml.Unmarshal([]byte(status.YAML), &cfg); err != nil {
		t.Fatal(err)
	}
	for _, sc := range cfg.ScrapeConfigs {
		if sc.JobName != pool {
			continue
		}
		want := metricsService + "." + ns + ".svc"
		if sc.Scheme != "https" || sc.TLSConfig.InsecureSkipVerify || sc.TLSConfig.ServerName != want || sc.TLSConfig.CAFile == "" ||
			sc.Authorization.Type != "Bearer" || sc.Authorization.Credentials == "" {
			t.Errorf("scrape config %s: %+v; want https, TLS verified for %s against a CA file, a bearer token", pool, sc, want)
		}
		return
	}
	t.Errorf("no scrape config %s in the generated configuration", pool)
}

// managerCSV finds the CSV (not a copy) in ns whose install strategy has the manager's
// Deployment, and returns its name, the Deployment's index and its replicas.
func managerCSV(t *testing.T, c *Cluster, ns string) (string, int, int64) {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec struct {
				Install struct {
					Spec struct {
						Deployments []struct {
							Name string `json:"name"`
							Spec struct {
								Replicas *int64 `json:"replicas"`
							} `json:"spec"`
						} `json:"deployments"`
					} `json:"spec"`
				} `json:"install"`
			} `json:"spec"`
			Status struct {
				Reason string `json:"reason"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(c.Kubectl(t, "get", "clusterserviceversions.operators.coreos.com", "-n", ns, "-o", "json")), &list); err != nil {
		t.Fatal(err)
	}
	for _, csv := range list.Items {
		if csv.Status.Reason == "Copied" {
			continue
		}
		for i, d := range csv.Spec.Install.Spec.Deployments {
			if d.Name == managerDeployment {
				replicas := int64(1)
				if d.Spec.Replicas != nil && *d.Spec.Replicas > 0 {
					replicas = *d.Spec.Replicas
				}
				return csv.Metadata.Name, i, replicas
			}
		}
	}
	t.Fatalf("no CSV in %s installs Deployment %s", ns, managerDeployment)
	return "", 0, 0
}

// setCSVReplicas sets the manager Deployment's replicas in the CSV's install strategy;
// OLM then scales the Deployment.
func setCSVReplicas(t *testing.T, c *Cluster, ns, csv string, idx int, replicas int64) {
	t.Helper()
	patch := fmt.Sprintf(`[{"op":"replace","path":"/spec/install/spec/deployments/%d/spec/replicas","value":%d}]`, idx, replicas)
	c.Kubectl(t, "patch", "clusterserviceversions.operators.coreos.com", csv, "-n", ns, "--type=json", "-p", patch)
}

// waitPodReady waits for a pod to exist and be Ready.
func waitPodReady(t *testing.T, c *Cluster, ns, name string, timeout time.Duration) {
	t.Helper()
	c.WaitFor(t, timeout, "pod "+ns+"/"+name+" to be Ready", func() (bool, error) {
		pod := &corev1.Pod{}
		if err := c.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, pod); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		for _, cond := range pod.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}
