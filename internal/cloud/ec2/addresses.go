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
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// Address is an Elastic IP address as DescribeAddresses reports it.
type Address struct {
	AllocationID string
	PublicIP     string
	// AssociationID, InstanceID and NetworkInterfaceID describe the association, if
	// any.
	AssociationID      string
	InstanceID         string
	NetworkInterfaceID string
	Tags               map[string]string
}

// DescribeAddresses returns the addresses among allocationIDs that exist; see
// Client.DescribeAddresses.
func (c *AWSClient) DescribeAddresses(ctx context.Context, allocationIDs []string) (map[string]Address, error) {
	return c.addresses.Get(ctx, allocationIDs)
}

// describeAddressesByFilter describes addresses by the allocation-id filter, which,
// unlike AllocationIds, does not fail the whole request when one address is gone.
func (c *AWSClient) describeAddressesByFilter(ctx context.Context, ids []string) (map[string]Address, error) {
	out := map[string]Address{}
	for start := 0; start < len(ids); start += maxFilterValues {
		chunk := ids[start:min(start+maxFilterValues, len(ids))]
		found, err := c.describeAddresses(ctx, []types.Filter{{Name: aws.String("allocation-id"), Values: chunk}})
		if err != nil {
			return nil, err
		}
		for _, a := range found {
			out[a.AllocationID] = a
		}
	}
	return out, nil
}

func (c *AWSClient) describeAddresses(ctx context.Context, filters []types.Filter) ([]Address, error) {
	// DescribeAddresses is not paginated: it returns every match at once.
	out, err := c.api.DescribeAddresses(ctx, &awsec2.DescribeAddressesInput{Filters: filters})
	if err != nil {
		return nil, awserrors.Classify("DescribeAddresses", err)
	}
	addrs := make([]Address, 0, len(out.Addresses))
	for _, a := range out.Addresses {
		addr := Address{
			AllocationID:       aws.ToString(a.AllocationId),
			PublicIP:           aws.ToString(a.PublicIp),
			AssociationID:      aws.ToString(a.AssociationId),
			InstanceID:         aws.ToString(a.InstanceId),
			NetworkInterfaceID: aws.ToString(a.NetworkInterfaceId),
			Tags:               map[string]string{},
		}
		for _, t := range a.Tags {
			addr.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
		addrs = append(addrs, addr)
	}
	return addrs, nil
}

// AllocateAddress allocates an Elastic IP address in the VPC domain, from pool when
// it is not empty, tagged at allocation.
func (c *AWSClient) AllocateAddress(ctx context.Context, pool string, tags map[string]string) (*Address, error) {
	in := &awsec2.AllocateAddressInput{Domain: types.DomainTypeVpc, PublicIpv4Pool: optString(pool)}
	if len(tags) > 0 {
		in.TagSpecifications = []types.TagSpecification{{ResourceType: types.ResourceTypeElasticIp, Tags: toSDKTags(tags)}}
	}
	namespace := tags[TagOwnerNamespace]
	out, err := c.api.AllocateAddress(ctx, in)
	if err != nil {
		// The address may have been allocated with the answer lost: the next listing
		// must ask EC2 again to show it.
		c.ownedAddresses.forget(namespace)
		return nil, awserrors.Classify("AllocateAddress", err)
	}
	addr := Address{AllocationID: aws.ToString(out.AllocationId), PublicIP: aws.ToString(out.PublicIp), Tags: tags}
	c.ownedAddresses.allocated(namespace, addr)
	return &addr, nil
}

// AssociateAddress associates the address with a network interface and returns the
// association ID. It does not take the address from another association: EC2 then
// answers Resource.AlreadyAssociated, which the caller reports.
func (c *AWSClient) AssociateAddress(ctx context.Context, allocationID, instanceID, networkInterfaceID string) (string, error) {
	c.changing(instanceID)
	out, err := c.api.AssociateAddress(ctx, &awsec2.AssociateAddressInput{
		AllocationId:       aws.String(allocationID),
		NetworkInterfaceId: aws.String(networkInterfaceID),
		AllowReassociation: aws.Bool(false),
	})
	if err != nil {
		return "", awserrors.Classify("AssociateAddress", err)
	}
	return aws.ToString(out.AssociationId), nil
}

// DisassociateAddress ends an association. Ending one that is already gone succeeds.
func (c *AWSClient) DisassociateAddress(ctx context.Context, associationID, instanceID string) error {
	if instanceID != "" {
		c.changing(instanceID)
	}
	_, err := c.api.DisassociateAddress(ctx, &awsec2.DisassociateAddressInput{AssociationId: aws.String(associationID)})
	if err = awserrors.Classify("DisassociateAddress", err); awserrors.IsNotFound(err) {
		return nil
	}
	return err
}

// ReleaseAddress releases an address the operator allocated. Releasing one that is
// already gone succeeds.
func (c *AWSClient) ReleaseAddress(ctx context.Context, allocationID string) error {
	_, err := c.api.ReleaseAddress(ctx, &awsec2.ReleaseAddressInput{AllocationId: aws.String(allocationID)})
	c.ownedAddresses.forgetAddress(allocationID)
	if err = awserrors.Classify("ReleaseAddress", err); awserrors.IsNotFound(err) || awserrors.CodeOf(err) == "InvalidAllocationID.NotFound" {
		return nil
	}
	return err
}
