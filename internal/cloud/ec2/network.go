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
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// Subnet is a VPC subnet as DescribeSubnets reports it.
type Subnet struct {
	ID               string
	VPCID            string
	AvailabilityZone string
	CIDR             string
	// AvailableIPs is the number of free IPv4 addresses.
	AvailableIPs int32
	Tags         map[string]string
}

// SecurityGroup is a VPC security group as DescribeSecurityGroups reports it.
type SecurityGroup struct {
	ID    string
	Name  string
	VPCID string
}

// SubnetQuery selects subnets: by IDs, or by tags (an empty value matches any value)
// and an optional zone.
type SubnetQuery struct {
	IDs              []string
	Tags             map[string]string
	AvailabilityZone string
}

// SecurityGroupQuery selects security groups by tags (an empty value matches any
// value) or names, within a VPC when VPCID is set.
type SecurityGroupQuery struct {
	VPCID string
	Tags  map[string]string
	Names []string
}

// DefaultSelectorTTL is how long an answer to a subnet or security-group query is
// shared: objects with the same selector that reconcile together (a bulk create, the
// resyncs of a fleet, spread over a tenth of the resync period) ask EC2 about once,
// and a group that gains a selector's tags is followed within a resync and this long.
const DefaultSelectorTTL = 30 * time.Second

// selectorCache shares recent answers to identical subnet, security-group and image
// queries.
type selectorCache struct {
	ttl     time.Duration
	mu      sync.Mutex
	entries map[string]selectorEntry
}

type selectorEntry struct {
	at     time.Time
	value  any
	inWork chan struct{}
}

// cachedQuery is selectorCache.do for one answer type, so the queries neither box
// their answers nor assert them back.
func cachedQuery[T any](c *selectorCache, key string, compute func() ([]T, error)) ([]T, error) {
	v, err := c.do(key, func() (any, error) { return compute() })
	if err != nil {
		return nil, err
	}
	return v.([]T), nil
}

// do returns the cached answer for key, or computes it once for all concurrent askers.
func (c *selectorCache) do(key string, compute func() (any, error)) (any, error) {
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[string]selectorEntry{}
	}
	for {
		e, ok := c.entries[key]
		if !ok {
			break
		}
		if e.inWork != nil {
			c.mu.Unlock()
			<-e.inWork
			c.mu.Lock()
			continue
		}
		if time.Since(e.at) < c.ttl {
			c.mu.Unlock()
			return e.value, nil
		}
		break
	}
	done := make(chan struct{})
	c.entries[key] = selectorEntry{inWork: done}
	c.mu.Unlock()
	v, err := compute()
	c.mu.Lock()
	if err != nil {
		delete(c.entries, key)
	} else {
		c.entries[key] = selectorEntry{at: time.Now(), value: v}
	}
	c.mu.Unlock()
	close(done)
	return v, err
}

// tagFilters turns a tag selector into DescribeSubnets/DescribeSecurityGroups filters:
// tag:<key> for a value, tag-key for a key whose value does not matter.
func tagFilters(tags map[string]string) []types.Filter {
	var out []types.Filter
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if v := tags[k]; v != "" {
			out = append(out, types.Filter{Name: aws.String("tag:" + k), Values: []string{v}})
		} else {
			out = append(out, types.Filter{Name: aws.String("tag-key"), Values: []string{k}})
		}
	}
	return out
}

// FindSubnets lists the subnets matching q, answered from a shared recent answer when
// another caller asked the same within selectorTTL.
func (c *AWSClient) FindSubnets(ctx context.Context, q SubnetQuery) ([]Subnet, error) {
	key := "subnets|" + strings.Join(q.IDs, ",") + "|" + q.AvailabilityZone + "|" + flatTags(q.Tags)
	return cachedQuery(&c.selectors, key, func() ([]Subnet, error) {
		in := &awsec2.DescribeSubnetsInput{Filters: tagFilters(q.Tags), MaxResults: aws.Int32(1000)}
		if len(q.IDs) > 0 {
			in.Filters = append(in.Filters, types.Filter{Name: aws.String("subnet-id"), Values: q.IDs})
		}
		if q.AvailabilityZone != "" {
			in.Filters = append(in.Filters, types.Filter{Name: aws.String("availability-zone"), Values: []string{q.AvailabilityZone}})
		}
		var out []Subnet
		p := awsec2.NewDescribeSubnetsPaginator(c.api, in)
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return nil, awserrors.Classify("DescribeSubnets", err)
			}
			for _, s := range page.Subnets {
				sn := Subnet{
					ID: aws.ToString(s.SubnetId), VPCID: aws.ToString(s.VpcId), AvailabilityZone: aws.ToString(s.AvailabilityZone),
					CIDR: aws.ToString(s.CidrBlock), AvailableIPs: aws.ToInt32(s.AvailableIpAddressCount), Tags: map[string]string{},
				}
				for _, t := range s.Tags {
					sn.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
				}
				out = append(out, sn)
			}
		}
		return out, nil
	})
}

