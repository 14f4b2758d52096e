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

package adoption

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

func legacyInstance() *ec2.Instance {
	return &ec2.Instance{
		ID: "i-0123456789abcdef0", State: ec2.StateStopped, InstanceType: "m5.large", ImageID: "ami-0123456789abcdef0",
		SubnetID: "subnet-0123456789abcdef0", AvailabilityZone: "us-east-1a", KeyName: "ops", PrivateIP: "10.0.0.5",
		SecurityGroupIDs: []string{"sg-b", "sg-a"}, DetailedMonitoring: true, SourceDestCheck: ptr.To(false),
		IAMInstanceProfileARN: "arn:aws:iam::123456789012:instance-profile/app",
		MetadataOptions: ec2.MetadataOptions{HTTPTokens: "optional", HTTPPutResponseHopLimit: 1, HTTPEndpoint: "enabled",
			InstanceMetadataTags: "disabled", HTTPProtocolIPv6: "disabled"},
		Tags: map[string]string{"Name": "legacy", "team": "x", "aws:cloudformation:stack-name": "s",
			ec2.TagOwnerUID: "someone", "ec2-operator.dev/adoptable": "true"},
	}
}

func TestLateInitializeFillsOnlyWhatIsUnset(t *testing.T) {
	spec := computev1alpha1.EC2InstanceSpec{InstanceID: "i-0123456789abcdef0", Monitoring: ptr.To(false),
		Tags: map[string]string{"team": "y"}}
	filled := LateInitialize(&spec, Facts{Instance: legacyInstance(), Attributes: &ec2.InstanceAttributes{TerminationProtection: true}})
	want := []string{"instanceType", "imageId", "metadataOptions", "disableApiTermination", "desiredState",
		"securityGroupIds", "iamInstanceProfile", "sourceDestCheck"}
	if !slices.Equal(filled, want) {
		t.Errorf("filled %v, want %v", filled, want)
	}
	if *spec.Monitoring || spec.Tags["team"] != "y" || len(spec.Tags) != 1 {
		t.Errorf("fields the user set were changed: monitoring %v, tags %v", *spec.Monitoring, spec.Tags)
	}
	if spec.InstanceType != "m5.large" || spec.DesiredState != computev1alpha1.DesiredStateStopped ||
		spec.MetadataOptions.HTTPTokens != computev1alpha1.HTTPTokensOptional || !*spec.DisableAPITermination ||
		!slices.Equal(spec.SecurityGroupIDs, []string{"sg-a", "sg-b"}) || *spec.SourceDestCheck {
		t.Errorf("not filled in as the instance is: %+v", spec)
	}
	if again := LateInitialize(&spec, Facts{Instance: legacyInstance()}); len(again) != 0 {
		t.Errorf("a filled spec was filled again: %v", again)
	}
}

func TestLateInitializeLeavesWhatSelectorsAndUnreadAttributesDecide(t *testing.T) {
	spec := computev1alpha1.EC2InstanceSpec{InstanceID: "i-0123456789abcdef0",
		ImageSelector:         &computev1alpha1.ImageSelector{},
		SecurityGroupSelector: &computev1alpha1.SecurityGroupSelector{}}
	filled := LateInitialize(&spec, Facts{Instance: legacyInstance()})
	for _, f := range []string{"imageId", "securityGroupIds", "disableApiTermination"} {
		if slices.Contains(filled, f) {
			t.Errorf("%s was filled in: %v", f, filled)
		}
	}
}

func TestUserTagsKeepsOnlyWhatTheSpecCanHold(t *testing.T) {
	got := UserTags(legacyInstance().Tags, false)
	if len(got) != 2 || got["Name"] != "legacy" || got["team"] != "x" {
		t.Errorf("user tags %v, want Name and team only", got)
	}
	many := map[string]string{}
	for i := range 45 {
		many[fmt.Sprintf("k%d", i)] = "v"
	}
	if got := UserTags(many, false); got != nil {
		t.Errorf("45 tags (the API takes 44) gave %d, want none: unset tags are left alone", len(got))
	}
	if got := UserTags(map[string]string{"team/owner": "x"}, true); got != nil {
		t.Errorf("a key with a slash while tags are in instance metadata gave %v, want none", got)
	}
}

func TestSpecFromInstanceDescribesTheInstanceAsItIs(t *testing.T) {
	spec := SpecFromInstance(Facts{Instance: &ec2.Instance{ID: "i-0123456789abcdef0", State: ec2.StateRunning,
		InstanceType: "t3.micro", Spot: true}, SpotInterruptionBehavior: "stop", ElasticIPAllocationID: "eipalloc-1"})
	if spec.Spot == nil || spec.Spot.InterruptionBehavior != "stop" || spec.ElasticIP.AllocationID != "eipalloc-1" ||
		spec.DesiredState != computev1alpha1.DesiredStateRunning || spec.MetadataOptions != nil || spec.Tags != nil {
		t.Errorf("spec %+v", spec)
	}
}
