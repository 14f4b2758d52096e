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
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The OLM release the cluster runs, and the module its manifests come from.
const (
	olmModule   = "github.com/operator-framework/operator-lifecycle-manager"
	olmVersion  = "v0.40.0"
	packageName = "ec2-operator"
)

func init() {
	for _, add := range []func(*runtime.Scheme) error{operatorsv1alpha1.AddToScheme, operatorsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
}

// installOLM deploys OLM v0 from its release manifests as pods: the CRDs (from the
// chart: the quickstart's crds.yaml of v0.40.0 lacks OLMConfig and CatalogSource's
// grpcPodConfig), the olm, catalog and packageserver operators, and OLMConfig
// "cluster". Ready means packageserver's CSV succeeded, which needs the API server's
// front proxy (aggregated APIs) and OLM's own certificate rotation to work.
func installOLM(t *testing.T, c *Cluster) {
	dir := moduleDir(t, olmModule, olmVersion)
	crds, err := filepath.Glob(filepath.Join(dir, "deploy", "chart", "crds", "*.yaml"))
	if err != nil || len(crds) == 0 {
		t.Fatalf("OLM's CRDs in %s: %v", dir, err)
	}
	sort.Strings(crds)
	for _, crd := range crds {
		c.Apply(t, crd)
	}
	// The ServiceMonitor and PrometheusRule CRDs must exist before OLM installs a
	// bundle that ships those objects.
	prom := moduleDir(t, promOperatorModule, promOperatorVersion)
	for _, kind := range []string{"servicemonitors", "prometheusrules"} {
		c.Apply(t, filepath.Join(prom, "example", "prometheus-operator-crd", "monitoring.coreos.com_"+kind+".yaml"))
	}
	// So must the console's CRDs, for the bundle's ConsoleYAMLSamples and ConsoleQuickStart.
	installConsoleCRDs(t, c)
	c.Kubectl(t, "wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")
	manifest, err := os.ReadFile(filepath.Join(c.Root, "test", "cluster", "testdata", "olm", "olm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.ApplyYAML(t, strings.NewReplacer("OLM_IMAGE", c.Image(t, "localhost/cluster/olm:v0.40.0"),
		"OPM_IMAGE", c.Image(t, "localhost/cluster/opm:v1.61.0")).Replace(string(manifest)))
	c.ApplyYAML(t, "apiVersion: operators.coreos.com/v1\nkind: OLMConfig\nmetadata: {name: cluster}\n")
	for _, d := range []string{"olm-operator", "catalog-operator"} {
		c.Kubectl(t, "-n", "olm", "rollout", "status", "deployment/"+d, "--timeout=180s")
	}
	c.waitCSV(t, "olm", "packageserver", 4*time.Minute)
}

// waitCSV waits until the CSV succeeded, saying where it stopped if it did not.
func (c *Cluster) waitCSV(t testing.TB, ns, name string, timeout time.Duration) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	c.WaitFor(t, timeout, "CSV "+ns+"/"+name+" Succeeded", func() (bool, error) {
		if err := c.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, csv); err != nil {
			return false, err
		}
		if csv.Status.Phase != operatorsv1alpha1.CSVPhaseSucceeded {
			return false, fmt.Errorf("phase %s: %s: %s", csv.Status.Phase, csv.Status.Reason, csv.Status.Message)
		}
		return true, nil
	})
	return csv
}

// restrictedNamespace creates a namespace that enforces Pod Security "restricted", as
// OpenShift's operator namespaces and a careful platform team's do.
func (c *Cluster) restrictedNamespace(t testing.TB, name string) {
	t.Helper()
	c.namespace(t, name, "restricted")
}

// namespace creates a namespace enforcing a Pod Security level, unless it exists.
func (c *Cluster) namespace(t testing.TB, name, level string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": level, "pod-security.kubernetes.io/warn": level,
		"pod-security.kubernetes.io/audit": level,
	}}}
	if err := c.Client.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// subscribe installs the operator the way OperatorHub does: a CatalogSource of the
