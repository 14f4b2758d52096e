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

import "slices"

// This file holds the Elastic IP API (AllocateAddress, DescribeAddresses,
// AssociateAddress, DisassociateAddress, ReleaseAddress); addresses.go holds the
// addresses' state and what the rest of the emulator does to them.

// allocateAddress implements AllocateAddress for the vpc domain, with
// PublicIpv4Pool, TagSpecification (elastic-ip) and the account's quota.
func (s *Sim) allocateAddress(p params, x *xmlBuilder) *apiError {
	n := s.network()
	if d := p.str("Domain"); d != "" && d != "vpc" {
		// EC2-Classic, the "standard" domain, was retired in 2023.
		return invalidValue("Value (%s) for parameter domain is invalid. Valid values are: vpc", d)
	}
	pool := p.str("PublicIpv4Pool")
	if pool == "" {
		pool = "amazon"
	}
	if pool != "amazon" && !n.pools[pool] {
		return clientErr("InvalidPublicIpv4PoolID.NotFound", "The public IPv4 pool ID '%s' does not exist", pool)
	}
	tags := map[string]string{}
	for _, ts := range p.items("TagSpecification") {
		switch rt := ts.str("ResourceType"); rt {
		case "elastic-ip":
			merged, err := mergeTags(tags, readTags(ts, "Tag"))
			if err != nil {
				return err
			}
			tags = merged
		case "":
			return missingParam("TagSpecification.ResourceType")
		default:
			return invalidValue("'%s' is not a valid taggable resource type for this operation.", rt)
		}
	}
	if len(n.addresses) >= n.addressLimit {
		return clientErr("AddressLimitExceeded", "The maximum number of addresses has been reached.")
	}
	a := &address{AddressRecord{
		AllocationID: s.newID("eipalloc"), PublicIP: s.allocatePublicIP(), Domain: "vpc",
		PublicIPv4Pool: pool, NetworkBorderGroup: s.cfg.Region, Tags: tags,
	}}
	n.addresses[a.AllocationID] = a
	n.addrOrder = append(n.addrOrder, a.AllocationID)
	x.leaf("publicIp", a.PublicIP)
	x.leaf("domain", a.Domain)
	x.leaf("allocationId", a.AllocationID)
	x.leaf("publicIpv4Pool", a.PublicIPv4Pool)
	x.leaf("networkBorderGroup", a.NetworkBorderGroup)
	return nil
}

// addressFilterNames are the DescribeAddresses filters the simulator
// evaluates (besides tag:<key> and tag-key).
var addressFilterNames = []string{
	"allocation-id", "association-id", "domain", "instance-id", "network-border-group",
	"network-interface-id", "network-interface-owner-id", "private-ip-address", "public-ip",
}

// describeAddresses implements DescribeAddresses with AllocationId.N,
// PublicIp.N and filters.
func (s *Sim) describeAddresses(p params, x *xmlBuilder) *apiError {
	ids, ips, filters := p.list("AllocationId"), p.list("PublicIp"), p.filters()
	if err := s.checkAddressQuery(ids, ips, filters); err != nil {
		return err
	}
	n := s.network()
	x.open("addressesSet")
	for _, id := range n.addrOrder {
		a := n.addresses[id]
		if len(ids) > 0 && !contains(ids, id) || len(ips) > 0 && !contains(ips, a.PublicIP) {
			continue
		}
		if !resourceMatches(s.addressFields(a), a.Tags, filters) {
			continue
		}
		s.writeAddress(x, n, a)
	}
	x.close("addressesSet")
	return nil
}

// checkAddressQuery refuses a DescribeAddresses call that names an address that
// does not exist (by allocation ID, then by public IP) or an unknown filter.
func (s *Sim) checkAddressQuery(ids, ips []string, filters []filter) *apiError {
	for _, id := range ids {
		if _, err := s.lookupAddress(id, ""); err != nil {
			return err
		}
	}
	for _, ip := range ips {
		if _, err := s.lookupAddress("", ip); err != nil {
			return err
		}
	}
	for _, f := range filters {
		if !isTagFilter(f.Name) && !contains(addressFilterNames, f.Name) {
			return invalidValue("The filter '%s' is invalid", f.Name)
		}
	}
	return nil
}

