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

// assignPrivateIpAddresses implements AssignPrivateIpAddresses (EC2 API reference):
// secondary private IPv4 addresses for an interface, either named (PrivateIpAddress.N,
// which must lie in the subnet and be free) or a count the subnet picks
// (SecondaryPrivateIpAddressCount); one of the two is required. The codes for an
// address outside the subnet or in use follow RunInstances'; a subnet without room
// answers InsufficientFreeAddressesInSubnet, as documented for launches.
func (s *Sim) assignPrivateIpAddresses(p params, x *xmlBuilder) *apiError {
	eni, err := s.lookupInterface(p.str("NetworkInterfaceId"))
	if err != nil {
		return err
	}
	sn := s.subnets[eni.SubnetID]
	if sn == nil {
		return clientErr("InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist", eni.SubnetID)
	}
	named := p.list("PrivateIpAddress")
	count, hasCount := p.integer("SecondaryPrivateIpAddressCount")
	switch {
	case len(named) == 0 && !hasCount:
		return missingParam("PrivateIpAddress or SecondaryPrivateIpAddressCount")
	case len(named) > 0 && hasCount:
		return clientErr("InvalidParameterCombination", "You may specify either private IP addresses or a count of secondary private IP addresses, not both.")
	case hasCount && count < 1:
		return invalidValue("Value (%d) for parameter secondaryPrivateIpAddressCount is invalid. Expected a positive integer.", count)
	}
	for _, ip := range named {
		if _, ok := sn.hostOffset(ip); !ok {
			return invalidValue("Address %s does not fall within the subnet's address range", ip)
		}
		if sn.privateIPInUse(ip) {
			return clientErr("InvalidIPAddress.InUse", "Address %s is in use.", ip)
		}
	}
	want := len(named) + count
	if sn.availableIPs() < want {
		return clientErr("InsufficientFreeAddressesInSubnet", "There are not enough free addresses in subnet '%s' to satisfy the requested number of instances.", sn.ID)
	}
	var assigned []string
	for _, ip := range named {
		sn.claimPrivateIP(ip)
		assigned = append(assigned, ip)
	}
	for range count {
		ip, _ := sn.allocatePrivateIP()
		assigned = append(assigned, ip)
	}
	eni.PrivateIPs = append(eni.PrivateIPs, assigned...)
	x.leaf("networkInterfaceId", eni.ID)
	x.open("assignedPrivateIpAddressesSet")
	for _, ip := range assigned {
		x.open("item")
		x.leaf("privateIpAddress", ip)
		x.close("item")
	}
	x.close("assignedPrivateIpAddressesSet")
	return nil
}

// unassignPrivateIpAddresses implements UnassignPrivateIpAddresses (EC2 API
// reference): it releases secondary addresses of an interface back to the subnet. The
// primary address cannot be unassigned, and every address must be the interface's;
// the codes and messages for those refusals are our guesses (InvalidParameterValue).
func (s *Sim) unassignPrivateIpAddresses(p params, x *xmlBuilder) *apiError {
	eni, err := s.lookupInterface(p.str("NetworkInterfaceId"))
	if err != nil {
		return err
	}
	ips := p.list("PrivateIpAddress")
	if len(ips) == 0 {
		return missingParam("PrivateIpAddress")
	}
	for _, ip := range ips {
		switch i := slices.Index(eni.PrivateIPs, ip); {
		case i == 0:
			return invalidValue("The primary private IP address %s of %s cannot be unassigned.", ip, eni.ID)
		case i < 0:
			return invalidValue("Some of the specified addresses are not assigned to interface %s: %s", eni.ID, ip)
		}
	}
	sn := s.subnets[eni.SubnetID]
	eni.PrivateIPs = slices.DeleteFunc(eni.PrivateIPs, func(ip string) bool {
		if slices.Contains(ips, ip) {
			if sn != nil {
				sn.releasePrivateIP(ip)
			}
			return true
		}
		return false
	})
	x.boolLeaf("return", true)
	return nil
}
