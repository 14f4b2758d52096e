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
	"slices"
	"time"
)

// netInterface is an elastic network interface. The simulator models each
// instance's primary interface (device index 0), created at launch and
// deleted at termination.
type netInterface struct {
	ID         string
	SubnetID   string
	VPCID      string
	AZ         string
	InstanceID string
	MAC        string
	// PrivateIPs holds the primary private IPv4 address first, then the secondaries.
	PrivateIPs      []string
	IPv6            []string
	SourceDestCheck bool
	Tags            map[string]string
	AttachTime      time.Time
}

// nicSpec is what a RunInstances request asks of the primary interface's
// addresses, validated by parseInterfaceAddresses.
type nicSpec struct {
	privateIP      string
	secondaryIPs   []string
	secondaryCount int
	ipv6           []string
	ipv6Count      int
	tags           map[string]string
}

// addressesPerInstance is how many private IPv4 addresses each launched
// instance takes from its subnet.
func (n nicSpec) addressesPerInstance() int {
	return 1 + len(n.secondaryIPs) + n.secondaryCount
}

// newLaunchInterface allocates the addresses of one instance's primary
// interface. parseInterfaceAddresses has already checked that the subnet
// has room and that requested addresses are free.
func (s *Sim) newLaunchInterface(spec *launchSpec) *netInterface {
	sn := spec.subnet
	eni := &netInterface{SubnetID: sn.ID, VPCID: sn.VPCID, AZ: sn.AZ, SourceDestCheck: true, Tags: maps.Clone(spec.nic.tags)}
	if eni.Tags == nil {
		eni.Tags = map[string]string{}
	}
	if ip := spec.nic.privateIP; ip != "" {
		sn.claimPrivateIP(ip)
		eni.PrivateIPs = append(eni.PrivateIPs, ip)
	} else {
		ip, _ := sn.allocatePrivateIP()
		eni.PrivateIPs = append(eni.PrivateIPs, ip)
	}
	for _, ip := range spec.nic.secondaryIPs {
		sn.claimPrivateIP(ip)
		eni.PrivateIPs = append(eni.PrivateIPs, ip)
	}
	for range spec.nic.secondaryCount {
		ip, _ := sn.allocatePrivateIP()
		eni.PrivateIPs = append(eni.PrivateIPs, ip)
	}
	for _, ip := range spec.nic.ipv6 {
		sn.ipv6Used[ip] = true
		eni.IPv6 = append(eni.IPv6, ip)
	}
	for range spec.nic.ipv6Count {
		eni.IPv6 = append(eni.IPv6, s.allocateIPv6(sn))
	}
	return eni
}

// registerInterface attaches a new interface to its instance and stores it.
func (s *Sim) registerInterface(eni *netInterface, r *InstanceRecord) {
	eni.ID, eni.InstanceID, eni.MAC, eni.AttachTime = r.NetworkInterfaceID, r.ID, r.MACAddress, r.LaunchTime
	n := s.network()
	n.enis[eni.ID] = eni
	n.eniOrder = append(n.eniOrder, eni.ID)
}

// primaryInterface returns an instance's primary interface, or nil once it
// has been deleted at termination.
func (s *Sim) primaryInterface(in *instance) *netInterface {
	return s.network().enis[in.NetworkInterfaceID]
}

// releaseNetwork deletes a terminated instance's primary interface: its
// addresses go back to the subnet and an associated Elastic IP is
// disassociated but stays allocated to the account, as EC2 documents for
// termination ("Elastic IP addresses", EC2 User Guide).
func (s *Sim) releaseNetwork(in *instance) {
	eni := s.primaryInterface(in)
	if eni == nil {
		return
	}
	for _, a := range s.addressesOn(eni.ID) {
		s.dropAssociation(a)
	}
	if sn := s.subnets[eni.SubnetID]; sn != nil {
		for _, ip := range eni.PrivateIPs {
			sn.releasePrivateIP(ip)
		}
		for _, ip := range eni.IPv6 {
			delete(sn.ipv6Used, ip)
		}
	}
	n := s.network()
	delete(n.enis, eni.ID)
	n.eniOrder = slices.DeleteFunc(n.eniOrder, func(id string) bool { return id == eni.ID })
}

// sourceDestCheck reports an instance's source/destination check, which is
// its primary interface's.
func (s *Sim) sourceDestCheck(in *instance) bool {
	if eni := s.primaryInterface(in); eni != nil {
		return eni.SourceDestCheck
	}
	return true
}

// lookupInterface resolves a NetworkInterfaceId parameter.
func (s *Sim) lookupInterface(id string) (*netInterface, *apiError) {
	if id == "" {
		return nil, missingParam("NetworkInterfaceId")
	}
	if !eniIDPattern.MatchString(id) {
		return nil, malformedID("InvalidNetworkInterfaceID.Malformed", id, "eni")
	}
	eni := s.network().enis[id]
	if eni == nil {
		return nil, clientErr("InvalidNetworkInterfaceID.NotFound", "The networkInterface ID '%s' does not exist", id)
	}
	return eni, nil
}
