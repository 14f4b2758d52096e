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

package guardrail

import (
	"context"
	"errors"
	"strings"
	"testing"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// platformRules are a platform team's guardrails: one subnet and its VPC, one group,
// t3 types, Amazon's images, shared tenancy, one reservation and no open matching,
// small volumes.
func platformRules() Rules {
	size, iops := int32(100), int32(3000)
	return Rules{Region: "us-east-1", AccountID: ec2sim.DefaultAccountID, Guardrails: &computev1alpha1.Guardrails{
		Regions: []string{"us-east-1"}, SubnetIDs: []string{ec2sim.DefaultSubnetIDs[0]}, VPCIDs: []string{ec2sim.DefaultVPCID},
		SecurityGroupIDs: []string{ec2sim.DefaultSecurityGroupID}, InstanceTypes: []string{"t3.*"}, ImageOwners: []string{"amazon"},
		Tenancies: []string{"default"}, PlacementGroups: []string{"team-*"}, Hosts: []string{},
		CapacityReservations: []string{"cr-0team*"}, OpenCapacityReservations: "Forbidden", PublicIPv4Pools: []string{"ipv4pool-ec2-team"},
		Volumes: &computev1alpha1.VolumeGuardrails{MaxSizeGiB: &size, MaxIOPS: &iops, KMSKeyIDs: []string{"alias/team"}, SnapshotOwners: []string{"self", "amazon"}},
	}}
}

// allowedLaunch is a launch request the platform rules allow.
func allowedLaunch() ec2.LaunchRequest {
	return ec2.LaunchRequest{ClientToken: "t", ImageID: ec2sim.DefaultImageID, InstanceType: "t3.micro",
		SubnetID: ec2sim.DefaultSubnetIDs[0], SecurityGroupIDs: []string{ec2sim.DefaultSecurityGroupID},
		CapacityReservation: &ec2.CapacityReservationSpec{Preference: "none"}}
}

// TestRequestsOutsideTheGuardrailsAreRefusedBeforeTheyAreSent checks each Checked
// request: what it names, and what it would leave to EC2's defaults, against the
// platform rules; a refused request never reaches EC2, an allowed one does.
func TestRequestsOutsideTheGuardrailsAreRefusedBeforeTheyAreSent(t *testing.T) {
	other := ec2.Subnet{ID: "subnet-0other0000000001", VPCID: "vpc-0other000000000001", AvailabilityZone: ec2sim.DefaultRegion + "a"}
	launch := func(change func(*ec2.LaunchRequest)) func(context.Context, ec2.Client) error {
		return func(ctx context.Context, c ec2.Client) error {
			req := allowedLaunch()
			change(&req)
			_, err := c.RunInstance(ctx, req)
			return err
		}
	}
	for _, tc := range []struct {
		name, op string
		call     func(context.Context, ec2.Client) error
		// refused is a part of the refusal's text; empty for an allowed request.
		refused string
	}{
		{"the allowed launch", "RunInstances", launch(func(*ec2.LaunchRequest) {}), ""},
		{"no subnet: EC2's default subnet", "RunInstances", launch(func(r *ec2.LaunchRequest) { r.SubnetID = "" }),
			"the subnet unset (EC2's default) is not allowed by spec.guardrails.subnetIds"},
		{"no groups: the VPC's default group", "RunInstances", launch(func(r *ec2.LaunchRequest) { r.SecurityGroupIDs = nil }),
			"the security groups unset (EC2's default) is not allowed by spec.guardrails.securityGroupIds"},
		{"another subnet", "RunInstances", launch(func(r *ec2.LaunchRequest) { r.SubnetID = other.ID }), "spec.guardrails.subnetIds"},
		{"a type", "RunInstances", launch(func(r *ec2.LaunchRequest) { r.InstanceType = "p5.48xlarge" }), "spec.guardrails.instanceTypes"},
		{"a private SSM image", "RunInstances", launch(func(r *ec2.LaunchRequest) { r.ImageID = "resolve:ssm:/team/ami" }), "spec.guardrails.imageOwners"},
		{"dedicated tenancy", "RunInstances", launch(func(r *ec2.LaunchRequest) { r.Placement = &ec2.PlacementSpec{Tenancy: "dedicated"} }), "spec.guardrails.tenancies"},
		{"a host", "RunInstances", launch(func(r *ec2.LaunchRequest) { r.Placement = &ec2.PlacementSpec{Tenancy: "default", HostID: "h-1"} }), "spec.guardrails.hosts"},
		{"open matching by default", "RunInstances", launch(func(r *ec2.LaunchRequest) { r.CapacityReservation = nil }), "spec.guardrails.openCapacityReservations"},
		{"another team's reservation", "RunInstances", launch(func(r *ec2.LaunchRequest) {
			r.CapacityReservation = &ec2.CapacityReservationSpec{ReservationID: "cr-0other"}
		}), "spec.guardrails.capacityReservations"},
		{"a large data volume", "RunInstances", launch(func(r *ec2.LaunchRequest) {
			r.Volumes = []ec2.VolumeRequest{{Device: "/dev/sdf", SizeGiB: 16384}}
		}), "the size of the volume at /dev/sdf \"16384 GiB\" is not allowed by spec.guardrails.volumes.maxSizeGiB"},
		{"a root volume's key", "RunInstances", launch(func(r *ec2.LaunchRequest) { r.RootVolume = &ec2.RootVolume{KMSKeyID: "alias/other"} }), "volumes.kmsKeyIds"},
		{"groups changed by a selector edit", "ModifyInstanceAttribute", func(ctx context.Context, c ec2.Client) error {
			return c.ModifySecurityGroups(ctx, "i-1", []string{ec2sim.DefaultSecurityGroupID, "sg-0otherteam"})
		}, "the security group \"sg-0otherteam\""},
		{"the type changed", "ModifyInstanceAttribute", func(ctx context.Context, c ec2.Client) error {
			return c.ModifyInstanceType(ctx, "i-1", "x2iedn.32xlarge")
		}, "spec.guardrails.instanceTypes"},
		{"placement moved to a host", "ModifyInstancePlacement", func(ctx context.Context, c ec2.Client) error {
			return c.SetPlacement(ctx, "i-1", ec2.PlacementSpec{HostID: "h-1"}, false)
		}, "spec.guardrails.hosts"},
		{"reservation changed to open", "ModifyInstanceCapacityReservationAttributes", func(ctx context.Context, c ec2.Client) error {
			return c.SetCapacityReservation(ctx, "i-1", ec2.CapacityReservationSpec{Preference: "open"})
		}, "openCapacityReservations"},
		{"an address from another pool", "AllocateAddress", func(ctx context.Context, c ec2.Client) error {
			_, err := c.AllocateAddress(ctx, "ipv4pool-ec2-other", nil)
			return err
		}, "spec.guardrails.publicIpv4Pools"},
		{"a volume from another account's snapshot", "CreateVolume", func(ctx context.Context, c ec2.Client) error {
			_, err := c.CreateVolume(ctx, ec2sim.DefaultRegion+"a", "t", ec2.VolumeRequest{Device: "/dev/sdg", SnapshotID: "snap-0a11ed00000000001", SizeGiB: 10}, nil)
			return err
		}, `the owner of snapshot snap-0a11ed00000000001 for the volume for /dev/sdg "210987654321" is not allowed by spec.guardrails.volumes.snapshotOwners`},
		{"a volume taking a large snapshot's size", "RunInstances", launch(func(r *ec2.LaunchRequest) {
			r.Volumes = []ec2.VolumeRequest{{Device: "/dev/sdh", SnapshotID: "snap-0b16000000000000b"}}
		}), `the size of the volume at /dev/sdh "500 GiB" is not allowed by spec.guardrails.volumes.maxSizeGiB`},
		{"a volume grown past the largest size", "ModifyVolume", func(ctx context.Context, c ec2.Client) error {
			return c.ResizeVolume(ctx, "vol-1", 101)
		}, "volumes.maxSizeGiB"},
		{"IOPS raised past the most", "ModifyVolume", func(ctx context.Context, c ec2.Client) error {
			return c.ModifyVolume(ctx, "vol-1", ec2.VolumeChange{IOPS: 64000})
		}, "volumes.maxIops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEmulated(t)
			e.sim.AddVPC(other.VPCID, "10.9.0.0/16")
			e.sim.AddSubnetInVPC(other.ID, other.VPCID, other.AvailabilityZone, "10.9.0.0/24", nil)
			e.sim.AddSharedSnapshot("snap-0a11ed00000000001", 8, "210987654321", "")
			e.sim.AddSnapshot("snap-0b16000000000000b", 500)
			e.sent()
			err := tc.call(context.Background(), New(e.client, platformRules(), Owner{Namespace: "team-a", Name: "web", UID: "u-1"}))
			sent := e.sent()
			var refusal *Refusal
			switch {
			case tc.refused == "":
				if err != nil || count(sent, "RunInstances") != 1 {
					t.Fatalf("allowed request: %v, sent %v", err, sent)
				}
			case !errors.As(err, &refusal) || !strings.Contains(err.Error(), tc.refused):
				t.Fatalf("got %v, want a refusal containing %q", err, tc.refused)
			case len(changes(sent)) > 0:
				t.Fatalf("refused, yet %v was sent", changes(sent))
			}
		})
	}
}

