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
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// testOLMv1 proves the operator installs with OLM v1 (catalogd + operator-controller
// v1.2.0 as pods): a ClusterCatalog from the project's catalog image, a
// ClusterExtension installed by a ServiceAccount holding only
// cmd/devcluster/olmv1/installer-rbac.yaml, the operator managing EC2Instances
// against the emulator, and that uninstalling (which deletes the CRDs) releases
// the instances instead of terminating them.
func testOLMv1(t *testing.T, c *Cluster) {
	ctx := context.Background()

	// The bundle ships a ServiceMonitor, a PrometheusRule, ConsoleYAMLSamples and a
	// ConsoleQuickStart: OLM v1 cannot install it without their CRDs
	// (prometheus-operator's and the console's, applied for the OLM v0 test).
	for _, nm := range []string{"servicemonitors.monitoring.coreos.com", "prometheusrules.monitoring.coreos.com",
		"consoleyamlsamples.console.openshift.io", "consolequickstarts.console.openshift.io"} {
		if err := c.Client.Get(ctx, client.ObjectKey{Name: nm}, &apiextensionsv1.CustomResourceDefinition{}); err != nil {
			t.Fatalf("CRD %s: %v (apply the monitoring and console CRDs before OLM v1 installs the bundle)", nm, err)
		}
	}

	// catalogd and operator-controller pull with containers/image from a registry,
	// never from containerd: serve the catalog and bundle images on the node.
	reg := startOLMv1Registry(t, c)
	catalogDigest := reg.push(t, filepath.Join(c.imagesDir(), "catalog"))
	if want := digestOf(c.CatalogImage); want != catalogDigest {
		t.Fatalf("bin/images/catalog is %s but the cluster's catalog image is %s: rebuild (make images) and re-import", catalogDigest, c.CatalogImage)
	}
	// The bundle the catalog names (quay.io/ec2-operator/ec2-operator-bundle@sha256:...).
	reg.push(t, filepath.Join(c.imagesDir(), "bundle"))

	start := time.Now()
	installOLMv1(t, c, reg)
	t.Logf("OLM v1 up in %s", time.Since(start).Round(time.Second))

	// The catalog, by digest; a digest never changes, so no polling.
	c.Apply(t, writeManifest(t, "clustercatalog", fmt.Sprintf(`apiVersion: olm.operatorframework.io/v1
kind: ClusterCatalog
metadata:
  name: %s
spec:
  source:
    type: Image
    image:
      ref: %s
`, olmv1CatalogName, c.CatalogImage)))
	waitCondition(t, c, 5*time.Minute, clusterCatalogGVK, olmv1CatalogName, "Serving")

	// The install namespace, the installer ServiceAccount and its minimal RBAC.
	c.Apply(t, filepath.Join(c.Root, "cmd/devcluster/olmv1/installer-rbac.yaml"))
	c.Apply(t, writeManifest(t, "clusterextension", fmt.Sprintf(`apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata:
  name: %s
spec:
  namespace: %s
  serviceAccount:
    name: %s
  source:
    sourceType: Catalog
    catalog:
      packageName: ec2-operator
      channels:
      - alpha
      selector:
        matchLabels:
          olm.operatorframework.io/metadata.name: %s
`, olmv1ExtensionName, olmv1InstallNS, olmv1InstallerSA, olmv1CatalogName)))
	waitCondition(t, c, 5*time.Minute, clusterExtensionGVK, olmv1ExtensionName, "Installed")
	t.Logf("installed through OLM v1 in %s", time.Since(start).Round(time.Second))
	c.checkConsoleObjects(t)

	// OLM v1 v1.2.0 has no way to set a bundle's env (no spec.config; later releases
	// add spec.config.inline, and deploymentConfig only after that), so the env the OLM
	// v0 tests give the Subscription's config.env goes onto the Deployment OLM v1 made.
	// operator-controller re-applies its manifests with a three-way patch whose
	// original is its own manifest, so env entries it does not manage survive its
	// reconciles (checked: a changed replica count is put back, added env stays).
	c.Kubectl(t, append([]string{"-n", olmv1InstallNS, "set", "env", "deployment/" + olmv1OperatorDeploy},
		envArgs(c.OperatorEnv())...)...)
	c.Kubectl(t, "-n", olmv1InstallNS, "rollout", "status", "deployment/"+olmv1OperatorDeploy, "--timeout=5m")
	c.Kubectl(t, "-n", olmv1InstallNS, "wait", "--for=condition=Available", "deployment/"+olmv1OperatorDeploy, "--timeout=2m")

	// Five running instances, each with deletionPolicy Delete: the policy that
	// would terminate them if the CRD deletion reached the operator as deletions.
	const fleetNS = "olmv1-fleet"
	c.Apply(t, writeManifest(t, "fleet", fleetManifest(fleetNS, 5)))
	var ids []string
	for i := 1; i <= 5; i++ {
		nm := fmt.Sprintf("olmv1-%d", i)
		c.Kubectl(t, "-n", fleetNS, "wait", "--for=condition=Ready", "ec2instances.compute.ec2-operator.dev/"+nm, "--timeout=3m")
		u, err := getUnstructured(t, c, ec2InstanceGVK, fleetNS, nm)
		if err != nil || u == nil {
			t.Fatalf("EC2Instance %s: %v", nm, err)
		}
		id, _, _ := unstructured.NestedString(u.Object, "status", "instanceId")
		if id == "" {
			t.Fatalf("EC2Instance %s is Ready without status.instanceId", nm)
		}
		ids = append(ids, id)
	}
	t.Logf("fleet running: %v", ids)
	assertRunning(t, c, ids)

	// Uninstall. OLM v1 v1.2.0 does not run a Helm uninstall: every object it
	// installed carries an ownerReference to the ClusterExtension, so deleting the
	// ClusterExtension lets the garbage collector delete them all AT ONCE: the CRDs
	// (and with them every EC2Instance), but also the operator's Deployment and its
	// ClusterRoles/Bindings. Checked against a real API server and garbage collector:
	// within 2 s the operator's RBAC is gone while the CRD is still Terminating.
	terminatesBefore := c.EC2Calls(t, "TerminateInstances")
	uninstalled := time.Now()
	c.Kubectl(t, "delete", "clusterextension", olmv1ExtensionName, "--wait=false")
	crds := operatorCRDs
	// The operator races the garbage collector: whatever it sees of the deletions
	// before its RBAC and pod are gone, the guard releases. What it did not get to
	// keeps its finalizer, and the CRD stays Terminating with no operator left to
	// release it; then the test does what docs/uninstall.md tells users to do, and
	// removes the finalizers by hand. Either way nothing may be terminated.
	if left := waitCRDsGoneOrOperator(t, c, crds, 90*time.Second); len(left) > 0 {
		held := c.Kubectl(t, "get", "ec2instances.compute.ec2-operator.dev", "-A", "--ignore-not-found",
			"-o", "custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,DELETING:.metadata.deletionTimestamp,FINALIZERS:.metadata.finalizers")
		t.Logf("CRDs %v still Terminating %s after the uninstall, the operator gone; the objects holding them:\n%s",
			left, time.Since(uninstalled).Round(time.Second), held)
		removeFinalizersByHand(t, c)
		if left := waitCRDsGone(t, c, crds, time.Minute); len(left) > 0 {
			t.Errorf("CRDs %v still there after the finalizers were removed", left)
		}
	}
	t.Logf("CRDs gone %s after deleting the ClusterExtension", time.Since(uninstalled).Round(time.Second))
	if got := c.EC2Calls(t, "TerminateInstances") - terminatesBefore; got != 0 {
		t.Errorf("uninstalling the operator called TerminateInstances %d times; the instances must be released, not terminated", got)
	}
	assertRunning(t, c, ids)

	// Leave the cluster as we found it (OLM v1 itself stays for later tests).
	c.Kubectl(t, "delete", "clustercatalog", olmv1CatalogName, "--ignore-not-found")
	c.Kubectl(t, "delete", "namespace", fleetNS, olmv1InstallNS, "--ignore-not-found", "--wait=false")
	c.Kubectl(t, "delete", "-f", filepath.Join(c.Root, "cmd/devcluster/olmv1/installer-rbac.yaml"), "--ignore-not-found", "--wait=false")
}

