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

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// Instance checks an existing instance as EC2 describes it against the guardrails,
// for the paths that take over (adoption, restore) or report (Observe) an instance
// the operator did not launch for the object: its region, type, key, instance
// profile, image owner, subnet, VPC, security groups, tenancy, placement group, host
// and Capacity Reservation. The caller passes a description taken afresh, never a
// remembered one: what matters is the instance now.
func (r Rules) Instance(ctx context.Context, look lookups, inst ec2.Instance) ([]Violation, error) {
	g := r.Guardrails
	if g == nil {
		return nil, nil
	}
	c := &checker{}
	r.region(c)
	c.list("the instance type", inst.InstanceType, "instanceTypes", g.InstanceTypes, GlobMatch)
	c.list("the key pair", inst.KeyName, "keyNames", g.KeyNames, GlobMatch)
	c.list("the instance profile", inst.IAMInstanceProfileARN, "instanceProfiles", g.InstanceProfiles, ProfileMatch)
	if err := r.image(ctx, c, look, inst.ImageID); err != nil && !imageGone(err) {
		return nil, err
	} else if err != nil {
		// A deregistered image has no owner to check: the instance's origin cannot be
		// shown to be allowed.
		c.add(Violation{Field: "the owner of image " + inst.ImageID, Value: "unknown (the image is gone)", Rule: "imageOwners", Allowed: g.ImageOwners})
	}
	c.required("the subnet", inst.SubnetID, "subnetIds", g.SubnetIDs)
	c.list("the subnet", inst.SubnetID, "subnetIds", g.SubnetIDs, GlobMatch)
	c.required("the VPC", inst.VPCID, "vpcIds", g.VPCIDs)
	c.list("the VPC", inst.VPCID, "vpcIds", g.VPCIDs, GlobMatch)
	r.groups(c, inst.SecurityGroupIDs)
	placement := inst.Placement
	r.placement(c, &placement)
	reservation := inst.CapacityReservation
	if reservation.ReservationID == "" {
		reservation.ReservationID = inst.CapacityReservationID
	}
	r.capacityReservation(c, &reservation)
	return c.out, nil
}

// imageGone says a lookup failed because EC2 no longer shows the image (deregistered,
// or no longer shared with the account), which EC2 answers as invalid input.
func imageGone(err error) bool {
	return awserrors.IsNotFound(err) || awserrors.KindOf(err) == awserrors.KindInvalidInput
}
