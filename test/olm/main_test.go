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

// Package olm checks the OLM bundle, the file-based catalog and the OpenShift
// monitoring manifests: bundle validation with operator-framework/api, the CSV's
// metadata and descriptors, the CSV's install strategy against config/, and the
// ServiceMonitor, PrometheusRule and alm-examples applied to a real API server with
// prometheus-operator's CRDs.
package olm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/devtools"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

const (
	packageName    = "ec2-operator"
	csvFile        = "bundle/manifests/ec2-operator.clusterserviceversion.yaml"
	installNS      = "ec2-operator-system"
	managerSA      = "ec2-operator-controller-manager"
	metricsService = "ec2-operator-controller-manager-metrics-service"
)

var root = testenv.ProjectRoot()

func TestMain(m *testing.M) {
	code := m.Run()
	stopEnv()
	os.Exit(code)
}

// path returns a path under the repository root.
func path(rel string) string { return filepath.Join(root, rel) }

// loadBundle loads ./bundle the way OLM's tools do.
func loadBundle(t *testing.T) *manifests.Bundle {
	t.Helper()
	b, err := manifests.GetBundleFromDir(path("bundle/manifests"))
	if err != nil {
		t.Fatalf("loading bundle/manifests (run `make bundle`): %v", err)
	}
	if b.CSV == nil {
		t.Fatal("bundle/manifests has no ClusterServiceVersion")
	}
	return b
}

// loadCSV decodes the CSV strictly.
func loadCSV(t *testing.T) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	data, err := os.ReadFile(path(csvFile))
	if err != nil {
		t.Fatalf("reading the CSV (run `make bundle`): %v", err)
	}
	var csv operatorsv1alpha1.ClusterServiceVersion
	if err := yaml.UnmarshalStrict(data, &csv); err != nil {
		t.Fatalf("decoding %s: %v", csvFile, err)
	}
	return &csv
}

// kustomize renders a kustomization directory with the project's pinned kustomize.
func kustomize(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	if !filepath.IsAbs(dir) {
		dir = path(dir)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kustomizeBin(t), "build", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kustomize build %s: %v\n%s", dir, err, stderr.String())
	}
	return decodeAll(t, stdout.Bytes())
}

// kustomizeBin is the kustomize that make test-olm installs (or $KUSTOMIZE).
func kustomizeBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("KUSTOMIZE")
	if bin == "" {
		bin = path("bin/kustomize")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("kustomize not found at %s: run `make kustomize` (make test-olm does): %v", bin, err)
	}
	return bin
}

// decodeAll splits a multi-document YAML stream into objects.
func decodeAll(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decoding YAML: %v", err)
		}
		if len(m) == 0 {
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
	return objs
}

// find returns the single object of kind (and name, when not empty).
func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	var found []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind && (name == "" || o.GetName() == name) {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one %s %q, found %d", kind, name, len(found))
	}
	return found[0]
}

// into converts an unstructured object (or any JSON-shaped value) into a typed one.
func into(t *testing.T, from any, to any) {
	t.Helper()
	data, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, to); err != nil {
		t.Fatalf("converting to %T: %v", to, err)
	}
}

// makeVar reads a `NAME ?= value` variable from the Makefile.
func makeVar(t *testing.T, name string) string {
	t.Helper()
	v, err := devtools.MakeVar(root, name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// expandMake expands $(VAR) references using the Makefile's ?= variables.
func expandMake(t *testing.T, s string) string {
	t.Helper()
	re := regexp.MustCompile(`\$\(([A-Z_]+)\)`)
	for i := 0; i < 10 && re.MatchString(s); i++ {
		s = re.ReplaceAllStringFunc(s, func(ref string) string {
			return makeVar(t, re.FindStringSubmatch(ref)[1])
		})
	}
	return s
}

func mustJSON(v any) string {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}
