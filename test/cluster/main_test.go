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
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

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

// importReleaseImages imports the images make images built, under their release names
// and by digest, as a user's node pulls them from quay.io; the catalog image is named
// by digest, as a CatalogSource must name it for OLM to pull it IfNotPresent.
func (c *Cluster) importReleaseImages() error {
	var dirs []string
	for _, img := range []string{"operator", "bundle", "catalog", "scorecard"} {
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

// clusterTool runs hack/cluster (built by make into bin/cluster-tool).
func (c *Cluster) clusterTool(args ...string) error {
	// Flags go before the command's arguments (the directories of import).
	cmd := exec.Command(filepath.Join(c.Root, "bin", "cluster-tool"), append([]string{args[0], "--root", c.Root}, args[1:]...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// TestCluster runs the suite in order on the one node: each step leaves the cluster
// as the next one expects it (OLM installed; an install removed before another).
func TestCluster(t *testing.T) {
	c := theCluster
	if !t.Run("OLM v0 runs as pods", func(t *testing.T) { installOLM(t, c) }) {
		t.FailNow()
	}
	var ownNS string
	if !t.Run("OwnNamespace install from the catalog image", func(t *testing.T) { ownNS = testOwnNamespaceInstall(t, c) }) {
		t.FailNow()
	}
	t.Run("monitoring as user-workload monitoring does it", func(t *testing.T) { testMonitoring(t, c, ownNS) })
	uninstall(t, c, ownNS)
	t.Run("AllNamespaces install", func(t *testing.T) { testAllNamespacesInstall(t, c) })
	t.Run("scorecard runs its test pods", func(t *testing.T) { testScorecard(t, c) })
	uninstall(t, c, allNamespacesNS)
	t.Run("upgrade with a live fleet", func(t *testing.T) { testUpgrade(t, c) })
	t.Run("OLM v1", func(t *testing.T) { testOLMv1(t, c) })
}
