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

package ec2

import (
	"encoding/base64"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func TestBuildRunInstancesInput(t *testing.T) {
	base := LaunchRequest{
		ClientToken:      "tok-0",
		ImageID:          "ami-1",
		InstanceType:     "t3.micro",
		SubnetID:         "subnet-1",
		SecurityGroupIDs: []string{"sg-1", "sg-2"},
		Tags:             map[string]string{"b": "2", "a": "1"},
	}
	tests := []struct {
		name   string
		modify func(*LaunchRequest)
		check  func(t *testing.T, req LaunchRequest, in *runInput)
	}{
		{
			name: "launches exactly one instance with the client token",
			check: func(t *testing.T, _ LaunchRequest, in *runInput) {
				if aws.ToInt32(in.MinCount) != 1 || aws.ToInt32(in.MaxCount) != 1 {
					t.Errorf("MinCount/MaxCount = %d/%d", aws.ToInt32(in.MinCount), aws.ToInt32(in.MaxCount))
				}
				if aws.ToString(in.ClientToken) != "tok-0" {
					t.Errorf("ClientToken = %q", aws.ToString(in.ClientToken))
				}
			},
		},
		{
			name: "tags the instance, its volumes and its network interface with every tag in sorted order",
			check: func(t *testing.T, _ LaunchRequest, in *runInput) {
				if len(in.TagSpecifications) != 3 {
					t.Fatalf("got %d tag specifications", len(in.TagSpecifications))
				}
				kinds := []types.ResourceType{in.TagSpecifications[0].ResourceType, in.TagSpecifications[1].ResourceType, in.TagSpecifications[2].ResourceType}
				if kinds[0] != types.ResourceTypeInstance || kinds[1] != types.ResourceTypeVolume || kinds[2] != types.ResourceTypeNetworkInterface {
					t.Errorf("resource types = %v", kinds)
				}
				for _, ts := range in.TagSpecifications {
					if len(ts.Tags) != 2 || aws.ToString(ts.Tags[0].Key) != "a" || aws.ToString(ts.Tags[1].Key) != "b" {
						t.Errorf("tags = %+v", ts.Tags)
					}
				}
			},
		},
		{
			name: "puts subnet and groups at the top level without a public IP choice",
			check: func(t *testing.T, _ LaunchRequest, in *runInput) {
				if aws.ToString(in.SubnetId) != "subnet-1" || len(in.SecurityGroupIds) != 2 || in.NetworkInterfaces != nil {
					t.Errorf("SubnetId=%v SecurityGroupIds=%v NetworkInterfaces=%v", in.SubnetId, in.SecurityGroupIds, in.NetworkInterfaces)
				}
			},
		},
		{
			name:   "moves subnet and groups into the primary interface with a public IP choice",
			modify: func(r *LaunchRequest) { r.AssociatePublicIPAddress = aws.Bool(false) },
			check: func(t *testing.T, _ LaunchRequest, in *runInput) {
				if in.SubnetId != nil || in.SecurityGroupIds != nil {
					t.Errorf("top-level SubnetId=%v SecurityGroupIds=%v must be empty", in.SubnetId, in.SecurityGroupIds)
				}
				if len(in.NetworkInterfaces) != 1 {
					t.Fatalf("got %d interfaces", len(in.NetworkInterfaces))
				}
				ni := in.NetworkInterfaces[0]
				if aws.ToInt32(ni.DeviceIndex) != 0 || aws.ToString(ni.SubnetId) != "subnet-1" || len(ni.Groups) != 2 ||
					ni.AssociatePublicIpAddress == nil || *ni.AssociatePublicIpAddress {
					t.Errorf("interface = %+v", ni)
				}
			},
		},
		{
			name:   "base64-encodes the user data",
			modify: func(r *LaunchRequest) { r.UserData = "#!/bin/sh\necho hi" },
			check: func(t *testing.T, req LaunchRequest, in *runInput) {
				raw, err := base64.StdEncoding.DecodeString(aws.ToString(in.UserData))
				if err != nil || string(raw) != req.UserData {
					t.Errorf("UserData = %q (%v)", aws.ToString(in.UserData), err)
				}
			},
		},
		{
			name:   "names an instance profile by ARN",
			modify: func(r *LaunchRequest) { r.IAMInstanceProfile = "arn:aws:iam::123456789012:instance-profile/p" },
			check: func(t *testing.T, _ LaunchRequest, in *runInput) {
				if in.IamInstanceProfile.Arn == nil || in.IamInstanceProfile.Name != nil {
					t.Errorf("IamInstanceProfile = %+v", in.IamInstanceProfile)
				}
			},
		},
		{
			name:   "names an instance profile by name",
			modify: func(r *LaunchRequest) { r.IAMInstanceProfile = "p" },
			check: func(t *testing.T, _ LaunchRequest, in *runInput) {
				if aws.ToString(in.IamInstanceProfile.Name) != "p" || in.IamInstanceProfile.Arn != nil {
					t.Errorf("IamInstanceProfile = %+v", in.IamInstanceProfile)
				}
			},
		},
		{
			name:   "maps the root volume onto the image's root device",
			modify: func(r *LaunchRequest) { r.RootVolume = &RootVolume{SizeGiB: 20, Type: "gp3", IOPS: 4000} },
			check: func(t *testing.T, _ LaunchRequest, in *runInput) {
				if len(in.BlockDeviceMappings) != 1 {
					t.Fatalf("got %d mappings", len(in.BlockDeviceMappings))
				}
				m := in.BlockDeviceMappings[0]
				if aws.ToString(m.DeviceName) != "/dev/sda1" || aws.ToInt32(m.Ebs.VolumeSize) != 20 ||
					m.Ebs.VolumeType != types.VolumeTypeGp3 || aws.ToInt32(m.Ebs.Iops) != 4000 || m.Ebs.Throughput != nil {
					t.Errorf("mapping = %+v / %+v", m, m.Ebs)
				}
			},
		},
		{
			name:   "launches a one-time Spot Instance for terminate",
			modify: func(r *LaunchRequest) { r.Spot = &SpotOptions{InterruptionBehavior: "terminate"} },
			check: func(t *testing.T, _ LaunchRequest, in *runInput) {
				s := in.InstanceMarketOptions.SpotOptions
				if in.InstanceMarketOptions.MarketType != types.MarketTypeSpot || s.SpotInstanceType != types.SpotInstanceTypeOneTime ||
					s.InstanceInterruptionBehavior != types.InstanceInterruptionBehaviorTerminate || s.MaxPrice != nil {
					t.Errorf("market options = %+v / %+v", in.InstanceMarketOptions, s)
				}
			},
		},
		{
			name:   "launches a persistent Spot Instance for stop",
			modify: func(r *LaunchRequest) { r.Spot = &SpotOptions{InterruptionBehavior: "stop", MaxPrice: "0.05"} },
			check: func(t *testing.T, _ LaunchRequest, in *runInput) {
				s := in.InstanceMarketOptions.SpotOptions
				if s.SpotInstanceType != types.SpotInstanceTypePersistent || s.InstanceInterruptionBehavior != types.InstanceInterruptionBehaviorStop ||
					aws.ToString(s.MaxPrice) != "0.05" {
					t.Errorf("spot options = %+v", s)
				}
			},
		},
		{
			name: "sets metadata options, monitoring, protection and placement",
			modify: func(r *LaunchRequest) {
				r.MetadataOptions = MetadataOptions{HTTPTokens: "required", HTTPPutResponseHopLimit: 2, HTTPEndpoint: "enabled"}
				r.DetailedMonitoring = true
				r.DisableAPITermination = true
				r.AvailabilityZone = "us-east-1b"
			},
			check: func(t *testing.T, _ LaunchRequest, in *runInput) {
				mo := in.MetadataOptions
				if mo.HttpTokens != types.HttpTokensStateRequired || aws.ToInt32(mo.HttpPutResponseHopLimit) != 2 ||
					mo.HttpEndpoint != types.InstanceMetadataEndpointStateEnabled {
					t.Errorf("metadata options = %+v", mo)
				}
				if !aws.ToBool(in.Monitoring.Enabled) || !aws.ToBool(in.DisableApiTermination) ||
					aws.ToString(in.Placement.AvailabilityZone) != "us-east-1b" {
					t.Errorf("Monitoring=%+v DisableApiTermination=%v Placement=%+v", in.Monitoring, in.DisableApiTermination, in.Placement)
				}
			},
		},
		{
			name: "leaves metadata options to the account defaults when unset",
			check: func(t *testing.T, _ LaunchRequest, in *runInput) {
				if in.MetadataOptions != nil || in.BlockDeviceMappings != nil || in.InstanceMarketOptions != nil {
					t.Errorf("unexpected options: %+v %+v %+v", in.MetadataOptions, in.BlockDeviceMappings, in.InstanceMarketOptions)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := base
			if tt.modify != nil {
				tt.modify(&req)
			}
			tt.check(t, req, buildRunInstancesInput(req, "/dev/sda1"))
		})
	}
}

// runInput shortens the test signatures.
type runInput = awsec2.RunInstancesInput
