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
	"bufio"
	"encoding/base64"
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/api/pkg/validation"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"
)

// TestBundlePassesTheOperatorFrameworkValidatorsWithoutErrorsOrWarnings runs the
// validators of `operator-sdk bundle validate --select-optional suite=operatorframework`.
// The deprecated-API check warns about RBAC for events.k8s.io/events unless the owned
// CRD declares Event v1 as a resource it creates (which is true of EC2Instance).
func TestBundlePassesTheOperatorFrameworkValidatorsWithoutErrorsOrWarnings(t *testing.T) {
	bundle := loadBundle(t)
	validators := validation.DefaultBundleValidators.WithValidators(
		validation.OperatorHubV2Validator,
		validation.StandardCapabilitiesValidator,
		validation.StandardCategoriesValidator,
		validation.GoodPracticesValidator,
		validation.AlphaDeprecatedAPIsValidator,
	)
	results := validators.Validate(bundle, map[string]string{"k8s-version": "1.37"})
	checked := 0
	for _, result := range results {
		for _, e := range result.Errors {
			t.Errorf("validation error: %s", e.Error())
		}
		for _, w := range result.Warnings {
			hint := ""
			if strings.Contains(w.Detail, "Migrate the API(s) for events") {
				hint = " (declare the Event version the manager creates on EC2Instance: " +
					"+operator-sdk:csv:customresourcedefinitions:resources={{Event,v1}}, then make bundle)"
			}
			t.Errorf("validation warning: %s%s", w.Error(), hint)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no validator ran")
	}
}

func TestCSVDescribesTheOperatorCompletely(t *testing.T) {
	csv := loadCSV(t)
	ann := csv.Annotations
	spec := csv.Spec

	if want := packageName + ".v" + makeVar(t, "VERSION"); csv.Name != want {
		t.Errorf("CSV name = %q, want %q (VERSION in the Makefile)", csv.Name, want)
	}
	if spec.Version.String() != makeVar(t, "VERSION") {
		t.Errorf("spec.version = %s, want %s", spec.Version.String(), makeVar(t, "VERSION"))
	}
	if spec.DisplayName != "EC2 Operator" {
		t.Errorf("displayName = %q", spec.DisplayName)
	}
	for _, want := range []string{"### Quick start", "kind: EC2Instance", "role ARN", "IAM policy"} {
		if !strings.Contains(spec.Description, want) {
			t.Errorf("description lacks %q", want)
		}
	}
	if len(spec.Icon) != 1 || spec.Icon[0].MediaType != "image/svg+xml" {
		t.Fatalf("want one SVG icon, got %+v", spec.Icon)
	}
	svg, err := base64.StdEncoding.DecodeString(spec.Icon[0].Data)
	if err != nil || !strings.HasPrefix(string(svg), "<svg") {
		t.Errorf("icon is not base64 SVG: %v", err)
	}
	if len(spec.Keywords) < 3 || len(spec.Maintainers) == 0 || spec.Provider.Name == "" || len(spec.Links) < 2 {
		t.Errorf("keywords, maintainers, provider or links missing: %v %v %v %v", spec.Keywords, spec.Maintainers, spec.Provider, spec.Links)
	}
	for _, l := range spec.Links {
		if !strings.HasPrefix(l.URL, "https://") {
			t.Errorf("link %q is not https: %s", l.Name, l.URL)
		}
	}
	if spec.Maturity != "alpha" {
		t.Errorf("maturity = %q, want alpha (channel alpha, API v1alpha1)", spec.Maturity)
	}
	if spec.MinKubeVersion == "" {
		t.Error("minKubeVersion is empty")
	}

	// Install modes: the manager watches one namespace, its own, or all of them
	// (WATCH_NAMESPACE from olm.targetNamespaces). MultiNamespace is not offered.
	wantModes := map[string]bool{"OwnNamespace": true, "SingleNamespace": true, "MultiNamespace": false, "AllNamespaces": true}
	for _, m := range spec.InstallModes {
		if want, ok := wantModes[string(m.Type)]; !ok || want != m.Supported {
			t.Errorf("install mode %s supported=%v, want %v", m.Type, m.Supported, want)
		}
		delete(wantModes, string(m.Type))
	}
	if len(wantModes) != 0 {
		t.Errorf("install modes missing: %v", wantModes)
	}

	wantAnn := map[string]string{
		// Level 2: test/cluster's upgrade with a live fleet (TestCluster/upgrade) proves
		// an OLM upgrade launches and terminates nothing and keeps every object Ready.
		"capabilities": "Seamless Upgrades",
		"categories":   "Cloud Provider",
		"repository":   "https://github.com/ec2-operator/ec2-operator",
		"operatorframework.io/suggested-namespace": installNS,
		// Honest feature flags: see the report in the CSV description and docs.
		// test/release's TestOperatorImageWorksDisconnected.
		"features.operators.openshift.io/disconnected": "true",
		// test/release's TestOperatorImageRunsInFIPSOnlyModeWithTheValidatedModule.
		"features.operators.openshift.io/fips-compliant": "true",
		"features.operators.openshift.io/proxy-aware":    "true",
		// test/e2e's TestOnOpenShiftTheMetricsServerFollowsTheClustersTLSSecurityProfile.
		"features.operators.openshift.io/tls-profiles":     "true",
		"features.operators.openshift.io/token-auth-aws":   "true",
		"features.operators.openshift.io/token-auth-azure": "false",
		"features.operators.openshift.io/token-auth-gcp":   "false",
		"features.operators.openshift.io/cnf":              "false",
		"features.operators.openshift.io/cni":              "false",
		"features.operators.openshift.io/csi":              "false",
	}
	for k, want := range wantAnn {
		if ann[k] != want {
			t.Errorf("annotation %s = %q, want %q", k, ann[k], want)
		}
	}
	features := 0
	for k := range ann {
		if strings.HasPrefix(k, "features.operators.openshift.io/") {
			features++
		}
	}
	if features != 10 {
		t.Errorf("want the ten features.operators.openshift.io annotations, found %d", features)
	}
	if ann["support"] == "" || ann["description"] == "" {
		t.Error("support or description annotation is empty")
	}
	if _, err := time.Parse(time.RFC3339, ann["createdAt"]); err != nil {
		t.Errorf("createdAt %q is not RFC 3339: %v", ann["createdAt"], err)
	}
	if want := makeVar(t, "BUNDLE_CREATED_AT"); ann["createdAt"] != want {
		t.Errorf("createdAt = %q, want BUNDLE_CREATED_AT %q (pinned for reproducible bundles)", ann["createdAt"], want)
	}

	related := map[string]string{}
	for _, ri := range spec.RelatedImages {
		related[ri.Name] = ri.Image
	}
	// One operator image, by digest (catalog reviews refuse tags), everywhere the CSV
	// names it. That the digest is the image built from these sources is checked by
	// make verify-bundle, which rebuilds the images.
	image := ann["containerImage"]
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(expandMake(t, makeVar(t, "IMAGE_TAG_BASE"))) + `@sha256:[0-9a-f]{64}$`).MatchString(image) {
		t.Errorf("containerImage %q is not %s@sha256:<digest>", image, expandMake(t, makeVar(t, "IMAGE_TAG_BASE")))
	}
	// The must-gather image, by digest, as oc adm must-gather --all-images reads it
	// from the CSV, and in relatedImages so that oc mirror copies it.
	mustGather := ann["operators.openshift.io/must-gather-image"]
	wantMustGather := expandMake(t, makeVar(t, "IMAGE_TAG_BASE")) + "-must-gather"
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(wantMustGather) + `@sha256:[0-9a-f]{64}$`).MatchString(mustGather) {
		t.Errorf("operators.openshift.io/must-gather-image %q is not %s@sha256:<digest>", mustGather, wantMustGather)
	}
	if related["manager"] != image || related["must-gather"] != mustGather || len(related) != 2 {
		t.Errorf("relatedImages %v, want only manager=%s and must-gather=%s", related, image, mustGather)
	}
	for _, d := range spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Image != image {
				t.Errorf("deployment %s container %s runs %s, want %s", d.Name, c.Name, c.Image, image)
			}
		}
	}
}

