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

package ec2sim

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Subnet is a VPC subnet instances can launch into.
type Subnet struct {
	ID                  string
	VPCID               string
	AZ                  string
	CIDR                string
	DefaultForAZ        bool
	MapPublicIPOnLaunch bool
	Tags                map[string]string
	// IPv6CIDR is the subnet's IPv6 /64, or "" when it has none.
	IPv6CIDR    string
	ipv6AssocID string
	// base is the network address and size the number of addresses of CIDR.
	base uint32
	size int
	// used holds the host offsets of the private IPs assigned to interfaces.
	used     map[int]bool
	ipv6Used map[string]bool
}

// SecurityGroup is a VPC security group.
type SecurityGroup struct {
	ID          string
	Name        string
	Description string
	VPCID       string
	Tags        map[string]string
}

// AddSubnet adds a non-default subnet of the default VPC in az.
func (s *Sim) AddSubnet(id, az string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putSubnet(id, az, false)
}

// AddSecurityGroup adds a security group to the default VPC.
func (s *Sim) AddSecurityGroup(id, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putGroup(&SecurityGroup{ID: id, Name: name, Description: name, VPCID: DefaultVPCID})
}

// putSubnet adds a subnet of the default VPC with the next 172.31.x.0/20
// block, the layout of a default VPC.
func (s *Sim) putSubnet(id, az string, isDefault bool) {
	n := len(s.subnetOrder)
	if _, ok := s.subnets[id]; ok {
		n = slices.Index(s.subnetOrder, id)
	}
	p := netip.MustParsePrefix(fmt.Sprintf("172.31.%d.0/20", (16*n)%256))
	s.storeSubnet(newSubnet(id, DefaultVPCID, az, p, isDefault))
}

// putGroup stores a security group, keeping insertion order.
func (s *Sim) putGroup(g *SecurityGroup) {
	if _, ok := s.groups[g.ID]; !ok {
		s.groupOrder = append(s.groupOrder, g.ID)
	}
	if g.Tags == nil {
		g.Tags = map[string]string{}
	}
	s.groups[g.ID] = g
}

// allocatePublicIP hands out addresses from a documentation-like public block.
func (s *Sim) allocatePublicIP() string {
	s.publicCounter++
	n := s.publicCounter
	return fmt.Sprintf("54.%d.%d.%d", 160+(n>>16)%32, (n>>8)%256, n%256)
}

// privateDNS is EC2's us-east-1 style internal hostname for an address.
func (s *Sim) privateDNS(ip string) string {
	host := "ip-" + strings.ReplaceAll(ip, ".", "-")
	if s.cfg.Region == "us-east-1" {
		return host + ".ec2.internal"
	}
	return host + "." + s.cfg.Region + ".compute.internal"
}

// publicDNS is EC2's public hostname for an address.
func (s *Sim) publicDNS(ip string) string {
	host := "ec2-" + strings.ReplaceAll(ip, ".", "-")
	if s.cfg.Region == "us-east-1" {
		return host + ".compute-1.amazonaws.com"
	}
	return host + "." + s.cfg.Region + ".compute.amazonaws.com"
}

// describeSubnets implements DescribeSubnets with SubnetId.N and the
// subnet-id, vpc-id, availability-zone, default-for-az, cidr-block,
// ipv6-cidr-block-association.ipv6-cidr-block, tag:<key> and tag-key filters.
func (s *Sim) describeSubnets(p params, x *xmlBuilder) *apiError {
	ids := p.list("SubnetId")
	for _, id := range ids {
		if !subnetIDPattern.MatchString(id) {
			return malformedID("InvalidSubnetID.Malformed", id, "subnet")
		}
		if _, ok := s.subnets[id]; !ok {
			return clientErr("InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist", id)
		}
	}
	x.open("subnetSet")
	for _, id := range s.subnetOrder {
		sn := s.subnets[id]
		if len(ids) > 0 && !contains(ids, id) {
			continue
		}
		fields := map[string]string{
			"subnet-id": sn.ID, "vpc-id": sn.VPCID, "availability-zone": sn.AZ,
			"default-for-az": fmt.Sprint(sn.DefaultForAZ), "cidr-block": sn.CIDR,
			"ipv6-cidr-block-association.ipv6-cidr-block": sn.IPv6CIDR,
		}
		if !resourceMatches(fields, sn.Tags, p.filters()) {
			continue
		}
		s.writeSubnet(x, sn)
	}
	x.close("subnetSet")
	return nil
}

