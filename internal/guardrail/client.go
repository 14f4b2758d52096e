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

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// Client is the EC2 client of a pass under an account's guardrails. It implements
// every method of ec2.Client itself, without embedding, so that a method added to the
// interface does not compile here until someone decides how the guardrails apply to
// it (and records the decision in Decisions, which a test holds to the interface).
type Client struct {
	inner ec2.Client
	rules Rules
	owner Owner
}

var _ ec2.Client = (*Client)(nil)

// New returns inner under rules, acting for owner. Without guardrails only the
// region-free, ownership rules apply: every list is unset.
func New(inner ec2.Client, rules Rules, owner Owner) *Client {
	rules.guarded = rules.Guardrails != nil
	if !rules.guarded {
		rules.Guardrails = &computev1alpha1.Guardrails{}
	}
	return &Client{inner: inner, rules: rules, owner: owner}
}

// refuse is the error of a refused request, nil when nothing was violated.
func refuse(operation string, vs []Violation) error {
	if len(vs) == 0 {
		return nil
	}
	return &Refusal{Operation: operation, Violations: vs}
}

// inRegion refuses a change in a region the account does not allow: every mutating
// request is checked at least for that.
func (c *Client) inRegion(operation string) error {
	return c.check(operation, func(*checker) {})
}

// check runs the region rule and the request's own rules, and returns the refusal of
// operation when one fails.
func (c *Client) check(operation string, rules func(*checker)) error {
	ch := &checker{}
	c.rules.region(ch)
	rules(ch)
	return refuse(operation, ch.out)
}

// RunInstance checks the whole launch request: what it names, and what it leaves to
// EC2 that the guardrails constrain.
func (c *Client) RunInstance(ctx context.Context, req ec2.LaunchRequest) (*ec2.Instance, error) {
	vs, err := c.rules.launch(ctx, c.inner, req)
	if err != nil {
		return nil, err
	}
	if err := refuse("RunInstances", vs); err != nil {
		return nil, err
	}
	return c.inner.RunInstance(ctx, req)
}

// RunInstances checks a batch's launch request as RunInstance checks one: every
// instance of the batch is launched from the same request.
func (c *Client) RunInstances(ctx context.Context, req ec2.LaunchRequest) ([]ec2.Instance, error) {
	vs, err := c.rules.launch(ctx, c.inner, req)
	if err != nil {
		return nil, err
	}
	if err := refuse("RunInstances", vs); err != nil {
		return nil, err
	}
	return c.inner.RunInstances(ctx, req)
}

// Launchable says whether RunInstance would send req, without sending it (nil for a
// client without guardrails): the controller asks before it writes its launch record,
// so that a refused launch leaves no record of a launch that might have happened.
func Launchable(ctx context.Context, c ec2.Client, req ec2.LaunchRequest) error {
	g, ok := c.(*Client)
	if !ok {
		return nil
	}
	vs, err := g.rules.launch(ctx, g.inner, req)
	if err != nil {
		return err
	}
	return refuse("RunInstances", vs)
}

// ModifyInstanceType checks the new type.
func (c *Client) ModifyInstanceType(ctx context.Context, id, instanceType string) error {
	if err := c.check("ModifyInstanceAttribute (instance type)", func(ch *checker) {
		ch.list("the instance type", instanceType, "instanceTypes", c.rules.Guardrails.InstanceTypes, GlobMatch)
	}); err != nil {
		return err
	}
	return c.inner.ModifyInstanceType(ctx, id, instanceType)
}

// ModifySecurityGroups checks the new groups, whether named or chosen by a selector.
func (c *Client) ModifySecurityGroups(ctx context.Context, id string, groupIDs []string) error {
	if err := c.check("ModifyInstanceAttribute (security groups)", func(ch *checker) {
		c.rules.groups(ch, groupIDs)
	}); err != nil {
		return err
	}
	return c.inner.ModifySecurityGroups(ctx, id, groupIDs)
}

// SetIAMInstanceProfile checks the new profile; removing the profile is always allowed.
func (c *Client) SetIAMInstanceProfile(ctx context.Context, id, profile string) error {
	if err := c.check("AssociateIamInstanceProfile", func(ch *checker) {
		ch.list("the instance profile", profile, "instanceProfiles", c.rules.Guardrails.InstanceProfiles, ProfileMatch)
	}); err != nil {
		return err
	}
	return c.inner.SetIAMInstanceProfile(ctx, id, profile)
}

// SetCapacityReservation checks the new preference or target.
func (c *Client) SetCapacityReservation(ctx context.Context, id string, spec ec2.CapacityReservationSpec) error {
	if err := c.check("ModifyInstanceCapacityReservationAttributes", func(ch *checker) {
		c.rules.capacityReservation(ch, &spec)
	}); err != nil {
		return err
	}
	return c.inner.SetCapacityReservation(ctx, id, spec)
}

// SetPlacement checks the new tenancy, group and host. A request that leaves the
// group as it is (changeGroup false) is not checked for the group.
func (c *Client) SetPlacement(ctx context.Context, id string, p ec2.PlacementSpec, changeGroup bool) error {
	if err := c.check("ModifyInstancePlacement", func(ch *checker) {
		checked := p
		if !changeGroup {
			checked.GroupName = ""
		}
		c.rules.placement(ch, &checked)
	}); err != nil {
		return err
	}
	return c.inner.SetPlacement(ctx, id, p, changeGroup)
}

// CreateVolume checks the volume's size, IOPS, key and snapshot owner.
func (c *Client) CreateVolume(ctx context.Context, zone, token string, req ec2.VolumeRequest, tags map[string]string) (*ec2.Volume, error) {
	ch := &checker{}
	c.rules.region(ch)
	if err := c.rules.volumeFromSnapshot(ctx, ch, c.inner, "the volume for "+req.Device, req); err != nil {
		return nil, err
	}
	if err := refuse("CreateVolume", ch.out); err != nil {
		return nil, err
	}
	return c.inner.CreateVolume(ctx, zone, token, req, tags)
}

// ModifyVolume checks the new size and IOPS.
func (c *Client) ModifyVolume(ctx context.Context, volumeID string, change ec2.VolumeChange) error {
	if err := c.check("ModifyVolume", func(ch *checker) {
		c.rules.volume(ch, "volume "+volumeID, ec2.VolumeRequest{SizeGiB: change.SizeGiB, IOPS: change.IOPS})
	}); err != nil {
		return err
	}
	return c.inner.ModifyVolume(ctx, volumeID, change)
}

// ResizeVolume checks the new size.
func (c *Client) ResizeVolume(ctx context.Context, volumeID string, sizeGiB int32) error {
	if err := c.check("ModifyVolume (size)", func(ch *checker) {
		c.rules.volume(ch, "volume "+volumeID, ec2.VolumeRequest{SizeGiB: sizeGiB})
	}); err != nil {
		return err
	}
	return c.inner.ResizeVolume(ctx, volumeID, sizeGiB)
}

// AllocateAddress checks the pool; Amazon's pool (none named) is always allowed.
func (c *Client) AllocateAddress(ctx context.Context, pool string, tags map[string]string) (*ec2.Address, error) {
	if err := c.check("AllocateAddress", func(ch *checker) {
		ch.list("the public IPv4 pool", pool, "publicIpv4Pools", c.rules.Guardrails.PublicIPv4Pools, GlobMatch)
	}); err != nil {
		return nil, err
	}
	return c.inner.AllocateAddress(ctx, pool, tags)
}
