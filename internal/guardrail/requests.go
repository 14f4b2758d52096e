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
	"strconv"
	"strings"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// lookups are the reads the checks need of EC2: the VPC of a subnet and the owner of
// an image. The client remembers both (neither ever changes for an ID), so a check
// costs a call only the first time a subnet or an image is seen.
type lookups interface {
	FindSubnets(ctx context.Context, q ec2.SubnetQuery) ([]ec2.Subnet, error)
	DescribeImage(ctx context.Context, id string) (*ec2.Image, error)
	DescribeSnapshot(ctx context.Context, id string) (*ec2.Snapshot, error)
}

// launch checks everything a RunInstances request asks for.
func (r Rules) launch(ctx context.Context, look lookups, req ec2.LaunchRequest) ([]Violation, error) {
	g := r.Guardrails
	c := &checker{}
	r.region(c)
	c.list("the instance type", req.InstanceType, "instanceTypes", g.InstanceTypes, GlobMatch)
	c.list("the key pair", req.KeyName, "keyNames", g.KeyNames, GlobMatch)
	c.list("the instance profile", req.IAMInstanceProfile, "instanceProfiles", g.InstanceProfiles, ProfileMatch)
	if err := r.image(ctx, c, look, req.ImageID); err != nil {
		return nil, err
	}
	if err := r.network(ctx, c, look, req.SubnetID, req.SecurityGroupIDs); err != nil {
		return nil, err
	}
	r.placement(c, req.Placement)
	r.capacityReservation(c, req.CapacityReservation)
	if rv := req.RootVolume; rv != nil {
		r.volume(c, "the root volume", ec2.VolumeRequest{SizeGiB: rv.SizeGiB, IOPS: rv.IOPS, KMSKeyID: rv.KMSKeyID})
	}
	for _, v := range req.Volumes {
		if err := r.volumeFromSnapshot(ctx, c, look, "the volume at "+v.Device, v); err != nil {
			return nil, err
		}
	}
	return c.out, nil
}

// region refuses every request of a client whose region the account does not allow.
func (r Rules) region(c *checker) {
	c.required("the region", r.Region, "regions", r.Guardrails.Regions)
	c.list("the region", r.Region, "regions", r.Guardrails.Regions, GlobMatch)
}

// imageOfAmazon stands for an image Amazon owns, for the owner rule.
var imageOfAmazon = ec2.Image{OwnerAlias: "amazon"}

// image checks the owner of the image a launch boots. An image given by ID is looked
// up; a resolve:ssm: parameter is checked by ssmImageAllowed.
func (r Rules) image(ctx context.Context, c *checker, look lookups, imageID string) error {
	owners := r.Guardrails.ImageOwners
	if owners == nil || imageID == "" {
		return nil
	}
	if strings.HasPrefix(imageID, "resolve:ssm:") {
		if !ssmImageAllowed(owners, imageID) {
			c.add(Violation{Field: "the image", Value: imageID, Rule: "imageOwners", Allowed: owners})
		}
		return nil
	}
	img, err := look.DescribeImage(ctx, imageID)
	if err != nil {
		return err
	}
	if !OwnerAllowed(owners, *img, r.AccountID) {
		owner := img.OwnerID
		if img.OwnerAlias != "" {
			owner += " (" + img.OwnerAlias + ")"
		}
		c.add(Violation{Field: "the owner of image " + imageID, Value: owner, Rule: "imageOwners", Allowed: owners})
	}
	return nil
}

// network checks the subnet, its VPC and the security groups. A subnet or groups left
// to EC2 are refused when the guardrails constrain them (see Guardrails).
func (r Rules) network(ctx context.Context, c *checker, look lookups, subnetID string, groupIDs []string) error {
	g := r.Guardrails
	c.required("the subnet", subnetID, "subnetIds", g.SubnetIDs)
	if g.SubnetIDs == nil {
		c.required("the subnet", subnetID, "vpcIds", g.VPCIDs)
	}
	c.list("the subnet", subnetID, "subnetIds", g.SubnetIDs, GlobMatch)
	if g.VPCIDs != nil && subnetID != "" {
		subnets, err := look.FindSubnets(ctx, ec2.SubnetQuery{IDs: []string{subnetID}})
		if err != nil {
			return err
		}
		vpc := ""
		if len(subnets) == 1 {
			vpc = subnets[0].VPCID
		}
		if vpc == "" || !AnyGlob(g.VPCIDs, vpc) {
			c.add(Violation{Field: "the VPC of subnet " + subnetID, Value: vpc, Rule: "vpcIds", Allowed: g.VPCIDs})
		}
	}
	r.groups(c, groupIDs)
	return nil
}

