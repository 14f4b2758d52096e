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
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// operatorCRDs are the CRDs the bundle and the chart install, which every install the
// suite tears down must remove before the next one (OLM v1 and Helm install only into
// CRDs they own).
var operatorCRDs = []string{
	"ec2instances.compute.ec2-operator.dev", "awsaccounts.compute.ec2-operator.dev", "ec2instancesets.compute.ec2-operator.dev",
}

// theCluster is the node the tests share; they run one after another (TestCluster).
var theCluster *Cluster

func TestMain(m *testing.M) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c, err := connect(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test/cluster:", err)
		os.Exit(1)
	}
	if err := c.importReleaseImages(); err != nil {
		fmt.Fprintln(os.Stderr, "test/cluster:", err)
		os.Exit(1)
	}
	theCluster = c
	code := m.Run()
	if exploring() && code == 0 {
		c.printHowToExplore()
	}
	_ = c.AWS.StopEmulators()
	_ = c.sqsServer.Close()
	os.Exit(code)
}

// imagesDir is where make images wrote the release images.
func (c *Cluster) imagesDir() string {
	if dir := os.Getenv("IMAGES_DIR"); dir != "" {
		return dir
	}
	return filepath.Join(c.Root, "bin", "images")
}

// manifestsDir holds the bundle/, catalog/ and dist/ that the images in imagesDir were
// built from: make images stages them pinned to the images it built (RELEASE_MANIFESTS),
// since between releases the committed ones name the last release's images.
func (c *Cluster) manifestsDir() string {
	if dir := os.Getenv("RELEASE_MANIFESTS"); dir != "" {
		return dir
	}
	return filepath.Join(c.Root, "bin", "stage")
}

// importReleaseImages imports the images make images built, under their release names
// and by digest, as a user's node pulls them from quay.io; the catalog image is named
// by digest, as a CatalogSource must name it for OLM to pull it IfNotPresent.
func (c *Cluster) importReleaseImages() error {
	var dirs []string
	for _, img := range []string{"operator", "bundle", "catalog", "scorecard", "must-gather"} {
		dirs = append(dirs, filepath.Join(c.imagesDir(), img))
	}
	if err := c.clusterTool(append([]string{"import"}, dirs...)...); err != nil {
		return err
	}
	ref, err := layoutByDigest(filepath.Join(c.imagesDir(), "catalog"))
	c.CatalogImage = ref
	return err
}

// layoutByDigest names the image in an OCI layout by its repository and digest.
func layoutByDigest(dir string) (string, error) {
	idx, ref, err := images.ReadLayout(dir)
	if err != nil {
		return "", err
	}
	digest, err := idx.Digest()
	if err != nil {
		return "", err
	}
	parsed, err := name.ParseReference(ref)
	if err != nil {
		return "", err
	}
	return parsed.Context().Name() + "@" + digest.String(), nil
}

// clusterTool runs cmd/devcluster (built by make into bin/cluster-tool).
func (c *Cluster) clusterTool(args ...string) error {
	// Flags go before the command's arguments (the directories of import).
	cmd := exec.Command(filepath.Join(c.Root, "bin", "cluster-tool"), append([]string{args[0], "--root", c.Root}, args[1:]...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// exploring is make cluster's mode: install OLM, the monitoring stack and the operator,
// then keep them and the emulators running for a person until Ctrl-C.
func exploring() bool { return os.Getenv("CLUSTER_EXPLORE") != "" }

// printHowToExplore says where things are and waits for Ctrl-C; the emulators live in
// this process, so they stop with it (the node stays up until make cluster-down).
func (c *Cluster) printHowToExplore() {
	fmt.Printf(`
The cluster is up with OLM, the monitoring stack and ec2-operator (OwnNamespace, from the
catalog image) in namespace ec2-operator-own; the EC2 emulator is at %s.

  export KUBECONFIG=%s
  alias kubectl=%s/bin/k8s/1.37.2-linux-amd64/kubectl
  kubectl -n ec2-operator-own get csv,pods
  kubectl -n ec2-operator-own logs deploy/ec2-operator-controller-manager
  kubectl -n ec2-operator-own apply -f config/samples/compute_v1alpha1_ec2instance.yaml
  kubectl -n ec2-operator-own get ec2 -w
  kubectl -n openshift-user-workload-monitoring port-forward pod/prometheus-user-workload-0 9090 &
  curl -s 'http://127.0.0.1:9090/api/v1/query?query=ec2_operator_instances'

Ctrl-C stops the emulators; make cluster-down stops the node.
`, c.EC2Endpoint, c.Kubeconfig, c.Root)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}

// TestCluster runs the suite in order on the one node: each step leaves the cluster
// as the next one expects it (OLM installed; an install removed before another). While
// the OwnNamespace install is scaled to zero for EC2OperatorDown's ten-minute for:,
// the upgrade and scorecard run in another namespace (two OwnNamespace installs do not
// conflict; an AllNamespaces install would, so it comes after).
func TestCluster(t *testing.T) {
	c := theCluster
	if !t.Run("OLM v0 runs as pods", func(t *testing.T) { installOLM(t, c) }) {
		t.FailNow()
	}
	var ownNS string
	if !t.Run("OwnNamespace install from the catalog image", func(t *testing.T) { ownNS = testOwnNamespaceInstall(t, c) }) {
		t.FailNow()
	}
	if !exploring() {
		t.Run("must-gather as oc adm must-gather runs it", func(t *testing.T) { testMustGather(t, c, ownNS) })
	}
	var alert *alertCheck
	t.Run("monitoring as user-workload monitoring does it", func(t *testing.T) { alert = testMonitoring(t, c, ownNS) })
	if exploring() {
		if alert != nil {
			alert.restore(t)
		}
		return
	}
	var upgradeNS string
	t.Run("upgrade with a live fleet", func(t *testing.T) { upgradeNS = testUpgrade(t, c) })
	if upgradeNS != "" {
		t.Run("scorecard runs its test pods", func(t *testing.T) { testScorecard(t, c, upgradeNS) })
	}
	if alert != nil {
		t.Run("EC2OperatorDown fires while the operator is scaled to zero, and resolves", alert.finish)
	}
	uninstall(t, c, ownNS)
	// Also when the upgrade failed half-way: an OwnNamespace install left running
	// would conflict with the AllNamespaces install that follows.
	uninstall(t, c, upgradeNamespace)
	t.Run("AllNamespaces install", func(t *testing.T) { testAllNamespacesInstall(t, c) })
	uninstall(t, c, allNamespacesNS)
	// OLM v0 leaves the CRDs and the bundle's cluster-scoped objects (ClusterRoles and
	// ClusterRoleBindings labelled olm.owner, the console samples and quick start)
	// behind on uninstall; OLM v1 installs only into objects it owns. This is what a
	// user moving from OLM v0 to v1 removes first (docs/olmv1.md).
	c.Kubectl(t, append(append([]string{"delete", "crd"}, operatorCRDs...), "--ignore-not-found", "--wait=true", "--timeout=120s")...)
	c.Kubectl(t, "delete", "clusterrole,clusterrolebinding", "-l", "olm.owner in (ec2-operator.v0.1.0,ec2-operator.v0.2.0)")
	c.deleteConsoleObjects(t)
	// Without OLM, between the two: helm installs into a cluster without the CRDs and
	// leaves none of its objects but the CRDs, which it deletes itself.
	t.Run("Helm install, watching one namespace", func(t *testing.T) { testHelmInstall(t, c) })
	t.Run("OLM v1", func(t *testing.T) { testOLMv1(t, c) })
}