// catalog image (its registry pod in the operator's namespace, restricted), an
// OperatorGroup (targets: nil for AllNamespaces) and a Subscription to the alpha
// channel with automatic approval and the emulators in its config. It returns the CSV
// once it succeeded.
func (c *Cluster) subscribe(t testing.TB, ns string, targets []string, catalogImage string) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	ctx := context.Background()
	c.restrictedNamespace(t, ns)
	source := &operatorsv1alpha1.CatalogSource{
		ObjectMeta: metav1.ObjectMeta{Name: "ec2-operator-catalog", Namespace: ns},
		Spec: operatorsv1alpha1.CatalogSourceSpec{
			SourceType: operatorsv1alpha1.SourceTypeGrpc, Image: catalogImage, DisplayName: "ec2-operator", Publisher: "ec2-operator",
			GrpcPodConfig: &operatorsv1alpha1.GrpcPodConfig{SecurityContextConfig: operatorsv1alpha1.Restricted},
		},
	}
	group := &operatorsv1.OperatorGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "ec2-operator", Namespace: ns},
		Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: targets},
	}
	var env []corev1.EnvVar
	for k, v := range c.OperatorEnv() {
		env = append(env, corev1.EnvVar{Name: k, Value: v})
	}
	sort.Slice(env, func(i, j int) bool { return env[i].Name < env[j].Name })
	sub := &operatorsv1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Name: packageName, Namespace: ns},
		Spec: &operatorsv1alpha1.SubscriptionSpec{
			CatalogSource: source.Name, CatalogSourceNamespace: ns, Package: packageName, Channel: "alpha",
			InstallPlanApproval: operatorsv1alpha1.ApprovalAutomatic,
			Config:              &operatorsv1alpha1.SubscriptionConfig{Env: env},
		},
	}
	for _, obj := range []client.Object{source, group, sub} {
		if err := c.Client.Create(ctx, obj); err != nil {
			t.Fatalf("create %T: %v", obj, err)
		}
	}
	// OLM replaces the registry pod right after creating it: wait for any Ready one.
	c.WaitFor(t, 3*time.Minute, "a Ready registry pod of the CatalogSource", func() (bool, error) {
		pods := &corev1.PodList{}
		if err := c.Client.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{"olm.catalogSource": source.Name}); err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if podReady(&p) {
				return true, nil
			}
		}
		return false, fmt.Errorf("%d registry pods, none Ready", len(pods.Items))
	})
	var csvName string
	c.WaitFor(t, 4*time.Minute, "the Subscription's installed CSV", func() (bool, error) {
		got := &operatorsv1alpha1.Subscription{}
		if err := c.Client.Get(ctx, client.ObjectKeyFromObject(sub), got); err != nil {
			return false, err
		}
		csvName = got.Status.InstalledCSV
		return csvName != "", fmt.Errorf("state %q, conditions %v", got.Status.State, got.Status.Conditions)
	})
	return c.waitCSV(t, ns, csvName, 4*time.Minute)
}

// checkUnpackJobs proves the bundle was unpacked by a Job the kubelet ran to completion.
func (c *Cluster) checkUnpackJobs(t testing.TB, ns string) {
	t.Helper()
	jobs := &batchv1.JobList{}
	if err := c.Client.List(context.Background(), jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, j := range jobs.Items {
		if j.Status.Succeeded > 0 {
			done++
		}
	}
	if done == 0 {
		t.Errorf("no bundle unpack Job completed in %s (%d Jobs)", ns, len(jobs.Items))
	}
}

func podReady(p *corev1.Pod) bool {
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// uninstall removes an OLM v0 install as a user does: the namespace's EC2Instances
// first (while the operator still runs to terminate them: a finalizer with no operator
// would hold the namespace's deletion forever), then the Subscription and the CSV (OLM
// deletes the Deployment and the RBAC it generated). The CRDs stay, as in OLM v0.
func uninstall(t *testing.T, c *Cluster, ns string) {
	t.Helper()
	if ns == "" {
		return
	}
	ctx := context.Background()
	c.Kubectl(t, "-n", ns, "delete", "ec2instances", "--all", "--ignore-not-found", "--wait=true", "--timeout=300s")
	sub := &operatorsv1alpha1.Subscription{}
	if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: packageName}, sub); err == nil {
		csv := sub.Status.InstalledCSV
		_ = c.Client.Delete(ctx, sub)
		if csv != "" {
			_ = c.Client.Delete(ctx, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: csv}})
		}
	}
	c.Kubectl(t, "delete", "namespace", ns, "--ignore-not-found", "--wait=true", "--timeout=180s")
}
