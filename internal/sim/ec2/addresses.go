package ec2sim

import (
	"maps"
	"slices"
)

// AddressRecord is a snapshot of one Elastic IP address.
type AddressRecord struct {
	AllocationID string
	PublicIP     string
	// Domain is always "vpc"; EC2-Classic is retired.
	Domain string
	// PublicIPv4Pool is "amazon" or the BYOIP pool the address came from.
	PublicIPv4Pool     string
	NetworkBorderGroup string
	// AssociationID, InstanceID, NetworkInterfaceID and PrivateIP describe
	// the current association; they are "" when the address is not associated.
	AssociationID      string
	InstanceID         string
	NetworkInterfaceID string
	PrivateIP          string
	Tags               map[string]string
}

// address is the live state behind an AddressRecord.
type address struct {
	AddressRecord
}

// clone deep-copies the record.
func (r AddressRecord) clone() AddressRecord {
	r.Tags = maps.Clone(r.Tags)
	return r
}

// SetAddressLimit sets the account's Elastic IP quota in the Region (five by
// default, as documented); AllocateAddress fails with AddressLimitExceeded
// once that many addresses are allocated.
func (s *Sim) SetAddressLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.network().addressLimit = n
}

// AddPublicIPv4Pool makes a BYOIP public IPv4 pool (e.g. "ipv4pool-ec2-0123456789abcdef0")
// exist, so AllocateAddress accepts it as PublicIpv4Pool.
func (s *Sim) AddPublicIPv4Pool(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.network().pools[id] = true
}

// Address returns a snapshot of one Elastic IP address by allocation id.
func (s *Sim) Address(allocationID string) (AddressRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	a, ok := s.network().addresses[allocationID]
	if !ok {
		return AddressRecord{}, false
	}
	return a.clone(), true
}

// Addresses returns snapshots of every allocated Elastic IP address in
// allocation order.
func (s *Sim) Addresses() []AddressRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	n := s.network()
	out := make([]AddressRecord, 0, len(n.addrOrder))
	for _, id := range n.addrOrder {
		out = append(out, n.addresses[id].clone())
	}
	return out
}

// addressesOn returns the Elastic IPs associated with an interface.
func (s *Sim) addressesOn(eniID string) []*address {
	n := s.network()
	var out []*address
	for _, id := range n.addrOrder {
		if a := n.addresses[id]; a.NetworkInterfaceID == eniID {
			out = append(out, a)
		}
	}
	return out
}

// elasticIPFor returns the Elastic IP associated with one private address of
// an interface, or nil.
func (s *Sim) elasticIPFor(eniID, privateIP string) *address {
	for _, a := range s.addressesOn(eniID) {
		if a.PrivateIP == privateIP {
			return a
		}
	}
	return nil
}

// dropAssociation disassociates an Elastic IP. When it was the public
// address of an instance's primary private IP, the instance loses it; an
// instance whose primary interface got a public IPv4 address at launch then
// receives a new one, as EC2 documents: "If you disassociate the Elastic IP
// address, the instance receives a new public IPv4 address" (EC2 User Guide,
// "Public IPv4 addresses"). A stopped instance gets it when it starts.
func (s *Sim) dropAssociation(a *address) {
	n := s.network()
	in := s.instances[a.InstanceID]
	eni := n.enis[a.NetworkInterfaceID]
	delete(n.assocs, a.AssociationID)
	n.pastAssocs[a.AssociationID] = true
	primary := eni != nil && len(eni.PrivateIPs) > 0 && eni.PrivateIPs[0] == a.PrivateIP
	if in != nil && primary && in.PublicIP == a.PublicIP {
		in.PublicIP, in.PublicDNSName = "", ""
		if in.publicOnStart && (in.State == StatePending || in.State == StateRunning) {
			in.PublicIP = s.allocatePublicIP()
			in.PublicDNSName = s.publicDNS(in.PublicIP)
		}
	}
	a.AssociationID, a.InstanceID, a.NetworkInterfaceID, a.PrivateIP = "", "", "", ""
}

