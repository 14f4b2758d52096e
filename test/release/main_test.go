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

// Package release tests the release artifacts that `make images` builds, as a user's
// cluster would meet them: the operator image's own filesystem runs the manager as the
// image's user, the scorecard image's test passes against it, the images survive a
// push to a registry and a pull by digest, and OLM's catalog operator resolves a
// Subscription from the catalog image served by its own entrypoint.
//
// The images come from bin/images (IMAGES_DIR) and the manifests they were built from
// from bin/stage (RELEASE_MANIFESTS), which `make test-release` builds first (make
// images); a test fails, rather than skips, when they are missing.
package release

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ec2-operator/ec2-operator/internal/localenv"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

var (
	// env is the control plane and EC2 emulator the images run against.
	env *localenv.Env
	// root is the repository root.
	root = testenv.ProjectRoot()
	// manifestsRoot holds the bundle/, catalog/ and dist/ that the images in
	// imagesDir were built from: the copy `make images` staged and pinned to them
	// (RELEASE_MANIFESTS), since between releases the committed ones name the last
	// release's images. At a release commit the two are the same.
	manifestsRoot = dirFromEnv("RELEASE_MANIFESTS", filepath.Join("bin", "stage"))
)

// dirFromEnv is the directory the environment variable names (make test-release sets
// it), relative to the repository root unless absolute, else def under the root.
func dirFromEnv(name, def string) string {
	dir := os.Getenv(name)
	switch {
	case dir == "":
		return filepath.Join(root, def)
	case filepath.IsAbs(dir):
		return dir
	}
	return filepath.Join(root, dir)
}

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	work, err := os.MkdirTemp("", "release-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	env, err = localenv.Start(localenv.Options{WorkDir: work})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	stopAll()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
	}
	os.RemoveAll(work)
	os.Exit(code)
}

// imagesDir is where `make images` wrote the OCI layouts.
func imagesDir() string { return dirFromEnv("IMAGES_DIR", filepath.Join("bin", "images")) }

// layoutDir is the OCI layout of one release image; the test fails when it is missing.
func layoutDir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(imagesDir(), name)
	if _, err := os.Stat(filepath.Join(dir, "index.json")); err != nil {
		t.Fatalf("no %s image in %s: run `make images` (make test-release does): %v", name, imagesDir(), err)
	}
	return dir
}