// requiredExampleFields are the spec fields an example of each kind must show: the
// required ones, and for an AWSAccount the namespaces that may use it, without which
// the example would allow none.
var requiredExampleFields = map[string][]string{
	"EC2Instance":    {"imageId", "instanceType"},
	"AWSAccount":     {"roleArn", "allowedNamespaces"},
	"EC2InstanceSet": {"replicas", "template"},
}

func TestALMExamplesAreOwnedKindsWithASpec(t *testing.T) {
	csv := loadCSV(t)
	var examples []map[string]any
	if err := json.Unmarshal([]byte(csv.Annotations["alm-examples"]), &examples); err != nil {
		t.Fatalf("alm-examples is not a JSON list: %v", err)
	}
	if len(examples) == 0 {
		t.Fatal("alm-examples is empty")
	}
	owned := map[string]bool{}
	for _, crd := range csv.Spec.CustomResourceDefinitions.Owned {
		owned[crd.Kind] = true
	}
	for _, ex := range examples {
		if !owned[ex["kind"].(string)] {
			t.Errorf("alm-example of kind %v is not an owned CRD", ex["kind"])
		}
		spec, _ := ex["spec"].(map[string]any)
		for _, field := range requiredExampleFields[ex["kind"].(string)] {
			if spec[field] == nil {
				t.Errorf("alm-example of kind %v lacks %s: %v", ex["kind"], field, spec)
			}
		}
	}
	// The API server accepting them is checked in TestALMExamplesAreAcceptedByTheAPIServer.
}