// FindSecurityGroups lists the security groups matching q, sorted by ID, answered from
// a shared recent answer when another caller asked the same within selectorTTL.
func (c *AWSClient) FindSecurityGroups(ctx context.Context, q SecurityGroupQuery) ([]SecurityGroup, error) {
	key := "groups|" + q.VPCID + "|" + strings.Join(q.Names, ",") + "|" + flatTags(q.Tags)
	return cachedQuery(&c.selectors, key, func() ([]SecurityGroup, error) {
		in := &awsec2.DescribeSecurityGroupsInput{Filters: tagFilters(q.Tags), MaxResults: aws.Int32(1000)}
		if q.VPCID != "" {
			in.Filters = append(in.Filters, types.Filter{Name: aws.String("vpc-id"), Values: []string{q.VPCID}})
		}
		if len(q.Names) > 0 {
			// The group-name filter, not GroupNames: GroupNames looks only in the
			// default VPC and fails for a name it does not find.
			in.Filters = append(in.Filters, types.Filter{Name: aws.String("group-name"), Values: q.Names})
		}
		var out []SecurityGroup
		p := awsec2.NewDescribeSecurityGroupsPaginator(c.api, in)
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return nil, awserrors.Classify("DescribeSecurityGroups", err)
			}
			for _, g := range page.SecurityGroups {
				out = append(out, SecurityGroup{ID: aws.ToString(g.GroupId), Name: aws.ToString(g.GroupName), VPCID: aws.ToString(g.VpcId)})
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
		return out, nil
	})
}

// flatTags writes tags in a stable order, for cache keys.
func flatTags(tags map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		b.WriteString(k + "=" + tags[k] + ";")
	}
	return b.String()
}

// SetSourceDestCheck turns the instance's source/destination check on or off.
func (c *AWSClient) SetSourceDestCheck(ctx context.Context, instanceID string, enabled bool) error {
	c.changing(instanceID)
	_, err := c.api.ModifyInstanceAttribute(ctx, &awsec2.ModifyInstanceAttributeInput{
		InstanceId:      aws.String(instanceID),
		SourceDestCheck: &types.AttributeBooleanValue{Value: aws.Bool(enabled)},
	})
	return awserrors.Classify("ModifyInstanceAttribute", err)
}

// SetSecondaryPrivateIPCount gives the interface count secondary private IPv4
// addresses: the subnet picks new ones (AssignPrivateIpAddresses), or the last of
// secondaries (the interface's current secondary addresses, in order) are released
// (UnassignPrivateIpAddresses).
func (c *AWSClient) SetSecondaryPrivateIPCount(ctx context.Context, instanceID, networkInterfaceID string, secondaries []string, count int32) error {
	c.changing(instanceID)
	have := int32(len(secondaries))
	switch {
	case count > have:
		_, err := c.api.AssignPrivateIpAddresses(ctx, &awsec2.AssignPrivateIpAddressesInput{
			NetworkInterfaceId: aws.String(networkInterfaceID), SecondaryPrivateIpAddressCount: aws.Int32(count - have),
		})
		return awserrors.Classify("AssignPrivateIpAddresses", err)
	case count < have:
		_, err := c.api.UnassignPrivateIpAddresses(ctx, &awsec2.UnassignPrivateIpAddressesInput{
			NetworkInterfaceId: aws.String(networkInterfaceID), PrivateIpAddresses: secondaries[count:],
		})
		return awserrors.Classify("UnassignPrivateIpAddresses", err)
	}
	return nil
}