// waitCRDsGone polls until none of the CRDs exists, or timeout; it returns those left.
func waitCRDsGone(t *testing.T, c *Cluster, crds []string, timeout time.Duration) []string {
	t.Helper()
	return pollCRDsGone(t, c, crds, timeout, func() bool { return false })
}

// waitCRDsGoneOrOperator is waitCRDsGone that also stops once the operator's pods are
// gone: from then on nothing can release an object the operator left with its
// finalizer, so waiting out the timeout would only idle (it did, 90 s in every run).
func waitCRDsGoneOrOperator(t *testing.T, c *Cluster, crds []string, timeout time.Duration) []string {
	t.Helper()
	return pollCRDsGone(t, c, crds, timeout, func() bool {
		pods := &corev1.PodList{}
		err := c.Client.List(context.Background(), pods, client.InNamespace(olmv1InstallNS), managerPods)
		return err == nil && len(pods.Items) == 0
	})
}

// pollCRDsGone polls every two seconds until none of the CRDs exists, stop says to
// stop, or timeout; it returns the CRDs left. The CRDs are looked at once more after
// stop holds, since their deletion may have finished meanwhile.
func pollCRDsGone(t *testing.T, c *Cluster, crds []string, timeout time.Duration, stop func() bool) []string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		left, err := remainingCRDs(context.Background(), c, crds)
		if err == nil && len(left) == 0 {
			return nil
		}
		if stop() {
			if left, err = remainingCRDs(context.Background(), c, crds); err == nil {
				return left
			}
		}
		if time.Now().After(deadline) {
			return left
		}
		time.Sleep(2 * time.Second)
	}
}

