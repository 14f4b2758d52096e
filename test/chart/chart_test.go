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

package chart

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ec2-operator/ec2-operator/internal/devtools"
)

// TestChartIsCurrent regenerates the chart from `kustomize build config/default` and
// fails when dist/chart differs: the chart is generated, never edited by hand.
func TestChartIsCurrent(t *testing.T) {
	version, err := devtools.MakeVar(root, "VERSION")
	if err != nil {
		t.Fatal(err)
	}
	install, err := run(tool(t, "kustomize", "KUSTOMIZE"), "build", "config/default")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "install.yaml"), install, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "chart")
	if _, err := run("go", "run", "./cmd/helmchart", "--install", filepath.Join(dir, "install.yaml"),
		"--version", version, "--out", out); err != nil {
		t.Fatal(err)
	}
	want, got := readTree(t, out), readTree(t, filepath.Join(root, chartDir))
	for _, name := range sortedKeys(want) {
		if got[name] != want[name] {
			t.Errorf("%s/%s is stale; run `make build-installer` and commit the result", chartDir, name)
		}
	}
	for _, name := range sortedKeys(got) {
		if _, ok := want[name]; !ok {
			t.Errorf("%s/%s is not generated; run `make build-installer`", chartDir, name)
		}
	}
}

// readTree returns the files under dir by relative path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// helmOnly are the only differences the chart makes with its default values, each
// for a reason values.yaml gives: Helm manages the objects, and the CRDs survive
// `helm uninstall`.
func undoHelmOnly(o *unstructured.Unstructured) {
	if labels := o.GetLabels(); labels["app.kubernetes.io/managed-by"] == "Helm" {
		labels["app.kubernetes.io/managed-by"] = "kustomize"
		o.SetLabels(labels)
	}
	if o.GetKind() == "CustomResourceDefinition" {
		annotations := o.GetAnnotations()
		if annotations["helm.sh/resource-policy"] == "keep" {
			delete(annotations, "helm.sh/resource-policy")
			o.SetAnnotations(annotations)
		}
	}
}

// TestDefaultValuesRenderKustomizeObjects proves there is one source of truth: the
// chart with its default values renders exactly the objects of `kustomize build
// config/default`, apart from helmOnly, whatever the release's namespace.
func TestDefaultValuesRenderKustomizeObjects(t *testing.T) {
	want := byKey(t, kustomizeBuild(t, "config/default"))
	var managedByKustomize int
	for _, o := range want {
		if o.GetLabels()["app.kubernetes.io/managed-by"] == "kustomize" {
			managedByKustomize++
		}
	}
	rendered := mustRender(t)
	var managedByHelm, kept int
	for _, o := range rendered {
		if o.GetLabels()["app.kubernetes.io/managed-by"] == "Helm" {
			managedByHelm++
		}
		if o.GetAnnotations()["helm.sh/resource-policy"] == "keep" {
			kept++
		}
		undoHelmOnly(o)
	}
	got := byKey(t, rendered)
	for _, k := range sortedKeys(want) {
		g, ok := got[k]
		if !ok {
			t.Errorf("helm template does not render %s", k)
			continue
		}
		if d := firstDifference(want[k].Object, g.Object, ""); d != "" {
			t.Errorf("%s differs from kustomize's: %s", k, d)
		}
	}
	for _, k := range sortedKeys(got) {
		if _, ok := want[k]; !ok {
			t.Errorf("helm template renders %s, which kustomize does not", k)
		}
	}
	if managedByHelm != managedByKustomize || kept != 3 {
		t.Errorf("%d objects are labelled managed by Helm and %d kept on uninstall, want the %d kustomize labels and the 3 CRDs",
			managedByHelm, kept, managedByKustomize)
	}
	t.Logf("helm template renders the %d objects of kustomize build config/default", len(want))
}

// firstDifference describes the first place where a and b differ, or returns "".
func firstDifference(a, b any, path string) string {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %v, want %v", path, b, a)
		}
		keys := map[string]bool{}
		for k := range a {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if d := firstDifference(a[k], bm[k], path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		bl, ok := b.([]any)
		if !ok || len(bl) != len(a) {
			return fmt.Sprintf("%s: %v, want %v", path, b, a)
		}
		for i := range a {
			if d := firstDifference(a[i], bl[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %v, want %v", path, b, a)
	}
	return ""
}

// TestHelmLint runs `helm lint --strict` with the default values and with each
// credentials mode: no error, no warning.
func TestHelmLint(t *testing.T) {
	for name, args := range map[string][]string{
		"defaults":    nil,
		"irsa":        {"--set", "credentials.mode=irsa", "--set", "credentials.irsa.roleARN=arn:aws:iam::123456789012:role/ec2-operator"},
		"podIdentity": {"--set", "credentials.mode=podIdentity"},
		"secret":      {"--set", "credentials.mode=secret", "--set", "credentials.secret.name=aws-keys"},
		"watching":    {"--set-json", `watchNamespaces=["team-a","team-b"]`},
	} {
		out, err := run(tool(t, "helm", "HELM"), append([]string{"lint", "--strict", chartDir}, args...)...)
		if err != nil {
			t.Errorf("%s: %v\n%s", name, err, out)
			continue
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "[WARNING]") || strings.Contains(line, "[ERROR]") || strings.Contains(line, "[INFO]") {
				t.Errorf("%s: helm lint: %s", name, line)
			}
		}
	}
}
