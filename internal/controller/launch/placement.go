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

package launch

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// choosePlacement resolves spec.subnetSelector and spec.securityGroupSelector before a
// launch, into status.subnetId and status.securityGroupIds, which the launch record
// writes together with the client token. A retried launch reuses them, so that it
// sends EC2 the same parameters (a changed parameter under the same token would be
// an IdempotentParameterMismatch), and the subnet never changes for the instance.
func (l *Phase) choosePlacement(ctx context.Context, s *pass.Scope, newRecord bool) error {
	spec, st := &s.Obj.Spec, &s.Obj.Status
	if sel := spec.SubnetSelector; sel != nil && st.SubnetID == "" {
		subnet, err := chooseSubnet(ctx, l.EC2Of(s), sel)
		if err != nil {
			return err
		}
		st.SubnetID, st.VPCID = subnet.ID, subnet.VPCID
	}
	if spec.SecurityGroupSelector != nil && (newRecord || len(st.SecurityGroupIDs) == 0) {
		groups, err := DesiredGroups(ctx, l.EC2Of(s), s, st.VPCID)
		if err != nil {
			return err
		}
		st.SecurityGroupIDs = groups
	}
	return nil
}

// chooseSubnet applies the documented rule: among the subnets matching the selector,
// the one with the most free IPv4 addresses, the lowest ID among equals.
func chooseSubnet(ctx context.Context, c ec2.Network, sel *computev1alpha1.SubnetSelector) (*ec2.Subnet, error) {
	subnets, err := c.FindSubnets(ctx, ec2.SubnetQuery{Tags: sel.Tags, AvailabilityZone: sel.AvailabilityZone})
	if err != nil {
		return nil, err
	}
	if len(subnets) == 0 {
		return nil, &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "DescribeSubnets", Code: "InvalidSubnetID.NotFound",
			Message: "subnetSelector matches no subnet" + selectorText(sel.Tags, sel.AvailabilityZone)}
	}
	sort.Slice(subnets, func(i, j int) bool {
		if subnets[i].AvailableIPs != subnets[j].AvailableIPs {
			return subnets[i].AvailableIPs > subnets[j].AvailableIPs
		}
		return subnets[i].ID < subnets[j].ID
	})
	return &subnets[0], nil
}

// DesiredGroups returns the security groups the spec asks for: securityGroupIds and
// the groups securityGroupSelector matches in vpcID (when known; otherwise the
// selection must lie in one VPC). The result is sorted.
func DesiredGroups(ctx context.Context, c ec2.Network, s *pass.Scope, vpcID string) ([]string, error) {
	spec := &s.Obj.Spec
	groups := slices.Clone(spec.SecurityGroupIDs)
	if sel := spec.SecurityGroupSelector; sel != nil {
		if vpcID == "" && spec.SubnetID != "" {
			subnets, err := c.FindSubnets(ctx, ec2.SubnetQuery{IDs: []string{spec.SubnetID}})
			if err != nil {
				return nil, err
			}
			if len(subnets) == 1 {
				vpcID = subnets[0].VPCID
			}
		}
		found, err := c.FindSecurityGroups(ctx, ec2.SecurityGroupQuery{VPCID: vpcID, Tags: sel.Tags, Names: sel.Names})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "DescribeSecurityGroups", Code: "InvalidGroup.NotFound",
				Message: "securityGroupSelector matches no security group" + selectorText(sel.Tags, "") + namesText(sel.Names) + inVPC(vpcID)}
		}
		vpcs := map[string]bool{}
		for _, g := range found {
			vpcs[g.VPCID] = true
			groups = append(groups, g.ID)
		}
		if len(vpcs) > 1 {
			return nil, &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "DescribeSecurityGroups", Code: "InvalidParameterCombination",
				Message: fmt.Sprintf("securityGroupSelector matches groups in %d VPCs (%s); set subnetId or subnetSelector so that the VPC is known",
					len(vpcs), strings.Join(sortedSet(vpcs), ", "))}
		}
	}
	slices.Sort(groups)
	return slices.Compact(groups), nil
}

func selectorText(tags map[string]string, zone string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if tags[k] == "" {
			parts = append(parts, k)
		} else {
			parts = append(parts, k+"="+tags[k])
		}
	}
	out := ""
	if len(parts) > 0 {
		out = " with tags " + strings.Join(parts, ",")
	}
	if zone != "" {
		out += " in " + zone
	}
	return out
}

func namesText(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return " named " + strings.Join(names, ",")
}

func inVPC(vpcID string) string {
	if vpcID == "" {
		return ""
	}
	return " in " + vpcID
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