// removeFinalizersByHand is docs/uninstall.md's way out when the operator is gone
// before it released its objects: remove its finalizers from every EC2Instance and
// AWSAccount left.
func removeFinalizersByHand(t *testing.T, c *Cluster) {
	t.Helper()
	for _, kind := range []string{"ec2instances.compute.ec2-operator.dev", "awsaccounts.compute.ec2-operator.dev"} {
		out, err := c.kubectl("", "get", kind, "-A", "--ignore-not-found", "-o", `jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\n"}{end}`)
		if err != nil {
			t.Logf("list %s: %v", kind, err)
			continue
		}
		for _, line := range strings.Fields(out) {
			ns, name, _ := strings.Cut(line, "/")
			args := []string{"patch", kind, name, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`}
			if ns != "" {
				args = append([]string{"-n", ns}, args...)
			}
			if _, err := c.kubectl("", args...); err != nil {
				t.Logf("remove the finalizers of %s %s: %v", kind, line, err)
			}
		}
	}
}

// remainingCRDs returns which of names still exist.
func remainingCRDs(ctx context.Context, c *Cluster, names []string) ([]string, error) {
	var left []string
	for _, nm := range names {
		err := c.Client.Get(ctx, client.ObjectKey{Name: nm}, &apiextensionsv1.CustomResourceDefinition{})
		switch {
		case err == nil:
			left = append(left, nm)
		case !apierrors.IsNotFound(err):
			return left, err
		}
	}
	return left, nil
}

// fleetManifest is a namespace and n EC2Instances against the emulator's seeded
// subnet, security group and SSM parameter.
func fleetManifest(ns string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: v1
kind: Namespace
metadata:
  name: %s
`, ns)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `---
apiVersion: compute.ec2-operator.dev/v1alpha1
kind: EC2Instance
metadata:
  name: olmv1-%d
  namespace: %s
spec:
  imageId: resolve:ssm:%s
  instanceType: t3.micro
  subnetId: %s
  securityGroupIds:
  - %s
  desiredState: running
  deletionPolicy: Delete
  tags:
    test: olmv1
`, i, ns, ec2sim.DefaultSSMParameter, ec2sim.DefaultSubnetIDs[0], ec2sim.WebSecurityGroupID)
	}
	return b.String()
}

// assertRunning checks through the emulator that every instance is running.
func assertRunning(t *testing.T, c *Cluster, ids []string) {
	t.Helper()
	out, err := c.EC2Client(t).DescribeInstances(context.Background(), &ec2.DescribeInstancesInput{InstanceIds: ids})
	if err != nil {
		t.Fatalf("DescribeInstances: %v", err)
	}
	state := map[string]ec2types.InstanceStateName{}
	for _, r := range out.Reservations {
		for _, in := range r.Instances {
			if in.State != nil {
				state[aws.ToString(in.InstanceId)] = in.State.Name
			}
		}
	}
	for _, id := range ids {
		if state[id] != ec2types.InstanceStateNameRunning {
			t.Errorf("instance %s is %q, want running", id, state[id])
		}
	}
}