// TestAnInstanceIsCheckedAsEC2DescribesIt checks the instance check adoption, restore
// and Observe use: another VPC, a group and open matching are each named.
func TestAnInstanceIsCheckedAsEC2DescribesIt(t *testing.T) {
	e := newEmulated(t)
	inside := ec2.Instance{ID: "i-1", ImageID: ec2sim.DefaultImageID, InstanceType: "t3.micro", SubnetID: ec2sim.DefaultSubnetIDs[0],
		VPCID: ec2sim.DefaultVPCID, SecurityGroupIDs: []string{ec2sim.DefaultSecurityGroupID},
		Placement: ec2.PlacementSpec{Tenancy: "default"}, CapacityReservation: ec2.CapacityReservationSpec{Preference: "none"}}
	vs, err := platformRules().Instance(context.Background(), e.client, inside)
	if err != nil || len(vs) != 0 {
		t.Fatalf("an instance inside the guardrails: %v, %v", vs, err)
	}
	outside := inside
	outside.SubnetID, outside.VPCID = "subnet-0other0000000001", "vpc-0other000000000001"
	outside.SecurityGroupIDs = []string{"sg-0otherteam"}
	outside.CapacityReservation = ec2.CapacityReservationSpec{Preference: "open"}
	vs, err = platformRules().Instance(context.Background(), e.client, outside)
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, v := range vs {
		rules = append(rules, v.Rule)
	}
	if got := strings.Join(rules, ","); got != "subnetIds,vpcIds,securityGroupIds,openCapacityReservations" {
		t.Fatalf("violations %v, want subnetIds, vpcIds, securityGroupIds and openCapacityReservations", vs)
	}
}
