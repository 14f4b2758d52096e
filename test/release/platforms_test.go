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

package release

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// platformLabelPrefixes are the CSV label keys OLM and the console read as the
// platforms an operator runs on.
var platformLabelPrefixes = []string{"operatorframework.io/arch.", "operatorframework.io/os."}

// platformLabels keeps the platform labels of a CSV's labels.
func platformLabels(labels map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		for _, p := range platformLabelPrefixes {
			if strings.HasPrefix(k, p) {
				out[k] = v
			}
		}
	}
	return out
}

// builtPlatformLabels are the labels the operator image index calls for: one arch and
// one os label, "supported", per platform it holds.
func builtPlatformLabels(t *testing.T) map[string]string {
	t.Helper()
	idx, _, err := images.ReadLayout(layoutDir(t, "operator"))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, m := range manifest.Manifests {
		if m.Platform == nil || m.Platform.OS == "" || m.Platform.Architecture == "" {
			t.Fatalf("operator image manifest %s names no platform", m.Digest)
		}
		want["operatorframework.io/arch."+m.Platform.Architecture] = "supported"
		want["operatorframework.io/os."+m.Platform.OS] = "supported"
	}
	if len(want) < 2 {
		t.Fatalf("operator image index has no platform: %+v", manifest)
	}
	return want
}

// catalogCSVLabels returns the labels opm rendered into the catalog's olm.csv.metadata
// property of the named bundle.
func catalogCSVLabels(t *testing.T, bundleName string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(manifestsRoot, "catalog", "ec2-operator", "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var blob struct {
			Schema     string `json:"schema"`
			Name       string `json:"name"`
			Properties []struct {
				Type  string `json:"type"`
				Value struct {
					Labels map[string]string `json:"labels"`
				} `json:"value"`
			} `json:"properties"`
		}
		if err := yaml.Unmarshal(bytes.TrimPrefix(doc, []byte("---\n")), &blob); err != nil {
			t.Fatal(err)
		}
		if blob.Schema != "olm.bundle" || blob.Name != bundleName {
			continue
		}
		for _, p := range blob.Properties {
			if p.Type == "olm.csv.metadata" {
				return p.Value.Labels
			}
		}
		t.Fatalf("the catalog's bundle %s has no olm.csv.metadata property", bundleName)
	}
	t.Fatalf("the catalog has no bundle %s", bundleName)
	return nil
}

// The CSV offers the operator on exactly the platforms its image is built for: OLM and
// the console take a CSV without arch labels as amd64-only, and one that claims a
// platform the image lacks would install a pod that cannot start. Both the bundle and
// the catalog (what opm rendered from the bundle image) are checked, against the index
// make images built.
func TestCSVOffersExactlyThePlatformsTheOperatorImageIsBuiltFor(t *testing.T) {
	want := builtPlatformLabels(t)
	data, err := os.ReadFile(filepath.Join(manifestsRoot, "bundle", "manifests", "ec2-operator.clusterserviceversion.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var csv struct {
		Metadata struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(data, &csv); err != nil {
		t.Fatal(err)
	}
	sources := map[string]map[string]string{
		"bundle/ CSV":                      platformLabels(csv.Metadata.Labels),
		"catalog's olm.csv.metadata (opm)": platformLabels(catalogCSVLabels(t, csv.Metadata.Name)),
	}
	for name, got := range sources {
		if !maps.Equal(got, want) {
			t.Errorf("%s labels the platforms %v; the operator image holds %v (run make bundle catalog)",
				name, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
		}
	}
	if want["operatorframework.io/arch.arm64"] != "supported" {
		t.Errorf("the operator image is not built for arm64 (%v); the README says the image runs on linux/arm64", slices.Sorted(maps.Keys(want)))
	}
}
