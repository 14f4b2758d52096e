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
	"time"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// The methods below are sent as they are (see Decisions): reads and hints change
// nothing in AWS, and the ends of things (stops, terminations, releases, deletions,
// detachments and tag removals) are never refused, because guardrails bound what is
// asked for, and tightening them must neither strand a deletion nor leak what exists.

func (c *Client) GetInstance(ctx context.Context, id string) (*ec2.Instance, error) {
	return c.inner.GetInstance(ctx, id)
}

func (c *Client) FindInstances(ctx context.Context, filter ec2.InstanceFilter) ([]ec2.Instance, error) {
	return c.inner.FindInstances(ctx, filter)
}

func (c *Client) OwnedInstances(ctx context.Context, namespace, name string) ([]ec2.Instance, error) {
	return c.inner.OwnedInstances(ctx, namespace, name)
}

func (c *Client) GetInstanceAttributes(ctx context.Context, id string) (*ec2.InstanceAttributes, error) {
	return c.inner.GetInstanceAttributes(ctx, id)
}

func (c *Client) GetLifecycleAttributes(ctx context.Context, id string) (*ec2.LifecycleAttributes, error) {
	return c.inner.GetLifecycleAttributes(ctx, id)
}

func (c *Client) GetCreditSpecification(ctx context.Context, id string) (string, error) {
	return c.inner.GetCreditSpecification(ctx, id)
}

func (c *Client) DescribeVolumes(ctx context.Context, ids []string) (map[string]ec2.Volume, error) {
	return c.inner.DescribeVolumes(ctx, ids)
}

func (c *Client) FindVolumes(ctx context.Context, tags map[string]string) ([]ec2.Volume, error) {
	return c.inner.FindVolumes(ctx, tags)
}

func (c *Client) DescribeSnapshot(ctx context.Context, id string) (*ec2.Snapshot, error) {
	return c.inner.DescribeSnapshot(ctx, id)
}

func (c *Client) GetVolumeSize(ctx context.Context, volumeID string) (int32, error) {
	return c.inner.GetVolumeSize(ctx, volumeID)
}

func (c *Client) DescribeAddresses(ctx context.Context, allocationIDs []string) (map[string]ec2.Address, error) {
	return c.inner.DescribeAddresses(ctx, allocationIDs)
}

func (c *Client) OwnedAddresses(ctx context.Context, namespace string) ([]ec2.Address, error) {
	return c.inner.OwnedAddresses(ctx, namespace)
}

func (c *Client) FindSubnets(ctx context.Context, q ec2.SubnetQuery) ([]ec2.Subnet, error) {
	return c.inner.FindSubnets(ctx, q)
}

func (c *Client) FindSecurityGroups(ctx context.Context, q ec2.SecurityGroupQuery) ([]ec2.SecurityGroup, error) {
	return c.inner.FindSecurityGroups(ctx, q)
}

func (c *Client) FindImages(ctx context.Context, q ec2.ImageQuery) ([]ec2.Image, error) {
	return c.inner.FindImages(ctx, q)
}

func (c *Client) DescribeImage(ctx context.Context, id string) (*ec2.Image, error) {
	return c.inner.DescribeImage(ctx, id)
}

func (c *Client) InstanceType(ctx context.Context, name string) (*ec2.InstanceTypeInfo, error) {
	return c.inner.InstanceType(ctx, name)
}

func (c *Client) LaunchTurn(clientToken, tenant string) time.Duration {
	return c.inner.LaunchTurn(clientToken, tenant)
}

func (c *Client) LaunchBacklog() time.Duration {
	return c.inner.LaunchBacklog()
}

func (c *Client) ChangedElsewhere(ids ...string) {
	c.inner.ChangedElsewhere(ids...)
}

func (c *Client) ExpectLookups(ids []string) {
	c.inner.ExpectLookups(ids)
}

func (c *Client) StopInstance(ctx context.Context, id string) error {
	return c.inner.StopInstance(ctx, id)
}

func (c *Client) HibernateInstance(ctx context.Context, id string) error {
	return c.inner.HibernateInstance(ctx, id)
}

func (c *Client) TerminateInstance(ctx context.Context, id string) (string, error) {
	return c.inner.TerminateInstance(ctx, id)
}

func (c *Client) CancelSpotRequest(ctx context.Context, requestID string) error {
	return c.inner.CancelSpotRequest(ctx, requestID)
}

func (c *Client) DetachVolume(ctx context.Context, volumeID, instanceID string) error {
	return c.inner.DetachVolume(ctx, volumeID, instanceID)
}

func (c *Client) DeleteVolume(ctx context.Context, volumeID string) error {
	return c.inner.DeleteVolume(ctx, volumeID)
}

func (c *Client) DisassociateAddress(ctx context.Context, associationID, instanceID string) error {
	return c.inner.DisassociateAddress(ctx, associationID, instanceID)
}

func (c *Client) ReleaseAddress(ctx context.Context, allocationID string) error {
	return c.inner.ReleaseAddress(ctx, allocationID)
}

func (c *Client) DeleteTags(ctx context.Context, resourceIDs []string, keys []string) error {
	return c.inner.DeleteTags(ctx, resourceIDs, keys)
}
