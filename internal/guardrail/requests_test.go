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
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/ec2fake"
)

// platformRules are a platform team's guardrails: one subnet and its VPC, one group,
// t3 types, Amazon's images, shared tenancy, one reservation and no open matching,
// small volumes.
func platformRules() Rules {
	size, iops := int32(100), int32(3000)
	return Rules{Region: "us-east-1", AccountID: ec2fake.AccountID, Guardrails: &computev1alpha1.Guardrails{
		Regions: []string{"us-east-1"}, SubnetIDs: []string{ec2fake.DefaultSubnetID}, VPCIDs: []string{ec2fake.DefaultVPCID},
		SecurityGroupIDs: []string{ec2fake.DefaultSecurityGroupID}, InstanceTypes: []string{"t3.*"}, ImageOwners: []string{"amazon"},
		Tenancies: []string{"default"}, PlacementGroups: []string{"team-*"}, Hosts: []string{},
		CapacityReservations: []string{"cr-0team*"}, OpenCapacityReservations: "Forbidden", PublicIPv4Pools: []string{"ipv4pool-ec2-team"},
		Volumes: &computev1alpha1.VolumeGuardrails{MaxSizeGiB: &size, MaxIOPS: &iops, KMSKeyIDs: []string{"alias/team"}, SnapshotOwners: []string{"self", "amazon"}},
	}}
}

// allowedLaunch is a launch request the platform rules allow.
func allowedLaunch() ec2.LaunchRequest {
	return ec2.LaunchRequest{ClientToken: "t", ImageID: ec2fake.DefaultImageID, InstanceType: "t3.micro",
		SubnetID: ec2fake.DefaultSubnetID, SecurityGroupIDs: []string{ec2fake.DefaultSecurityGroupID},
		CapacityReservation: &ec2.CapacityReservationSpec{Preference: "none"}}
}

// TestRequestsOutsideTheGuardrailsAreRefusedBeforeTheyAreSent checks each Checked
// request: what it names, and what it would leave to EC2's defaults, against the
// platform rules; a refused request never reaches EC2, an allowed one does.
func TestRequestsOutsideTheGuardrailsAreRefusedBeforeTheyAreSent(t *testing.T) {
	other := ec2.Subnet{ID: "subnet-0other0000000001", VPCID: "vpc-0other000000000001", AvailabilityZone: ec2fake.DefaultZone}
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
			return c.ModifySecurityGroups(ctx, "i-1", []string{ec2fake.DefaultSecurityGroupID, "sg-0otherteam"})
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
			_, err := c.CreateVolume(ctx, ec2fake.DefaultZone, "t", ec2.VolumeRequest{Device: "/dev/sdg", SnapshotID: "snap-0shared", SizeGiB: 10}, nil)
			return err
		}, `the owner of snapshot snap-0shared for the volume for /dev/sdg "210987654321" is not allowed by spec.guardrails.volumes.snapshotOwners`},
		{"a volume taking a large snapshot's size", "RunInstances", launch(func(r *ec2.LaunchRequest) {
			r.Volumes = []ec2.VolumeRequest{{Device: "/dev/sdh", SnapshotID: "snap-0ownbig"}}
		}), `the size of the volume at /dev/sdh "500 GiB" is not allowed by spec.guardrails.volumes.maxSizeGiB`},
		{"a volume grown past the largest size", "ModifyVolume", func(ctx context.Context, c ec2.Client) error {
			return c.ResizeVolume(ctx, "vol-1", 101)
		}, "volumes.maxSizeGiB"},
		{"IOPS raised past the most", "ModifyVolume", func(ctx context.Context, c ec2.Client) error {
			return c.ModifyVolume(ctx, "vol-1", ec2.VolumeChange{IOPS: 64000})
		}, "volumes.maxIops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := ec2fake.New()
			fake.AddSubnet(other)
			fake.AddSnapshot(ec2.Snapshot{ID: "snap-0shared", OwnerID: "210987654321", SizeGiB: 8})
			fake.AddSnapshot(ec2.Snapshot{ID: "snap-0ownbig", OwnerID: ec2fake.AccountID, SizeGiB: 500})
			fake.ResetCalls()
			err := tc.call(context.Background(), New(fake, platformRules(), Owner{Namespace: "team-a", Name: "web", UID: "u-1"}))
			var refusal *Refusal
			switch {
			case tc.refused == "":
				if err != nil || fake.Count("RunInstance") != 1 {
					t.Fatalf("allowed request: %v, %d launches", err, fake.Count("RunInstance"))
				}
			case !errors.As(err, &refusal) || !strings.Contains(err.Error(), tc.refused):
				t.Fatalf("got %v, want a refusal containing %q", err, tc.refused)
			default:
				for _, c := range fake.Calls() {
					if Decisions[c.Op] != Read {
						t.Fatalf("refused, yet %s was called", c.Op)
					}
				}
			}
		})
	}
}

// TestAnInstanceIsCheckedAsEC2DescribesIt checks the instance check adoption, restore
// and Observe use: another VPC, a group and open matching are each named.
func TestAnInstanceIsCheckedAsEC2DescribesIt(t *testing.T) {
	fake := ec2fake.New()
	inside := ec2.Instance{ID: "i-1", ImageID: ec2fake.DefaultImageID, InstanceType: "t3.micro", SubnetID: ec2fake.DefaultSubnetID,
		VPCID: ec2fake.DefaultVPCID, SecurityGroupIDs: []string{ec2fake.DefaultSecurityGroupID},
		Placement: ec2.PlacementSpec{Tenancy: "default"}, CapacityReservation: ec2.CapacityReservationSpec{Preference: "none"}}
	vs, err := platformRules().Instance(context.Background(), fake, inside)
	if err != nil || len(vs) != 0 {
		t.Fatalf("an instance inside the guardrails: %v, %v", vs, err)
	}
	outside := inside
	outside.SubnetID, outside.VPCID = "subnet-0other0000000001", "vpc-0other000000000001"
	outside.SecurityGroupIDs = []string{"sg-0otherteam"}
	outside.CapacityReservation = ec2.CapacityReservationSpec{Preference: "open"}
	vs, err = platformRules().Instance(context.Background(), fake, outside)
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