// writeSubnet renders one subnetSet item.
func (s *Sim) writeSubnet(x *xmlBuilder, sn *Subnet) {
	x.open("item")
	x.leaf("subnetId", sn.ID)
	x.leaf("subnetArn", fmt.Sprintf("arn:aws:ec2:%s:%s:subnet/%s", s.cfg.Region, s.cfg.AccountID, sn.ID))
	x.leaf("state", "available")
	x.leaf("ownerId", s.cfg.AccountID)
	x.leaf("vpcId", sn.VPCID)
	x.leaf("cidrBlock", sn.CIDR)
	x.intLeaf("availableIpAddressCount", sn.availableIPs())
	x.leaf("availabilityZone", sn.AZ)
	x.leaf("availabilityZoneId", "use1-az"+fmt.Sprint(1+strings.Index("abcdef", sn.AZ[len(sn.AZ)-1:])))
	x.boolLeaf("defaultForAz", sn.DefaultForAZ)
	x.boolLeaf("mapPublicIpOnLaunch", sn.MapPublicIPOnLaunch)
	x.boolLeaf("assignIpv6AddressOnCreation", false)
	x.open("ipv6CidrBlockAssociationSet")
	if sn.IPv6CIDR != "" {
		x.open("item")
		x.leaf("associationId", sn.ipv6AssocID)
		x.leaf("ipv6CidrBlock", sn.IPv6CIDR)
		x.open("ipv6CidrBlockState")
		x.leaf("state", "associated")
		x.close("ipv6CidrBlockState")
		x.leaf("ipSource", "amazon")
		x.close("item")
	}
	x.close("ipv6CidrBlockAssociationSet")
	if len(sn.Tags) > 0 {
		x.tagSet(sn.Tags)
	}
	x.close("item")
}

// describeSecurityGroups implements DescribeSecurityGroups with GroupId.N,
// GroupName.N (default VPC only, as in EC2) and the group-id, group-name,
// vpc-id, tag:<key> and tag-key filters.
func (s *Sim) describeSecurityGroups(p params, x *xmlBuilder) *apiError {
	ids := p.list("GroupId")
	for _, id := range ids {
		if !groupIDPattern.MatchString(id) {
			return malformedID("InvalidGroupId.Malformed", id, "sg")
		}
		if _, ok := s.groups[id]; !ok {
			return groupsNotFound([]string{id})
		}
	}
	names := p.list("GroupName")
	for _, n := range names {
		if s.groupByName(n) == nil {
			return clientErr("InvalidGroup.NotFound", "The security group '%s' does not exist in default VPC '%s'", n, DefaultVPCID)
		}
	}
	x.open("securityGroupInfo")
	for _, id := range s.groupOrder {
		g := s.groups[id]
		if len(ids) > 0 && !contains(ids, id) {
			continue
		}
		// GroupName names groups of the default VPC only; "To describe security
		// groups in a nondefault VPC, use the group-name filter" (DescribeSecurityGroups).
		if len(names) > 0 && (!contains(names, g.Name) || g.VPCID != DefaultVPCID) {
			continue
		}
		fields := map[string]string{"group-id": g.ID, "group-name": g.Name, "vpc-id": g.VPCID, "owner-id": s.cfg.AccountID}
		if !resourceMatches(fields, g.Tags, p.filters()) {
			continue
		}
		x.open("item")
		x.leaf("ownerId", s.cfg.AccountID)
		x.leaf("groupId", g.ID)
		x.leaf("groupName", g.Name)
		x.leaf("groupDescription", g.Description)
		x.leaf("vpcId", g.VPCID)
		x.leaf("securityGroupArn", fmt.Sprintf("arn:aws:ec2:%s:%s:security-group/%s", s.cfg.Region, s.cfg.AccountID, g.ID))
		x.open("ipPermissions")
		x.close("ipPermissions")
		x.open("ipPermissionsEgress")
		x.close("ipPermissionsEgress")
		if len(g.Tags) > 0 {
			x.tagSet(g.Tags)
		}
		x.close("item")
	}
	x.close("securityGroupInfo")
	return nil
}

// groupByName finds a security group of the default VPC by name; names are
// only unique within a VPC, and EC2 resolves bare names in the default VPC.
func (s *Sim) groupByName(name string) *SecurityGroup {
	for _, id := range s.groupOrder {
		if g := s.groups[id]; g.Name == name && g.VPCID == DefaultVPCID {
			return g
		}
	}
	return nil
}

// fieldsMatch applies filters to a flat set of named fields; a filter whose
// name is not a known field matches nothing.
func fieldsMatch(fields map[string]string, filters []filter) bool {
	for _, f := range filters {
		v, ok := fields[f.Name]
		if !ok || !anyGlob(f.Values, v) {
			return false
		}
	}
	return true
}
