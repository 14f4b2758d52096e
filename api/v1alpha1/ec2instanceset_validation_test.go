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

package v1alpha1_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// validSet returns the smallest set the API accepts.
func validSet(name string) *v1alpha1.EC2InstanceSet {
	return &v1alpha1.EC2InstanceSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: v1alpha1.EC2InstanceSetSpec{
			Replicas: ptr.To[int32](3),
			Template: v1alpha1.EC2InstanceTemplate{Spec: validInstance("unused").Spec},
		},
	}
}

func TestCreateRejectsInvalidSets(t *testing.T) {
	testCases := []struct {
		name      string
		mutate    func(*v1alpha1.EC2InstanceSet)
		wantField string
		wantText  string
	}{
		{"an adopted instance", func(s *v1alpha1.EC2InstanceSet) { s.Spec.Template.Spec.InstanceID = "i-0123456789abcdef0" },
			"spec.template.spec.instanceId", "does not adopt"},
		{"a fixed private address", func(s *v1alpha1.EC2InstanceSet) { s.Spec.Template.Spec.PrivateIPAddress = "10.0.0.5" },
			"spec.template.spec", "same address"},
		{"one Elastic IP for all", func(s *v1alpha1.EC2InstanceSet) {
			s.Spec.Template.Spec.ElasticIP = &v1alpha1.ElasticIP{AllocationID: "eipalloc-0123456789abcdef0"}
		}, "spec.template.spec.elasticIp", "allocate: true"},
		{"one outputs object for all", func(s *v1alpha1.EC2InstanceSet) {
			s.Spec.Template.Spec.OutputsTo = &v1alpha1.OutputsTarget{Kind: v1alpha1.OutputsConfigMap, Name: "coords"}
		}, "spec.template.spec.outputsTo", "same object"},
		{"a template that breaks an EC2Instance rule", func(s *v1alpha1.EC2InstanceSet) { s.Spec.Template.Spec.ImageID = "" },
			"spec.template.spec", "exactly one of imageId and imageSelector"},
		{"negative replicas", func(s *v1alpha1.EC2InstanceSet) { s.Spec.Replicas = ptr.To[int32](-1) }, "spec.replicas", ""},
		{"no surge and no unavailability", func(s *v1alpha1.EC2InstanceSet) {
			s.Spec.Strategy.RollingUpdate = &v1alpha1.RollingUpdateEC2InstanceSet{
				MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromString("0%"))}
		}, "spec.strategy.rollingUpdate", "cannot both be 0"},
		{"a surge that is not a percentage", func(s *v1alpha1.EC2InstanceSet) {
			s.Spec.Strategy.RollingUpdate = &v1alpha1.RollingUpdateEC2InstanceSet{MaxSurge: ptr.To(intstr.FromString("half"))}
		}, "spec.strategy.rollingUpdate.maxSurge", "percentage"},
		{"a name too long for a label", func(*v1alpha1.EC2InstanceSet) {}, "", "at most 63 characters"},
		{"rollingUpdate with OnDelete", func(s *v1alpha1.EC2InstanceSet) {
			s.Spec.Strategy = v1alpha1.EC2InstanceSetStrategy{Type: v1alpha1.OnDelete,
				RollingUpdate: &v1alpha1.RollingUpdateEC2InstanceSet{MaxSurge: ptr.To(intstr.FromInt32(1))}}
		}, "spec.strategy.rollingUpdate", "for type RollingUpdate"},
	}
	for i, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			set := validSet(fmt.Sprintf("set-invalid-%d", i))
			if tc.name == "a name too long for a label" {
				set.Name = strings.Repeat("a", 64)
			}
			tc.mutate(set)
			err := k8sClient.Create(context.Background(), set)
			if err == nil {
				_ = k8sClient.Delete(context.Background(), set)
				t.Fatal("the API server accepted an invalid set")
			}
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.wantField) || !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("want Invalid naming %s and containing %q, got %v", tc.wantField, tc.wantText, err)
			}
		})
	}
}

// TestATemplateMayChangeWhatAnInstanceCannot is why cmd/crdtemplate exists: the
// template embeds EC2InstanceSpec, whose rules refuse a new image for an EC2Instance,
// and a set must take one (it rolls).
func TestATemplateMayChangeWhatAnInstanceCannot(t *testing.T) {
	ctx := context.Background()
	set := validSet("set-template-changes")
	set.Spec.Template.Spec.KeyName = "old-key"
	if err := k8sClient.Create(ctx, set); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, set) })
	if set.Spec.Strategy.Type != v1alpha1.RollingUpdate || *set.Spec.Replicas != 3 {
		t.Errorf("defaults: strategy %q, replicas %d", set.Spec.Strategy.Type, *set.Spec.Replicas)
	}
	set.Spec.Template.Spec.ImageID = "ami-0fedcba9876543210"
	set.Spec.Template.Spec.KeyName = ""
	set.Spec.Template.Spec.SubnetID = "subnet-0a1b2c3d4e5f60001"
	if err := k8sClient.Update(ctx, set); err != nil {
		t.Fatalf("a template change an instance cannot take in place was refused: %v", err)
	}
}