// groups checks security groups, none of which may be left to EC2 when constrained.
func (r Rules) groups(c *checker, groupIDs []string) {
	allowed := r.Guardrails.SecurityGroupIDs
	if len(groupIDs) == 0 {
		c.required("the security groups", "", "securityGroupIds", allowed)
	}
	for _, id := range groupIDs {
		c.list("the security group", id, "securityGroupIds", allowed, GlobMatch)
	}
}

// placement checks the tenancy (shared hardware when unset), the placement group and
// the Dedicated Host or host resource group.
func (r Rules) placement(c *checker, p *ec2.PlacementSpec) {
	g := r.Guardrails
	if p == nil {
		p = &ec2.PlacementSpec{}
	}
	tenancy := p.Tenancy
	if tenancy == "" {
		tenancy = "default"
	}
	c.list("the tenancy", tenancy, "tenancies", g.Tenancies, func(p, v string) bool { return p == v })
	c.list("the placement group", p.GroupName, "placementGroups", g.PlacementGroups, GlobMatch)
	c.list("the Dedicated Host", p.HostID, "hosts", g.Hosts, GlobMatch)
	c.list("the host resource group", p.HostResourceGroupARN, "hosts", g.Hosts, GlobMatch)
}

// capacityReservation checks a reservation target, and EC2's default preference
// (open) when the account forbids open matching.
func (r Rules) capacityReservation(c *checker, cr *ec2.CapacityReservationSpec) {
	g := r.Guardrails
	if cr == nil {
		cr = &ec2.CapacityReservationSpec{}
	}
	c.list("the Capacity Reservation", cr.ReservationID, "capacityReservations", g.CapacityReservations, GlobMatch)
	c.list("the Capacity Reservation group", cr.ResourceGroupARN, "capacityReservations", g.CapacityReservations, GlobMatch)
	targeted := cr.ReservationID != "" || cr.ResourceGroupARN != ""
	if g.OpenCapacityReservations == "Forbidden" && !targeted && cr.Preference != "none" {
		c.add(Violation{Field: "the Capacity Reservation preference", Value: cr.Preference, Rule: "openCapacityReservations",
			Allowed: []string{"Forbidden: set spec.capacityReservation to preference none or a target"}})
	}
}

// volume checks one volume's size, IOPS and KMS key.
func (r Rules) volume(c *checker, what string, v ec2.VolumeRequest) {
	vg := r.Guardrails.Volumes
	if vg == nil {
		return
	}
	if vg.MaxSizeGiB != nil && v.SizeGiB > *vg.MaxSizeGiB {
		c.add(Violation{Field: "the size of " + what, Value: strconv.Itoa(int(v.SizeGiB)) + " GiB", Rule: "volumes.maxSizeGiB",
			Allowed: []string{"at most " + strconv.Itoa(int(*vg.MaxSizeGiB)) + " GiB"}})
	}
	if vg.MaxIOPS != nil && v.IOPS > *vg.MaxIOPS {
		c.add(Violation{Field: "the IOPS of " + what, Value: strconv.Itoa(int(v.IOPS)), Rule: "volumes.maxIops",
			Allowed: []string{"at most " + strconv.Itoa(int(*vg.MaxIOPS))}})
	}
	c.list("the KMS key of "+what, v.KMSKeyID, "volumes.kmsKeyIds", vg.KMSKeyIDs, GlobMatch)
}

// volumeFromSnapshot checks a volume that may be created from a snapshot: the
// snapshot's owner, and the snapshot's size when the volume takes it (no size of its
// own), besides what volume checks. The snapshot is looked up only when a rule needs
// it, once per snapshot for the client's lifetime.
func (r Rules) volumeFromSnapshot(ctx context.Context, c *checker, look lookups, what string, v ec2.VolumeRequest) error {
	vg := r.Guardrails.Volumes
	if vg == nil || v.SnapshotID == "" || (vg.SnapshotOwners == nil && (vg.MaxSizeGiB == nil || v.SizeGiB > 0)) {
		r.volume(c, what, v)
		return nil
	}
	snap, err := look.DescribeSnapshot(ctx, v.SnapshotID)
	if err != nil {
		return err
	}
	if vg.SnapshotOwners != nil && !OwnerAllowed(vg.SnapshotOwners, ec2.Image{OwnerID: snap.OwnerID, OwnerAlias: snap.OwnerAlias}, r.AccountID) {
		owner := snap.OwnerID
		if snap.OwnerAlias != "" {
			owner += " (" + snap.OwnerAlias + ")"
		}
		c.add(Violation{Field: "the owner of snapshot " + v.SnapshotID + " for " + what, Value: owner, Rule: "volumes.snapshotOwners", Allowed: vg.SnapshotOwners})
	}
	if v.SizeGiB == 0 {
		v.SizeGiB = snap.SizeGiB
	}
	r.volume(c, what, v)
	return nil
}
