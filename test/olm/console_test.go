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
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// yamlSample is the part of a console.openshift.io/v1 ConsoleYAMLSample the checks read.
type yamlSample struct {
	Metadata struct{ Name string } `json:"metadata"`
	Spec     struct {
		TargetResource struct{ APIVersion, Kind string } `json:"targetResource"`
		Title          string                            `json:"title"`
		YAML           string                            `json:"yaml"`
	} `json:"spec"`
}

// consoleObjects returns the bundle's console objects of one kind.
func consoleObjects(t *testing.T, kind string) []*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(path("bundle/manifests/*_console.openshift.io_v1_" + strings.ToLower(kind) + ".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, decodeAll(t, data)...)
	}
	return objs
}

func yamlSamples(t *testing.T) map[string]yamlSample {
	t.Helper()
	samples := map[string]yamlSample{}
	for _, o := range consoleObjects(t, "ConsoleYAMLSample") {
		var s yamlSample
		into(t, o.Object, &s)
		samples[s.Metadata.Name] = s
	}
	return samples
}

// TestConsoleYAMLSamplesCoverTheCommonCases checks the samples the console offers on
// the create page: one per common case, each a strictly valid object of the kind it is
// offered for, showing the feature its title names.
func TestConsoleYAMLSamplesCoverTheCommonCases(t *testing.T) {
	owned := map[string]bool{}
	for _, crd := range loadCSV(t).Spec.CustomResourceDefinitions.Owned {
		owned[crd.Kind+"."+crd.Version] = true
	}
	cases := map[string]func(s v1alpha1.EC2InstanceSpec) bool{
		"ec2-operator-basic":       func(s v1alpha1.EC2InstanceSpec) bool { return s.ImageID != "" && s.Spot == nil },
		"ec2-operator-spot":        func(s v1alpha1.EC2InstanceSpec) bool { return s.Spot != nil },
		"ec2-operator-hibernating": func(s v1alpha1.EC2InstanceSpec) bool { return s.Hibernation != nil && *s.Hibernation },
		"ec2-operator-volume-and-eip": func(s v1alpha1.EC2InstanceSpec) bool {
			return len(s.Volumes) > 0 && s.ElasticIP != nil
		},
		"ec2-operator-other-account": func(s v1alpha1.EC2InstanceSpec) bool { return s.AccountRef != nil },
	}
	samples := yamlSamples(t)
	for name, shows := range cases {
		s, ok := samples[name]
		if !ok {
			t.Errorf("no ConsoleYAMLSample %s in bundle/manifests (config/console)", name)
			continue
		}
		var obj v1alpha1.EC2Instance
		if err := yaml.UnmarshalStrict([]byte(s.Spec.YAML), &obj); err != nil {
			t.Errorf("%s: spec.yaml is not a strictly valid EC2Instance: %v", name, err)
			continue
		}
		if !shows(obj.Spec) {
			t.Errorf("%s (%q) does not show what its name says: %+v", name, s.Spec.Title, obj.Spec)
		}
	}
	if s, ok := samples["ec2-operator-instance-set"]; !ok {
		t.Error("no ConsoleYAMLSample ec2-operator-instance-set for EC2InstanceSet")
	} else if err := yaml.UnmarshalStrict([]byte(s.Spec.YAML), &v1alpha1.EC2InstanceSet{}); err != nil {
		t.Errorf("ec2-operator-instance-set: spec.yaml is not a strictly valid EC2InstanceSet: %v", err)
	}
	if _, ok := samples["ec2-operator-awsaccount"]; !ok {
		t.Error("no ConsoleYAMLSample ec2-operator-awsaccount for the AWSAccount an other-account instance names")
	}
	for name, s := range samples {
		target := s.Spec.TargetResource
		if target.APIVersion != v1alpha1.GroupVersion.String() || !owned[target.Kind+"."+v1alpha1.GroupVersion.Version] {
			t.Errorf("%s targets %s %s, which the CSV does not own", name, target.APIVersion, target.Kind)
		}
		var head struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal([]byte(s.Spec.YAML), &head); err != nil || head.APIVersion != target.APIVersion || head.Kind != target.Kind {
			t.Errorf("%s: spec.yaml is a %s %s, but the sample is offered for %s %s (%v)", name, head.APIVersion, head.Kind, target.APIVersion, target.Kind, err)
		}
	}
}

// TestConsoleQuickStartWalksThroughABundledSample checks the quick start refers to what
// the bundle really ships: the sample it tells the user to try, the object name that
// sample creates, and access reviews of resources the CSV owns.
func TestConsoleQuickStartWalksThroughABundledSample(t *testing.T) {
	qs := find(t, consoleObjects(t, "ConsoleQuickStart"), "ConsoleQuickStart", "ec2-operator-first-instance")
	var spec struct {
		DisplayName string `json:"displayName"`
		Tasks       []struct {
			Title, Description string
		} `json:"tasks"`
		AccessReviewResources []struct{ Group, Resource, Verb string } `json:"accessReviewResources"`
	}
	into(t, qs.Object["spec"], &spec)
	if spec.DisplayName != "Launch your first EC2 instance" {
		t.Errorf("displayName %q", spec.DisplayName)
	}
	basic := yamlSamples(t)["ec2-operator-basic"]
	var obj v1alpha1.EC2Instance
	if err := yaml.Unmarshal([]byte(basic.Spec.YAML), &obj); err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, task := range spec.Tasks {
		steps = append(steps, task.Description)
	}
	text := strings.Join(steps, "\n")
	for _, want := range []string{"**" + basic.Spec.Title + "**", "**" + obj.Name + "**", "`spec.desiredState`"} {
		if !strings.Contains(text, want) {
			t.Errorf("the quick start's tasks do not mention %s (the basic sample's title and object name)", want)
		}
	}
	if len(spec.AccessReviewResources) == 0 {
		t.Error("the quick start has no access reviews: it would be offered to users who cannot create EC2Instances")
	}
	for _, r := range spec.AccessReviewResources {
		if r.Group != v1alpha1.GroupVersion.Group || r.Resource != "ec2instances" || !slices.Contains([]string{"create", "delete"}, r.Verb) {
			t.Errorf("access review %+v is not one the quick start's steps need", r)
		}
	}
}

// TestConsoleObjectsAreAcceptedByTheirAPIServers creates every console object with a
// server-side dry run against the console's own CRDs, and every sample's YAML against
// the project's CRDs (OpenAPI and CEL rules), with strict field validation.
func TestConsoleObjectsAreAcceptedByTheirAPIServers(t *testing.T) {
	c, err := client.New(apiServer(t), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	objs := append(consoleObjects(t, "ConsoleYAMLSample"), consoleObjects(t, "ConsoleQuickStart")...)
	if len(objs) < 8 {
		t.Fatalf("found %d console objects in bundle/manifests, want the seven samples and the quick start", len(objs))
	}
	for _, o := range objs {
		if err := c.Create(ctx, o, client.DryRunAll, client.FieldValidation("Strict")); err != nil {
			t.Errorf("%s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	for name, s := range yamlSamples(t) {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(s.Spec.YAML), &obj.Object); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if kind := s.Spec.TargetResource.Kind; kind == "EC2Instance" || kind == "EC2InstanceSet" {
			obj.SetNamespace("default") // the namespaced kinds
		}
		if err := c.Create(ctx, obj, client.DryRunAll, client.FieldValidation("Strict")); err != nil {
			t.Errorf("sample %s: the API server refuses its YAML: %v", name, err)
		}
	}
}