func TestTheScaleSubresourceChangesReplicas(t *testing.T) {
	ctx := context.Background()
	set := validSet("set-scale")
	if err := k8sClient.Create(ctx, set); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, set) })
	scale := &autoscalingv1.Scale{}
	if err := k8sClient.SubResource("scale").Get(ctx, set, scale); err != nil {
		t.Fatalf("reading the scale subresource: %v", err)
	}
	if scale.Spec.Replicas != 3 {
		t.Errorf("the scale subresource reads %d replicas, want 3", scale.Spec.Replicas)
	}
	scale.Spec.Replicas = 7
	if err := k8sClient.SubResource("scale").Update(ctx, set, client.WithSubResourceBody(scale)); err != nil {
		t.Fatalf("scaling through the scale subresource: %v", err)
	}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(set), set); err != nil {
		t.Fatal(err)
	}
	if *set.Spec.Replicas != 7 {
		t.Errorf("replicas = %d after scaling to 7", *set.Spec.Replicas)
	}
}

// TestReplacementFieldsAreTheFieldsAnInstanceCannotChange holds the set's table of
// fields that need new instances to the EC2Instance CRD's own rules: every field the
// API server refuses to change (a rule comparing it with oldSelf) is in the table, and
// the table names nothing else but user data. A field that may change but not be added
// or removed is listed as "field?": its presence, not its value, needs new instances.
func TestReplacementFieldsAreTheFieldsAnInstanceCannotChange(t *testing.T) {
	raw, err := os.ReadFile("../../config/crd/bases/compute.ec2-operator.dev_ec2instances.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	got := map[string]bool{}
	transitionFields(&spec, "", got)
	var missing []string
	for field := range got {
		if !slices.Contains(v1alpha1.ReplacementFields, field) {
			missing = append(missing, field)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the CRD refuses changes to %v, which ReplacementFields does not list", missing)
	}
	for _, field := range v1alpha1.ReplacementFields {
		if !got[field] && field != "userData" && field != "userDataFrom" {
			t.Errorf("ReplacementFields lists %s, which an EC2Instance may change", field)
		}
	}
}

// presenceRule finds the pairs of a rule that forbids adding or removing a field:
// has(self.x) == has(oldSelf.x).
var presenceRule = regexp.MustCompile(`has\(self\.(\w+)\) == has\(oldSelf\.(\w+)\)`)

// transitionFields collects, below schema, the fields whose value may not change
// (their own rule self == oldSelf), as "path", and the fields that may not be added or
// removed (their parent's presence rule), as "path?" unless the value rule already
// names them. List items are "list[]".
func transitionFields(schema *apiextensionsv1.JSONSchemaProps, prefix string, out map[string]bool) {
	for _, rule := range schema.XValidations {
		for _, m := range presenceRule.FindAllStringSubmatch(rule.Rule, -1) {
			if m[1] == m[2] {
				out[prefix+m[1]+"?"] = true
			}
		}
	}
	for name, child := range schema.Properties {
		path := prefix + name
		for _, rule := range child.XValidations {
			if rule.Rule == "self == oldSelf" {
				out[path] = true
			}
		}
		transitionFields(&child, path+".", out)
		if child.Items != nil && child.Items.Schema != nil {
			transitionFields(child.Items.Schema, path+"[].", out)
		}
	}
	for field := range out {
		if strings.HasSuffix(field, "?") && out[strings.TrimSuffix(field, "?")] {
			delete(out, field)
		}
	}
}

func TestTheShippedSetSampleIsAccepted(t *testing.T) {
	raw, err := os.ReadFile("../../config/samples/compute_v1alpha1_ec2instanceset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	set := &v1alpha1.EC2InstanceSet{}
	if err := yaml.UnmarshalStrict(raw, set); err != nil {
		t.Fatal(err)
	}
	set.Namespace = "default"
	if err := k8sClient.Create(context.Background(), set); err != nil {
		t.Fatalf("the API server rejected the sample: %v", err)
	}
	_ = k8sClient.Delete(context.Background(), set)
}
