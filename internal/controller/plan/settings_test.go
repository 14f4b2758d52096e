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

package plan

import (
	"testing"

	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

func TestFindDriftComparesOnlyWhatTheSpecManages(t *testing.T) {
	matching := func() (*computev1alpha1.EC2Instance, *ec2.Instance) {
		obj := &computev1alpha1.EC2Instance{Spec: computev1alpha1.EC2InstanceSpec{
			InstanceType:     "t3.micro",
			SecurityGroupIDs: []string{"sg-1", "sg-2"},
			UserData:         "v1",
			RootVolume:       &computev1alpha1.RootVolume{SizeGiB: ptr.To[int32](20)},
		}}
		inst := &ec2.Instance{
			ID: "i-1", InstanceType: "t3.micro", SecurityGroupIDs: []string{"sg-2", "sg-1"}, RootVolumeID: "vol-1",
			MetadataOptions: ec2.MetadataOptions{HTTPTokens: "required", HTTPPutResponseHopLimit: 2, HTTPEndpoint: "enabled",
				InstanceMetadataTags: "disabled", HTTPProtocolIPv6: "disabled"},
		}
		return obj, inst
	}
	seenMatching := Observed(&ec2.InstanceAttributes{UserData: "v1"})
	seenMatching.RootSizeGiB = 20

	testCases := []struct {
		name   string
		mutate func(*computev1alpha1.EC2Instance, *ec2.Instance, *ObservedAttributes)
		want   []string
	}{
		{"nothing differs", func(*computev1alpha1.EC2Instance, *ec2.Instance, *ObservedAttributes) {}, nil},
		{"security groups in another order are the same set", func(_ *computev1alpha1.EC2Instance, i *ec2.Instance, _ *ObservedAttributes) {
			i.SecurityGroupIDs = []string{"sg-1", "sg-2"}
		}, nil},
		{"omitted security groups are left alone", func(o *computev1alpha1.EC2Instance, i *ec2.Instance, _ *ObservedAttributes) {
			o.Spec.SecurityGroupIDs = nil
			i.SecurityGroupIDs = []string{"sg-9"}
		}, nil},
		{"a different security group", func(_ *computev1alpha1.EC2Instance, i *ec2.Instance, _ *ObservedAttributes) {
			i.SecurityGroupIDs = []string{"sg-1"}
		}, []string{"securityGroupIds"}},
		{"IMDSv1 allowed", func(_ *computev1alpha1.EC2Instance, i *ec2.Instance, _ *ObservedAttributes) {
			i.MetadataOptions.HTTPTokens = "optional"
		}, []string{"metadataOptions"}},
		{"monitoring on", func(_ *computev1alpha1.EC2Instance, i *ec2.Instance, _ *ObservedAttributes) {
			i.DetailedMonitoring = true
		},
			[]string{"monitoring"}},
		{"profile by name matches its ARN", func(o *computev1alpha1.EC2Instance, i *ec2.Instance, _ *ObservedAttributes) {
			o.Spec.IAMInstanceProfile = "app"
			i.IAMInstanceProfileARN = "arn:aws:iam::123456789012:instance-profile/team/app"
		}, nil},
		{"another profile", func(o *computev1alpha1.EC2Instance, i *ec2.Instance, _ *ObservedAttributes) {
			o.Spec.IAMInstanceProfile = "app"
			i.IAMInstanceProfileARN = "arn:aws:iam::123456789012:instance-profile/other"
		}, []string{"iamInstanceProfile"}},
		{"omitted profile is left alone", func(_ *computev1alpha1.EC2Instance, i *ec2.Instance, _ *ObservedAttributes) {
			i.IAMInstanceProfileARN = "arn:aws:iam::123456789012:instance-profile/other"
		}, nil},
		{"termination protection on", func(_ *computev1alpha1.EC2Instance, _ *ec2.Instance, a *ObservedAttributes) {
			a.Attrs.TerminationProtection = true
		}, []string{"disableApiTermination"}},
		{"attributes not read are not compared", func(_ *computev1alpha1.EC2Instance, _ *ec2.Instance, a *ObservedAttributes) {
			*a = ObservedAttributes{}
		}, nil},
		{"a smaller root volume grows", func(_ *computev1alpha1.EC2Instance, _ *ec2.Instance, a *ObservedAttributes) { a.RootSizeGiB = 10 },
			[]string{"rootVolume.sizeGiB"}},
		{"a larger root volume is not shrunk", func(_ *computev1alpha1.EC2Instance, _ *ec2.Instance, a *ObservedAttributes) { a.RootSizeGiB = 30 },
			nil},
		{"another type needs a stop", func(_ *computev1alpha1.EC2Instance, i *ec2.Instance, _ *ObservedAttributes) {
			i.InstanceType = "t3.large"
		},
			[]string{"instanceType"}},
		{"other user data", func(_ *computev1alpha1.EC2Instance, _ *ec2.Instance, a *ObservedAttributes) {
			a.UserData = DigestOf("v0")
		},
			[]string{"userData"}},
		{"omitted user data is left alone", func(o *computev1alpha1.EC2Instance, _ *ec2.Instance, a *ObservedAttributes) {
			o.Spec.UserData = ""
			a.UserData = DigestOf("#!/bin/sh")
		}, nil},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			obj, inst := matching()
			seen := ObservedAttributes{Attrs: ptr.To(*seenMatching.Attrs), UserData: seenMatching.UserData, RootSizeGiB: seenMatching.RootSizeGiB}
			tc.mutate(obj, inst, &seen)
			var got []string
			for _, d := range FindDrift(obj, inst, seen, obj.Spec.UserData) {
				got = append(got, d.Field)
				if d.NeedsStopped != (d.Field == "instanceType" || d.Field == "userData") {
					t.Errorf("%s: needsStopped=%v", d.Field, d.NeedsStopped)
				}
			}
			if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
				t.Errorf("drift %v, want %v", got, tc.want)
			}
		})
	}
}

// A settled instance that matches its spec in every setting has no drift: each plan
// compares only what the spec sets, so that nothing is changed on an instance that
// already is as asked.
func TestNoSettingPlansAChangeForAnInstanceAsLaunched(t *testing.T) {
	obj := &computev1alpha1.EC2Instance{Spec: computev1alpha1.EC2InstanceSpec{InstanceType: "t3.micro", SecurityGroupIDs: []string{"sg-1"}}}
	inst := &ec2.Instance{ID: "i-1", InstanceType: "t3.micro", SecurityGroupIDs: []string{"sg-1"},
		MetadataOptions: DesiredMetadataOptions(&obj.Spec), Placement: ec2.PlacementSpec{Tenancy: "default"}}
	in := Inputs{Obj: obj, Spec: &obj.Spec, Inst: inst, Seen: LaunchedAttributes(obj, "")}
	for i, plan := range Settings {
		if d, ok := plan(in); ok {
			t.Errorf("setting %d plans %s: %s -> %s on an instance that matches the spec", i, d.Field, d.Actual, d.Desired)
		}
	}
}
