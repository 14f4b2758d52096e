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

package olm

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"
)

// TestCatalogServesTheBundleInTheDefaultChannel checks the file-based catalog's
// package, channel and bundle against the bundle and the Makefile. `make verify-olm`
// additionally runs `opm validate` and regenerates the catalog.
func TestCatalogServesTheBundleInTheDefaultChannel(t *testing.T) {
	data, err := os.ReadFile(path("catalog/" + packageName + "/catalog.yaml"))
	if err != nil {
		t.Fatalf("reading the catalog (run `make catalog`): %v", err)
	}
	csv := loadCSV(t)
	var pkg, channel, bundle map[string]any
	for _, o := range decodeAll(t, data) {
		switch o.Object["schema"] {
		case "olm.package":
			pkg = o.Object
		case "olm.channel":
			channel = o.Object
		case "olm.bundle":
			bundle = o.Object
		default:
			t.Errorf("unexpected catalog object with schema %v", o.Object["schema"])
		}
	}
	if pkg == nil || channel == nil || bundle == nil {
		t.Fatal("the catalog needs an olm.package, an olm.channel and an olm.bundle")
	}
	if pkg["name"] != packageName || pkg["defaultChannel"] != makeVar(t, "DEFAULT_CHANNEL") {
		t.Errorf("olm.package = %v/%v", pkg["name"], pkg["defaultChannel"])
	}
	if channel["package"] != packageName || channel["name"] != makeVar(t, "DEFAULT_CHANNEL") {
		t.Errorf("olm.channel = %v/%v", channel["package"], channel["name"])
	}
	entries, _ := channel["entries"].([]any)
	if len(entries) != 1 || entries[0].(map[string]any)["name"] != csv.Name {
		t.Errorf("channel entries = %v, want [%s]", entries, csv.Name)
	}
	if bundle["name"] != csv.Name || bundle["package"] != packageName {
		t.Errorf("olm.bundle = %v in %v, want %s", bundle["name"], bundle["package"], csv.Name)
	}
	bundleRepo := expandMake(t, makeVar(t, "IMAGE_TAG_BASE")) + "-bundle"
	if image, _ := bundle["image"].(string); !regexp.MustCompile(`^` + regexp.QuoteMeta(bundleRepo) + `@sha256:[0-9a-f]{64}$`).MatchString(image) {
		t.Errorf("olm.bundle image = %v, want %s@sha256:<digest of the image built from bundle/>", bundle["image"], bundleRepo)
	}
	version := ""
	metadata := 0
	for _, p := range bundle["properties"].([]any) {
		prop := p.(map[string]any)
		switch prop["type"] {
		case "olm.package":
			version, _ = prop["value"].(map[string]any)["version"].(string)
		case "olm.csv.metadata":
			metadata++
			checkCSVMetadataIsCurrent(t, prop["value"].(map[string]any))
		case "olm.bundle.object":
			t.Error("the catalog embeds bundle objects; render-catalog migrates them to olm.csv.metadata (run make catalog)")
		}
	}
	if metadata != 1 {
		t.Errorf("the catalog's bundle has %d olm.csv.metadata properties, want 1", metadata)
	}
	if version != csv.Spec.Version.String() {
		t.Errorf("olm.bundle version = %q, want the CSV's %s (stale catalog: run make catalog)", version, csv.Spec.Version.String())
	}
}

// checkCSVMetadataIsCurrent compares the CSV metadata the catalog carries (what the
// console shows before the install; OLM installs from the bundle image itself) with
// the CSV in bundle/manifests.
func checkCSVMetadataIsCurrent(t *testing.T, got map[string]any) {
	t.Helper()
	data, err := os.ReadFile(path(csvFile))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk map[string]any
	if err := yaml.Unmarshal(data, &onDisk); err != nil {
		t.Fatal(err)
	}
	spec := onDisk["spec"].(map[string]any)
	want := map[string]any{
		"annotations":     onDisk["metadata"].(map[string]any)["annotations"],
		"description":     spec["description"],
		"displayName":     spec["displayName"],
		"installModes":    spec["installModes"],
		"keywords":        spec["keywords"],
		"minKubeVersion":  spec["minKubeVersion"],
		"maturity":        spec["maturity"],
		"provider":        spec["provider"],
		"crdDescriptions": spec["customresourcedefinitions"],
	}
	for k, v := range want {
		if !equality.Semantic.DeepEqual(jsonRoundTrip(t, got[k]), jsonRoundTrip(t, v)) {
			t.Errorf("the catalog's CSV metadata %s differs from %s (run make catalog)", k, csvFile)
		}
	}
}

// jsonRoundTrip normalises a decoded YAML or JSON value for comparison.
func jsonRoundTrip(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCatalogSourceExampleAddsTheReleaseCatalogToOperatorHub: the CatalogSource users
// apply names the catalog image of this release, in the namespace whose catalogs the
// OpenShift console lists, with a restricted pod security context.
func TestCatalogSourceExampleAddsTheReleaseCatalogToOperatorHub(t *testing.T) {
	data, err := os.ReadFile(path("config/catalogsource.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cs operatorsv1alpha1.CatalogSource
	if err := yaml.UnmarshalStrict(data, &cs); err != nil {
		t.Fatal(err)
	}
	want := expandMake(t, makeVar(t, "IMAGE_TAG_BASE")) + "-catalog:v" + makeVar(t, "VERSION")
	if cs.Kind != "CatalogSource" || cs.Namespace != "openshift-marketplace" || cs.Spec.Image != want ||
		cs.Spec.SourceType != operatorsv1alpha1.SourceTypeGrpc {
		t.Errorf("CatalogSource %s/%s type %s image %s, want a grpc source in openshift-marketplace for %s",
			cs.Namespace, cs.Name, cs.Spec.SourceType, cs.Spec.Image, want)
	}
	if cs.Spec.GrpcPodConfig == nil || cs.Spec.GrpcPodConfig.SecurityContextConfig != operatorsv1alpha1.Restricted {
		t.Error("the catalog pod should run with the restricted security context (the image runs as non-root 65532)")
	}
}