// releaseAutoPublicIP is what stopping does to public addresses: the
// auto-assigned one is released, but an Elastic IP stays associated with an
// instance in a VPC ("Elastic IP addresses", EC2 User Guide).
func (s *Sim) releaseAutoPublicIP(in *instance) {
	if eni := s.primaryInterface(in); eni != nil && s.elasticIPFor(eni.ID, eni.PrivateIPs[0]) != nil {
		return
	}
	in.PublicIP, in.PublicDNSName = "", ""
}

// lookupAddress resolves an AllocationId parameter, falling back to the
// deprecated PublicIp.
func (s *Sim) lookupAddress(allocationID, publicIP string) (*address, *apiError) {
	n := s.network()
	if allocationID == "" && publicIP != "" {
		for _, id := range n.addrOrder {
			if n.addresses[id].PublicIP == publicIP {
				return n.addresses[id], nil
			}
		}
		return nil, clientErr("InvalidAddress.NotFound", "Address '%s' not found.", publicIP)
	}
	if allocationID == "" {
		return nil, missingParam("AllocationId")
	}
	if !allocIDPattern.MatchString(allocationID) {
		return nil, malformedID("InvalidAllocationID.Malformed", allocationID, "eipalloc")
	}
	a := n.addresses[allocationID]
	if a == nil {
		return nil, clientErr("InvalidAllocationID.NotFound", "The allocation ID '%s' does not exist", allocationID)
	}
	return a, nil
}

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
	n := s.network()
	ids := p.list("AllocationId")
	for _, id := range ids {
		if _, err := s.lookupAddress(id, ""); err != nil {
			return err
		}
	}
	ips := p.list("PublicIp")
	for _, ip := range ips {
		if _, err := s.lookupAddress("", ip); err != nil {
			return err
		}
	}
	filters := p.filters()
	for _, f := range filters {
		if !isTagFilter(f.Name) && !contains(addressFilterNames, f.Name) {
			return invalidValue("The filter '%s' is invalid", f.Name)
		}
	}
	x.open("addressesSet")
	for _, id := range n.addrOrder {
		a := n.addresses[id]
		if len(ids) > 0 && !contains(ids, id) || len(ips) > 0 && !contains(ips, a.PublicIP) {
			continue
		}
		fields := map[string]string{
			"allocation-id": a.AllocationID, "association-id": a.AssociationID, "domain": a.Domain,
			"instance-id": a.InstanceID, "network-border-group": a.NetworkBorderGroup,
			"network-interface-id": a.NetworkInterfaceID, "private-ip-address": a.PrivateIP, "public-ip": a.PublicIP,
		}
		if a.NetworkInterfaceID != "" {
			fields["network-interface-owner-id"] = s.cfg.AccountID
		}
		if !resourceMatches(fields, a.Tags, filters) {
			continue
		}
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
	x.close("addressesSet")
	return nil
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
	instID, eniID := p.str("InstanceId"), p.str("NetworkInterfaceId")
	var in *instance
	var eni *netInterface
	switch {
	case instID != "" && eniID != "":
		return clientErr("InvalidParameterCombination", "You can specify either the instance ID or the network interface ID, but not both.")
	case instID != "":
		if in, err = s.lookupInstance(instID); err != nil {
			return err
		}
		// EC2 answers "The pending instance 'i-…' is not in a valid state for
		// this operation." for instances neither running nor stopped.
		if in.State != StateRunning && in.State != StateStopped {
			return clientErr("InvalidInstanceID", "The %s instance '%s' is not in a valid state for this operation.", in.State, in.ID)
		}
		eni = s.primaryInterface(in)
	case eniID != "":
		if eni, err = s.lookupInterface(eniID); err != nil {
			return err
		}
		in = s.instances[eni.InstanceID]
		if in != nil && in.State != StateRunning && in.State != StateStopped {
			return clientErr("IncorrectInstanceState", "The %s instance to which '%s' is attached is not in a valid state for this operation", in.State, eni.ID)
		}
	default:
		return clientErr("MissingParameter", "Either an instance ID or a network interface ID must be specified.")
	}
	if eni == nil {
		return clientErr("InvalidInstanceID", "The %s instance '%s' is not in a valid state for this operation.", in.State, in.ID)
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
