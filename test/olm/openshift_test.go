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
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// openshiftKubernetes is the Kubernetes minor version each OpenShift minor version
// ships (OpenShift release notes, "About this release").
var openshiftKubernetes = map[string]string{
	"4.14": "1.27", "4.15": "1.28", "4.16": "1.29", "4.17": "1.30",
	"4.18": "1.31", "4.19": "1.32", "4.20": "1.33", "4.21": "1.34",
}

// bundleAnnotations reads bundle/metadata/annotations.yaml.
func bundleAnnotations(t *testing.T) map[string]string {
	t.Helper()
	var meta struct {
		Annotations map[string]string `json:"annotations"`
	}
	data, err := os.ReadFile(path("bundle/metadata/annotations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, &meta); err != nil {
		t.Fatal(err)
	}
	return meta.Annotations
}

// TestTheBundleIsListedForTheOpenShiftVersionsItsMinKubeVersionAllows checks
// com.redhat.openshift.versions, which decides the OpenShift catalogs that list the
// bundle ("v4.17": 4.17 and later; "=v4.17": only 4.17; "v4.17-v4.19": a range; Red
// Hat's certified operator guide, "Managing OpenShift Versions"). Its lowest version
// must ship the Kubernetes of the CSV's minKubeVersion: lower and OLM refuses the
// install on the oldest listed OpenShift, higher and users who could run it do not see it.
func TestTheBundleIsListedForTheOpenShiftVersionsItsMinKubeVersionAllows(t *testing.T) {
	versions := bundleAnnotations(t)["com.redhat.openshift.versions"]
	if versions != makeVar(t, "OPENSHIFT_VERSIONS") {
		t.Fatalf("bundle annotation com.redhat.openshift.versions = %q, want OPENSHIFT_VERSIONS %q (run make bundle)",
			versions, makeVar(t, "OPENSHIFT_VERSIONS"))
	}
	m := regexp.MustCompile(`^=?v(4\.\d+)(?:-v(4\.\d+))?$`).FindStringSubmatch(versions)
	if m == nil {
		t.Fatalf("com.redhat.openshift.versions %q is not v4.N, =v4.N or v4.N-v4.M", versions)
	}
	lowest := m[1]
	kube, ok := openshiftKubernetes[lowest]
	if !ok {
		t.Fatalf("OpenShift %s is not in the table of the Kubernetes versions OpenShift ships; add it", lowest)
	}
	minKube := loadCSV(t).Spec.MinKubeVersion
	parts := strings.Split(minKube, ".")
	if len(parts) < 2 || parts[0]+"."+parts[1] != kube {
		t.Errorf("minKubeVersion %s, but the oldest OpenShift listed (%s) ships Kubernetes %s", minKube, lowest, kube)
	}
	if m[2] != "" {
		if minor(m[2]) < minor(lowest) {
			t.Errorf("range %s ends before it starts", versions)
		}
	}
}

func minor(v string) int {
	_, n, _ := strings.Cut(v, ".")
	i, _ := strconv.Atoi(n)
	return i
}

// TestOpenShiftCatalogAnnotationsAreSetHonestly checks the CSV annotations OpenShift's
// console and catalogs read, each set (or deliberately left out) for a reason.
func TestOpenShiftCatalogAnnotationsAreSetHonestly(t *testing.T) {
	ann := loadCSV(t).Annotations
	// The console offers the suggested namespace in the install form.
	if ann["operatorframework.io/suggested-namespace"] != installNS {
		t.Errorf("suggested-namespace = %q, want %s", ann["operatorframework.io/suggested-namespace"], installNS)
	}
	// Deleting EC2Instances terminates real instances (deletionPolicy Delete is the
	// default), so the console's uninstall dialog must not offer to delete every
	// operand with the operator: an uninstall should never take a fleet down with it.
	if ann["console.openshift.io/disable-operand-delete"] != "true" {
		t.Errorf("console.openshift.io/disable-operand-delete = %q, want \"true\"", ann["console.openshift.io/disable-operand-delete"])
	}
	// initialization-resource makes the console ask for a resource right after the
	// install, for operators that need one to work. This one needs none, and every
	// EC2Instance launches a billed instance: the console must not push one.
	if v, ok := ann["operatorframework.io/initialization-resource"]; ok {
		t.Errorf("initialization-resource is set (%s), but the operator needs no resource to work", v)
	}
	// valid-subscription names the paid subscriptions an operator requires. This one
	// requires none, and an empty or invented value would mislead the console's filter.
	if v, ok := ann["operators.openshift.io/valid-subscription"]; ok {
		t.Errorf("valid-subscription is set (%s), but no subscription is required", v)
	}
}

// TestEveryDescriptorFitsItsFieldsType walks every spec and status descriptor and
// checks its x-descriptors against the type of the field in the CRD's schema: the
// console renders a widget per x-descriptor (OpenShift console, "x-descriptors"
// reference in the operator-sdk docs), and one that does not fit the type renders a
// broken form, such as the text box for a list of security groups.
func TestEveryDescriptorFitsItsFieldsType(t *testing.T) {
	for _, desc := range loadCSV(t).Spec.CustomResourceDefinitions.Owned {
		t.Run(desc.Kind, func(t *testing.T) { checkDescriptorTypes(t, desc) })
	}
}

func checkDescriptorTypes(t *testing.T, desc operatorsv1alpha1.CRDDescription) {
	crd := loadCRD(t, bundleCRDFile(desc.Name))
	schema := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	scalar := func(s *apiextensionsv1.JSONSchemaProps) bool {
		switch s.Type {
		case "string", "integer", "number", "boolean":
			return true
		}
		return false
	}
	check := func(kind, p string, xds []string) {
		field := schemaAt(schema.Properties[kind], p)
		if field == nil {
			t.Errorf("%s descriptor %s names no field", kind, p)
			return
		}
		for _, xd := range xds {
			var ok bool
			switch {
			case xd == "urn:alm:descriptor:com.tectonic.ui:advanced", xd == "urn:alm:descriptor:com.tectonic.ui:hidden":
				ok = true // placement only, any type
			case kind == "spec" && xd == "urn:alm:descriptor:com.tectonic.ui:text":
				ok = field.Type == "string"
			case kind == "spec" && xd == "urn:alm:descriptor:com.tectonic.ui:number":
				ok = field.Type == "integer" || field.Type == "number"
			case kind == "spec" && (xd == "urn:alm:descriptor:com.tectonic.ui:booleanSwitch" || xd == "urn:alm:descriptor:com.tectonic.ui:checkbox"):
				ok = field.Type == "boolean"
			case kind == "spec" && strings.HasPrefix(xd, "urn:alm:descriptor:com.tectonic.ui:select:"):
				value := strings.TrimPrefix(xd, "urn:alm:descriptor:com.tectonic.ui:select:")
				ok = field.Type == "string" && enumHas(field, value)
			case kind == "status" && xd == "urn:alm:descriptor:text":
				ok = scalar(field)
			case kind == "status" && xd == "urn:alm:descriptor:timestamp":
				ok = field.Type == "string" && field.Format == "date-time"
			case kind == "status" && xd == "urn:alm:descriptor:io.kubernetes.conditions":
				ok = field.Type == "array"
			case xd == "urn:alm:descriptor:com.tectonic.ui:podCount":
				// The console's count control (a number with + and -), for a replica count.
				ok = field.Type == "integer"
			case kind == "spec" && strings.HasPrefix(xd, "urn:alm:descriptor:io.kubernetes:"):
				// A picker of objects of a kind in the object's namespace (or cluster
				// scoped); the field holds the chosen one's name. The kind must be one
				// the console can list: a core kind by name, or group:version:Kind.
				pickerKind := strings.TrimPrefix(xd, "urn:alm:descriptor:io.kubernetes:")
				ok = field.Type == "string" && (pickerKind == "Secret" || pickerKind == "ConfigMap" ||
					pickerKind == "compute.ec2-operator.dev:v1alpha1:AWSAccount")
			case kind == "spec" && strings.HasPrefix(xd, "urn:alm:descriptor:com.tectonic.ui:selector:"):
				// A label selector editor over objects of a kind.
				ok = field.Type == "object" && field.Properties["matchLabels"].Type == "object"
			default:
				t.Errorf("%s descriptor %s uses %s, which this test does not know: add the rule for its type", kind, p, xd)
				continue
			}
			if !ok {
				t.Errorf("%s descriptor %s: %s does not fit a field of type %s (format %q)", kind, p, xd, field.Type, field.Format)
			}
		}
	}
	for _, d := range desc.SpecDescriptors {
		check("spec", d.Path, d.XDescriptors)
	}
	for _, d := range desc.StatusDescriptors {
		check("status", d.Path, d.XDescriptors)
	}
}

// The names of the Secret and ConfigMap that user data comes from are picked from the
// namespace's Secrets and ConfigMaps in the console's form, not typed: a picker shows
// what exists and cannot misspell it. Every field that names a Secret or a ConfigMap
// (a path ending in secretKeyRef.name or configMapKeyRef.name) has its picker, and no
// other field has one.
func TestSecretAndConfigMapNamesArePickedNotTyped(t *testing.T) {
	pickers := map[string]string{"secretKeyRef.name": "Secret", "configMapKeyRef.name": "ConfigMap"}
	found := 0
	for _, desc := range loadCSV(t).Spec.CustomResourceDefinitions.Owned {
		for _, d := range desc.SpecDescriptors {
			want := ""
			for suffix, kind := range pickers {
				if strings.HasSuffix(d.Path, suffix) {
					want = "urn:alm:descriptor:io.kubernetes:" + kind
				}
			}
			for _, xd := range d.XDescriptors {
				isPicker := xd == "urn:alm:descriptor:io.kubernetes:Secret" || xd == "urn:alm:descriptor:io.kubernetes:ConfigMap"
				if isPicker && xd != want {
					t.Errorf("%s spec descriptor %s has the picker %s; it names no such object", desc.Kind, d.Path, xd)
				}
			}
			if want == "" {
				continue
			}
			found++
			if !contains(d.XDescriptors, want) {
				t.Errorf("%s spec descriptor %s has %v; want the picker %s", desc.Kind, d.Path, d.XDescriptors, want)
			}
			if contains(d.XDescriptors, "urn:alm:descriptor:com.tectonic.ui:text") {
				t.Errorf("%s spec descriptor %s is still a text field too", desc.Kind, d.Path)
			}
		}
	}
	if found != 4 {
		t.Errorf("%d descriptors name a Secret or ConfigMap, want 4 (userDataFrom's secretKeyRef.name and configMapKeyRef.name, in an EC2Instance and in an EC2InstanceSet's template)", found)
	}
}

// schemaAt returns the schema of the dotted path p under s, or nil. A segment
// "name[0]" is a field of the items of the list name, as OLM writes descriptors of
// list items (operator-sdk generates them for fields of list elements, and the console
// renders one form group per element).
func schemaAt(s apiextensionsv1.JSONSchemaProps, p string) *apiextensionsv1.JSONSchemaProps {
	cur := &s
	for _, name := range strings.Split(p, ".") {
		list, isItem := strings.CutSuffix(name, "[0]")
		next, ok := cur.Properties[list]
		if !ok {
			return nil
		}
		if isItem {
			if next.Type != "array" || next.Items == nil || next.Items.Schema == nil {
				return nil
			}
			next = *next.Items.Schema
		}
		cur = &next
	}
	return cur
}

func enumHas(s *apiextensionsv1.JSONSchemaProps, value string) bool {
	for _, e := range s.Enum {
		if strings.Trim(string(e.Raw), `"`) == value {
			return true
		}
	}
	return false
}

// TestTheOldestSupportedKubernetesIsTheOneTested ties the CSV's minKubeVersion to the
// kube-apiserver that `make test-min-kube` runs the API tests against.
func TestTheOldestSupportedKubernetesIsTheOneTested(t *testing.T) {
	minKube := loadCSV(t).Spec.MinKubeVersion
	tested := makeVar(t, "ENVTEST_MIN_K8S_VERSION")
	cut := func(v string) string {
		parts := strings.SplitN(v, ".", 3)
		if len(parts) < 2 {
			return v
		}
		return parts[0] + "." + parts[1]
	}
	if cut(minKube) != cut(tested) {
		t.Errorf("minKubeVersion %s, but the API tests run against Kubernetes %s (ENVTEST_MIN_K8S_VERSION)", minKube, tested)
	}
}
