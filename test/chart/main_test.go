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

// Package chart checks the Helm chart in dist/chart, which cmd/helmchart generates
// from kustomize's output: that it is current, that `helm template` with the default
// values renders the objects `kustomize build config/default` does, that `helm lint
// --strict` is clean, that each value does what values.yaml says, and that what it
// renders is accepted by a real API server and grants the manager what it needs and
// no more.
package chart

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

var root = testenv.ProjectRoot()

const chartDir = "dist/chart"

func TestMain(m *testing.M) {
	code := m.Run()
	stopEnv()
	os.Exit(code)
}

// tool returns a binary that make test-olm builds into bin/ (or $ENV): the test fails,
// rather than skipping, without it.
func tool(t testing.TB, name, env string) string {
	t.Helper()
	bin := os.Getenv(env)
	if bin == "" {
		bin = filepath.Join(root, "bin", name)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s not found at %s: run `make %s` (make test-olm does): %v", name, bin, name, err)
	}
	return bin
}

// run runs a command in the repository root and returns its standard output; the
// error carries its standard error.
func run(name string, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// helmTemplate renders the chart with the given --set and --set-json arguments.
func helmTemplate(t testing.TB, args ...string) ([]*unstructured.Unstructured, error) {
	t.Helper()
	out, err := run(tool(t, "helm", "HELM"), append([]string{"template", "ec2-operator", chartDir, "--namespace", "some-release-namespace"}, args...)...)
	if err != nil {
		return nil, err
	}
	return decodeAll(out)
}

// mustRender is helmTemplate for arguments that must render.
func mustRender(t testing.TB, args ...string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := helmTemplate(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// kustomizeBuild renders a kustomization with the pinned kustomize.
func kustomizeBuild(t testing.TB, dir string) []*unstructured.Unstructured {
	t.Helper()
	out, err := run(tool(t, "kustomize", "KUSTOMIZE"), "build", dir)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeAll(out)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// decodeAll splits a multi-document YAML stream into objects, leaving out empty
// documents (a template whose condition is false).
func decodeAll(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(m) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: m})
		}
	}
	return objs, nil
}

// key names an object the way the comparisons report it.
func key(o *unstructured.Unstructured) string {
	return strings.TrimPrefix(o.GetNamespace()+"/", "/") + o.GetKind() + "/" + o.GetName()
}

// byKey indexes objects by key, failing on duplicates.
func byKey(t testing.TB, objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	t.Helper()
	m := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if _, dup := m[key(o)]; dup {
			t.Fatalf("%s rendered twice", key(o))
		}
		m[key(o)] = o
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
