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

package controller

import (
	"errors"
	"testing"

	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
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
	seenMatching := observedFrom(&ec2.InstanceAttributes{UserData: "v1"})
	seenMatching.rootSizeGiB = 20

	testCases := []struct {
		name   string
		mutate func(*computev1alpha1.EC2Instance, *ec2.Instance, *observedAttributes)
		want   []string
	}{
		{"nothing differs", func(*computev1alpha1.EC2Instance, *ec2.Instance, *observedAttributes) {}, nil},
		{"security groups in another order are the same set", func(_ *computev1alpha1.EC2Instance, i *ec2.Instance, _ *observedAttributes) {
			i.SecurityGroupIDs = []string{"sg-1", "sg-2"}
		}, nil},
		{"omitted security groups are left alone", func(o *computev1alpha1.EC2Instance, i *ec2.Instance, _ *observedAttributes) {
			o.Spec.SecurityGroupIDs = nil
			i.SecurityGroupIDs = []string{"sg-9"}
		}, nil},
		{"a different security group", func(_ *computev1alpha1.EC2Instance, i *ec2.Instance, _ *observedAttributes) {
			i.SecurityGroupIDs = []string{"sg-1"}
		}, []string{"securityGroupIds"}},
		{"IMDSv1 allowed", func(_ *computev1alpha1.EC2Instance, i *ec2.Instance, _ *observedAttributes) {
			i.MetadataOptions.HTTPTokens = "optional"
		}, []string{"metadataOptions"}},
		{"monitoring on", func(_ *computev1alpha1.EC2Instance, i *ec2.Instance, _ *observedAttributes) {
			i.DetailedMonitoring = true
		},
			[]string{"monitoring"}},
		{"profile by name matches its ARN", func(o *computev1alpha1.EC2Instance, i *ec2.Instance, _ *observedAttributes) {
			o.Spec.IAMInstanceProfile = "app"
			i.IAMInstanceProfileARN = "arn:aws:iam::123456789012:instance-profile/team/app"
		}, nil},
		{"another profile", func(o *computev1alpha1.EC2Instance, i *ec2.Instance, _ *observedAttributes) {
			o.Spec.IAMInstanceProfile = "app"
			i.IAMInstanceProfileARN = "arn:aws:iam::123456789012:instance-profile/other"
		}, []string{"iamInstanceProfile"}},
		{"omitted profile is left alone", func(_ *computev1alpha1.EC2Instance, i *ec2.Instance, _ *observedAttributes) {
			i.IAMInstanceProfileARN = "arn:aws:iam::123456789012:instance-profile/other"
		}, nil},
		{"termination protection on", func(_ *computev1alpha1.EC2Instance, _ *ec2.Instance, a *observedAttributes) {
			a.attrs.TerminationProtection = true
		}, []string{"disableApiTermination"}},
		{"attributes not read are not compared", func(_ *computev1alpha1.EC2Instance, _ *ec2.Instance, a *observedAttributes) {
			*a = observedAttributes{}
		}, nil},
		{"a smaller root volume grows", func(_ *computev1alpha1.EC2Instance, _ *ec2.Instance, a *observedAttributes) { a.rootSizeGiB = 10 },
			[]string{"rootVolume.sizeGiB"}},
		{"a larger root volume is not shrunk", func(_ *computev1alpha1.EC2Instance, _ *ec2.Instance, a *observedAttributes) { a.rootSizeGiB = 30 },
			nil},
		{"another type needs a stop", func(_ *computev1alpha1.EC2Instance, i *ec2.Instance, _ *observedAttributes) {
			i.InstanceType = "t3.large"
		},
			[]string{"instanceType"}},
		{"other user data", func(_ *computev1alpha1.EC2Instance, _ *ec2.Instance, a *observedAttributes) {
			a.userData = digestOf("v0")
		},
			[]string{"userData"}},
		{"omitted user data is left alone", func(o *computev1alpha1.EC2Instance, _ *ec2.Instance, a *observedAttributes) {
			o.Spec.UserData = ""
			a.userData = digestOf("#!/bin/sh")
		}, nil},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			obj, inst := matching()
			seen := observedAttributes{attrs: ptr.To(*seenMatching.attrs), userData: seenMatching.userData, rootSizeGiB: seenMatching.rootSizeGiB}
			tc.mutate(obj, inst, &seen)
			var got []string
			for _, d := range findDrift(obj, inst, seen, obj.Spec.UserData) {
				got = append(got, d.field)
				if d.needsStopped != (d.field == "instanceType" || d.field == "userData") {
					t.Errorf("%s: needsStopped=%v", d.field, d.needsStopped)
				}
			}
			if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
				t.Errorf("drift %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReasonForMapsEachErrorKindToAReadyReason(t *testing.T) {
	testCases := []struct {
		err  error
		want string
	}{
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidAMIID.NotFound"}, computev1alpha1.ReasonImageNotFound},
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidAMIID.Malformed"}, computev1alpha1.ReasonImageNotFound},
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidSubnetID.NotFound"}, computev1alpha1.ReasonSubnetNotFound},
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidGroup.NotFound"}, computev1alpha1.ReasonSecurityGroupMissing},
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidParameterValue"}, computev1alpha1.ReasonInvalidSpec},
		{&awserrors.Error{Kind: awserrors.KindThrottled, Code: "RequestLimitExceeded"}, computev1alpha1.ReasonThrottled},
		{&awserrors.Error{Kind: awserrors.KindAuth, Code: "AuthFailure"}, computev1alpha1.ReasonAuthFailure},
		{&awserrors.Error{Kind: awserrors.KindCapacity, Code: "InsufficientInstanceCapacity"}, computev1alpha1.ReasonInsufficientCapacity},
		{&awserrors.Error{Kind: awserrors.KindIdempotencyConflict, Code: "IdempotentParameterMismatch"}, computev1alpha1.ReasonIdempotencyConflict},
		{&awserrors.Error{Kind: awserrors.KindNotFound, Code: "InvalidInstanceID.NotFound"}, computev1alpha1.ReasonInstanceNotFound},
		// Stop protection refusing a stop a change needs: the user must act.
		{&awserrors.Error{Kind: awserrors.KindTerminal, Code: "OperationNotPermitted"}, computev1alpha1.ReasonUpdateFailed},
		{&awserrors.Error{Kind: awserrors.KindTerminal, Code: "UnsupportedOperation"}, computev1alpha1.ReasonAWSError},
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidSnapshot.NotFound"}, computev1alpha1.ReasonSnapshotNotFound},
		{&awserrors.Error{Kind: awserrors.KindCapacity, Code: "AddressLimitExceeded"}, computev1alpha1.ReasonAddressLimitExceeded},
		{&awserrors.Error{Kind: awserrors.KindCapacity, Code: "ReservationCapacityExceeded"}, computev1alpha1.ReasonInsufficientCapacity},
		{errors.New("connection reset"), computev1alpha1.ReasonAWSError},
	}
	for _, tc := range testCases {
		if got := reasonFor(tc.err); got != tc.want {
			t.Errorf("reasonFor(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}