// TestEveryUserFacingFieldHasADescriptor walks the CRD's OpenAPI schema and wants a
// spec descriptor for every spec field and a status descriptor for every status field,
// so the console renders a form field and a details entry for each.
func TestEveryUserFacingFieldHasADescriptor(t *testing.T) {
	csv := loadCSV(t)
	owned := csv.Spec.CustomResourceDefinitions.Owned
	if len(owned) != 3 {
		t.Fatalf("want three owned CRDs (EC2Instance, AWSAccount, EC2InstanceSet), got %d", len(owned))
	}
	for _, desc := range owned {
		t.Run(desc.Kind, func(t *testing.T) { checkDescriptorsCoverTheCRD(t, desc) })
	}
}

// bundleCRDFile is the bundle's manifest of the CRD named <plural>.<group>.
func bundleCRDFile(name string) string {
	plural, group, _ := strings.Cut(name, ".")
	return "bundle/manifests/" + group + "_" + plural + ".yaml"
}

func checkDescriptorsCoverTheCRD(t *testing.T, desc operatorsv1alpha1.CRDDescription) {
	crd := loadCRD(t, bundleCRDFile(desc.Name))
	if desc.Name != crd.Name || desc.Kind != crd.Spec.Names.Kind || desc.DisplayName == "" || desc.Description == "" {
		t.Errorf("owned CRD description %s/%s lacks a display name or description", desc.Name, desc.Kind)
	}
	if len(desc.Resources) == 0 {
		t.Errorf("owned CRD %s lists no resources (scorecard olm-crds-have-resources); add +operator-sdk:csv:customresourcedefinitions:resources on its type", desc.Kind)
	}
	schema := crd.Spec.Versions[0].Schema.OpenAPIV3Schema

	specPaths := map[string]bool{}
	for _, d := range desc.SpecDescriptors {
		specPaths[d.Path] = true
		if d.DisplayName == "" || d.Description == "" {
			t.Errorf("spec descriptor %s lacks a display name or description", d.Path)
		}
	}
	statusPaths := map[string]bool{}
	for _, d := range desc.StatusDescriptors {
		statusPaths[d.Path] = true
		if d.DisplayName == "" || d.Description == "" {
			t.Errorf("status descriptor %s lacks a display name or description", d.Path)
		}
	}
	// observedGeneration is bookkeeping for controllers, not something a user reads.
	notUserFacing := map[string]bool{"observedGeneration": true}

	// A label selector is one widget; its matchLabels and matchExpressions have none.
	var widgets []string
	for _, d := range desc.SpecDescriptors {
		for _, xd := range d.XDescriptors {
			if strings.HasPrefix(xd, "urn:alm:descriptor:com.tectonic.ui:selector:") {
				widgets = append(widgets, d.Path+".")
			}
		}
	}
	insideWidget := func(p string) bool {
		for _, w := range widgets {
			if strings.HasPrefix(p, w) {
				return true
			}
		}
		return false
	}
	var missing []string
	for _, p := range fieldPaths(schema.Properties["spec"], "") {
		if !specPaths[p] && !insideWidget(p) {
			missing = append(missing, "spec."+p)
		}
	}
	for _, p := range fieldPaths(schema.Properties["status"], "") {
		if !statusPaths[p] && !notUserFacing[p] {
			missing = append(missing, "status."+p)
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no descriptor for %s: add a +operator-sdk:csv:customresourcedefinitions marker in api/v1alpha1 and run make bundle", m)
	}
	for p := range specPaths {
		if schemaAt(schema.Properties["spec"], p) == nil {
			t.Errorf("spec descriptor %s names no field of the CRD", p)
		}
	}
}

// fieldPaths lists the dotted paths of every field under s, descending into nested
// objects with properties (not into map values or list items).
func fieldPaths(s apiextensionsv1.JSONSchemaProps, prefix string) []string {
	var out []string
	for name, prop := range s.Properties {
		p := prefix + name
		out = append(out, p)
		if prop.Type == "object" && len(prop.Properties) > 0 {
			out = append(out, fieldPaths(prop, p+".")...)
		}
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func loadCRD(t *testing.T, rel string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(path(rel))
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		t.Fatalf("decoding %s: %v", rel, err)
	}
	return &crd
}

func TestBundleCRDsAreTheGeneratedCRDs(t *testing.T) {
	for _, name := range []string{"compute.ec2-operator.dev_ec2instances.yaml", "compute.ec2-operator.dev_awsaccounts.yaml"} {
		inBundle := loadCRD(t, "bundle/manifests/"+name)
		generated := loadCRD(t, "config/crd/bases/"+name)
		if !equality.Semantic.DeepEqual(inBundle.Spec, generated.Spec) {
			t.Errorf("the bundle's %s differs from config/crd/bases: run `make bundle`", name)
		}
	}
}

// TestBundleDockerfileLabelsMatchTheBundleAnnotations: the image labels are what a
// registry-based install reads; annotations.yaml is what opm reads from the directory.
func TestBundleDockerfileLabelsMatchTheBundleAnnotations(t *testing.T) {
	annotations := bundleAnnotations(t)
	f, err := os.Open(path("bundle.Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	labels := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "LABEL "); ok {
			k, v, _ := strings.Cut(rest, "=")
			labels[k] = v
		}
	}
	if !equality.Semantic.DeepEqual(labels, annotations) {
		t.Errorf("bundle.Dockerfile labels differ from bundle/metadata/annotations.yaml:\nlabels: %s\nannotations: %s",
			mustJSON(labels), mustJSON(annotations))
	}
	want := map[string]string{
		"operators.operatorframework.io.bundle.package.v1":         packageName,
		"operators.operatorframework.io.bundle.channels.v1":        makeVar(t, "CHANNELS"),
		"operators.operatorframework.io.bundle.channel.default.v1": makeVar(t, "DEFAULT_CHANNEL"),
		"operators.operatorframework.io.bundle.mediatype.v1":       "registry+v1",
		"operators.operatorframework.io.metrics.builder":           "operator-sdk-" + makeVar(t, "OPERATOR_SDK_VERSION"),
		"operators.operatorframework.io.test.config.v1":            "tests/scorecard/",
	}
	for k, v := range want {
		if annotations[k] != v {
			t.Errorf("bundle annotation %s = %q, want %q", k, annotations[k], v)
		}
	}
}

func TestScorecardConfigListsTheBuiltInBasicAndOLMTestsAndOurOwn(t *testing.T) {
	got := scorecardTests(t)
	want := []string{"basic-check-spec", "instance-ready", "olm-bundle-validation", "olm-crds-have-resources",
		"olm-crds-have-validation", "olm-spec-descriptors", "olm-status-descriptors"}
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("scorecard tests = %v, want %v", got, want)
	}
}

// scorecardTests lists the test names in bundle/tests/scorecard/config.yaml.
func scorecardTests(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(path("bundle/tests/scorecard/config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Stages []struct {
			Tests []struct {
				Entrypoint []string `json:"entrypoint"`
				Image      string   `json:"image"`
			} `json:"tests"`
		} `json:"stages"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, st := range cfg.Stages {
		for _, tc := range st.Tests {
			switch {
			case len(tc.Entrypoint) == 2 && tc.Entrypoint[0] == "scorecard-test":
				if !strings.HasSuffix(tc.Image, ":"+makeVar(t, "OPERATOR_SDK_VERSION")) {
					t.Errorf("scorecard image %s is not the operator-sdk version the Makefile builds", tc.Image)
				}
			case len(tc.Entrypoint) == 2 && tc.Entrypoint[0] == "ec2-operator-scorecard":
				// Our own test runs the image make images builds, pinned by digest.
				repo := expandMake(t, makeVar(t, "IMAGE_TAG_BASE")) + "-scorecard"
				if !regexp.MustCompile(`^` + regexp.QuoteMeta(repo) + `@sha256:[0-9a-f]{64}$`).MatchString(tc.Image) {
					t.Errorf("custom scorecard image %s is not %s@sha256:<digest>", tc.Image, repo)
				}
			default:
				t.Fatalf("unexpected scorecard entrypoint %v", tc.Entrypoint)
			}
			names = append(names, tc.Entrypoint[1])
		}
	}
	return names
}
