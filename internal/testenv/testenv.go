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

// Package testenv starts the test control plane (a real kube-apiserver and etcd, through
// controller-runtime's envtest) with the project's CRDs installed. Every test package
// that needs Kubernetes uses it, so they all find the binaries the same way.
package testenv

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// Environment is a running test control plane.
type Environment struct {
	*envtest.Environment
	// Config connects to the API server as a cluster administrator.
	Config *rest.Config
}

// Start starts kube-apiserver and etcd and installs the CRDs from config/crd/bases.
// The binaries come from KUBEBUILDER_ASSETS (what `make test` sets) or, when that is
// unset (a test run from an IDE), from the newest bin/k8s/<version> directory that
// `make setup-envtest` filled. It fails, rather than skipping, when there are none:
// a skipped API test proves nothing.
func Start() (*Environment, error) {
	if UnitTier() {
		return nil, errUnitTier
	}
	if err := computev1alpha1.AddToScheme(scheme.Scheme); err != nil {
		return nil, err
	}
	root := ProjectRoot()
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		dir, err := binaryAssetsDir(root)
		if err != nil {
			return nil, err
		}
		env.BinaryAssetsDirectory = dir
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting envtest (run `make setup-envtest` first?): %w", err)
	}
	return &Environment{Environment: env, Config: cfg}, nil
}

// errUnitTier stops a test that starts an API server in the unit tier, where none may
// run: such a test must call SkipInUnitTier first (or its package's TestMain must ask
// UnitTier), so that `make test-unit` stays fast and never depends on the envtest build.
var errUnitTier = errors.New("testenv.Start in the unit tier (go test -short, make test-unit): call testenv.SkipInUnitTier(t) first, or skip the package in TestMain with testenv.UnitTier()")

// UnitTier reports whether this run is the unit tier (`make test-unit`, go test -short),
// where tests that need a kube-apiserver are left to `make test`. It parses the test
// flags itself, so a TestMain may ask before m.Run; outside a test binary it is false.
func UnitTier() bool {
	// The sandbox (cmd/sandbox) starts the control plane from a program that is not a
	// test, where testing's flags do not exist.
	if !testing.Testing() {
		return false
	}
	if !flag.Parsed() {
		flag.Parse()
	}
	return testing.Short()
}

// SkipInUnitTier ends tb as skipped in the unit tier. Tests that start an API server
// call it first: make test-unit runs every other test of their package, and make test
// (which never passes -short) runs these too.
func SkipInUnitTier(tb testing.TB) {
	tb.Helper()
	if UnitTier() {
		tb.Skip("needs a kube-apiserver and etcd: make test runs it, make test-unit (go test -short) does not")
	}
}

// GroupVersion is the API group-version under test, for tests that build unstructured
// objects.
var GroupVersion schema.GroupVersion = computev1alpha1.GroupVersion

// ProjectRoot returns the repository's root directory: the nearest directory at or
// above the working directory that holds the module's CRDs (go test runs a test in its
// package's directory, a binary started by hand runs anywhere in the tree). It does not
// use this file's compiled-in path, which -trimpath (make's default, so that tests and
// release images share compiled packages) leaves relative.
func ProjectRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "config", "crd", "bases")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return wd
		}
	}
}

// binaryAssetsDir finds setup-envtest's store layout under bin/k8s.
func binaryAssetsDir(root string) (string, error) {
	base := filepath.Join(root, "bin", "k8s")
	entries, err := os.ReadDir(base)
	if err != nil {
		return "", fmt.Errorf("no envtest binaries in %s and KUBEBUILDER_ASSETS is unset: run `make setup-envtest`: %w", base, err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(base, e.Name(), "kube-apiserver")); err == nil {
				dirs = append(dirs, filepath.Join(base, e.Name()))
			}
		}
	}
	if len(dirs) == 0 {
		return "", fmt.Errorf("no envtest binaries in %s: run `make setup-envtest`", base)
	}
	sort.Strings(dirs)
	return dirs[len(dirs)-1], nil
}
