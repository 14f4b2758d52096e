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
	"maps"
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