// addressFields are the values the DescribeAddresses filters match an address by.
func (s *Sim) addressFields(a *address) map[string]string {
	fields := map[string]string{
		"allocation-id": a.AllocationID, "association-id": a.AssociationID, "domain": a.Domain,
		"instance-id": a.InstanceID, "network-border-group": a.NetworkBorderGroup,
		"network-interface-id": a.NetworkInterfaceID, "private-ip-address": a.PrivateIP, "public-ip": a.PublicIP,
	}
	if a.NetworkInterfaceID != "" {
		fields["network-interface-owner-id"] = s.cfg.AccountID
	}
	return fields
}

// writeAddress renders one addressesSet item; the association's members appear
// only while the address is associated.
func (s *Sim) writeAddress(x *xmlBuilder, n *netState, a *address) {
	x.open("item")
	x.leaf("publicIp", a.PublicIP)
	x.leaf("allocationId", a.AllocationID)
	x.leaf("domain", a.Domain)
	if a.AssociationID != "" {
		x.leaf("associationId", a.AssociationID)
		x.leafIf("instanceId", a.InstanceID)
		x.leaf("networkInterfaceId", a.NetworkInterfaceID)
		x.leaf("networkInterfaceOwnerId", s.cfg.AccountID)
		x.leaf("privateIpAddress", a.PrivateIP)
		if eni := n.enis[a.NetworkInterfaceID]; eni != nil {
			x.leaf("subnetId", eni.SubnetID)
		}
	}
	x.leaf("publicIpv4Pool", a.PublicIPv4Pool)
	x.leaf("networkBorderGroup", a.NetworkBorderGroup)
	if len(a.Tags) > 0 {
		x.tagSet(a.Tags)
	}
	x.close("item")
}

// isTagFilter reports whether a filter name is one of the tag filters.
func isTagFilter(name string) bool {
	return len(name) > 4 && name[:4] == "tag:" || name == "tag-key" || name == "tag-value"
}

// associateAddress implements AssociateAddress. The target is an instance
// (its primary interface) or an interface, and optionally one of its
// private IPs (default: the primary). Following the API reference,
// "Reassociation is automatic, but you can specify false to ensure the
// operation fails if the Elastic IP address is already associated with
// another resource"; an Elastic IP already on the target private IP is
// disassociated, and repeating an association is idempotent.
func (s *Sim) associateAddress(p params, x *xmlBuilder) *apiError {
	a, err := s.lookupAddress(p.str("AllocationId"), p.str("PublicIp"))
	if err != nil {
		return err
	}
	in, eni, err := s.associationTarget(p.str("InstanceId"), p.str("NetworkInterfaceId"))
	if err != nil {
		return err
	}
	privateIP := p.str("PrivateIpAddress")
	if privateIP == "" {
		privateIP = eni.PrivateIPs[0]
	} else if !contains(eni.PrivateIPs, privateIP) {
		return invalidValue("The private IP address %s is not assigned to network interface %s", privateIP, eni.ID)
	}
	if a.NetworkInterfaceID == eni.ID && a.PrivateIP == privateIP {
		x.leaf("associationId", a.AssociationID)
		return nil
	}
	if a.AssociationID != "" {
		if allow, ok := p.boolean("AllowReassociation"); ok && !allow {
			return clientErr("Resource.AlreadyAssociated", "resource %s is already associated with associate-id %s", a.AllocationID, a.AssociationID)
		}
		s.dropAssociation(a)
	}
	if old := s.elasticIPFor(eni.ID, privateIP); old != nil {
		s.dropAssociation(old)
	}
	n := s.network()
	a.AssociationID = s.newID("eipassoc")
	a.InstanceID, a.NetworkInterfaceID, a.PrivateIP = eni.InstanceID, eni.ID, privateIP
	n.assocs[a.AssociationID] = a.AllocationID
	if in != nil && privateIP == eni.PrivateIPs[0] {
		// The Elastic IP replaces the auto-assigned public IPv4 address, which
		// is released.
		in.PublicIP, in.PublicDNSName = a.PublicIP, s.publicDNS(a.PublicIP)
	}
	x.leaf("associationId", a.AssociationID)
	return nil
}

// associationTarget resolves what an Elastic IP is to be associated with: an
// instance (through its primary interface) or an interface (and the instance it
// is attached to, if any), which must be running or stopped.
func (s *Sim) associationTarget(instID, eniID string) (*instance, *netInterface, *apiError) {
	var in *instance
	var eni *netInterface
	var err *apiError
	switch {
	case instID != "" && eniID != "":
		return nil, nil, clientErr("InvalidParameterCombination", "You can specify either the instance ID or the network interface ID, but not both.")
	case instID != "":
		if in, err = s.lookupInstance(instID); err != nil {
			return nil, nil, err
		}
		// EC2 answers "The pending instance 'i-…' is not in a valid state for
		// this operation." for instances neither running nor stopped.
		if in.State != StateRunning && in.State != StateStopped {
			return nil, nil, clientErr("InvalidInstanceID", "The %s instance '%s' is not in a valid state for this operation.", in.State, in.ID)
		}
		eni = s.primaryInterface(in)
	case eniID != "":
		if eni, err = s.lookupInterface(eniID); err != nil {
			return nil, nil, err
		}
		in = s.instances[eni.InstanceID]
		if in != nil && in.State != StateRunning && in.State != StateStopped {
			return nil, nil, clientErr("IncorrectInstanceState", "The %s instance to which '%s' is attached is not in a valid state for this operation", in.State, eni.ID)
		}
	default:
		return nil, nil, clientErr("MissingParameter", "Either an instance ID or a network interface ID must be specified.")
	}
	if eni == nil {
		return nil, nil, clientErr("InvalidInstanceID", "The %s instance '%s' is not in a valid state for this operation.", in.State, in.ID)
	}
	return in, eni, nil
}

// disassociateAddress implements DisassociateAddress by AssociationId (or
// the deprecated PublicIp). It is idempotent, as documented: an association
// that existed and is gone already succeeds again.
func (s *Sim) disassociateAddress(p params, x *xmlBuilder) *apiError {
	n := s.network()
	id := p.str("AssociationId")
	if id == "" && p.str("PublicIp") != "" {
		a, err := s.lookupAddress("", p.str("PublicIp"))
		if err != nil {
			return err
		}
		id = a.AssociationID
		if id == "" {
			x.boolLeaf("return", true)
			return nil
		}
	}
	if id == "" {
		return missingParam("AssociationId")
	}
	if !assocIDPattern.MatchString(id) {
		return malformedID("InvalidAssociationID.Malformed", id, "eipassoc")
	}
	allocID, ok := n.assocs[id]
	if !ok {
		if n.pastAssocs[id] {
			x.boolLeaf("return", true)
			return nil
		}
		return clientErr("InvalidAssociationID.NotFound", "The association ID '%s' does not exist", id)
	}
	s.dropAssociation(n.addresses[allocID])
	x.boolLeaf("return", true)
	return nil
}

// releaseAddress implements ReleaseAddress. Per the API reference, an
// address associated in the default VPC is disassociated automatically,
// while in a nondefault VPC "You must disassociate the Elastic IP address
// before you can release it. Otherwise, Amazon EC2 returns an error
// (InvalidIPAddress.InUse)."
func (s *Sim) releaseAddress(p params, x *xmlBuilder) *apiError {
	a, err := s.lookupAddress(p.str("AllocationId"), p.str("PublicIp"))
	if err != nil {
		return err
	}
	n := s.network()
	if a.AssociationID != "" {
		if eni := n.enis[a.NetworkInterfaceID]; eni != nil && eni.VPCID != DefaultVPCID {
			// The code is documented; the message wording is the simulator's.
			return clientErr("InvalidIPAddress.InUse", "The address with allocation id [%s] is in use.", a.AllocationID)
		}
		s.dropAssociation(a)
	}
	delete(n.addresses, a.AllocationID)
	n.addrOrder = slices.DeleteFunc(n.addrOrder, func(id string) bool { return id == a.AllocationID })
	x.boolLeaf("return", true)
	return nil
}
