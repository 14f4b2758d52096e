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

// addressRequest is the addressing part of RunInstances as sent, either at
// the top level or on the primary NetworkInterface.
type addressRequest struct {
	privateIP      string
	secondaryIPs   []string
	secondaryCount int
	hasSecondary   bool
	ipv6           []string
	ipv6Count      int
}

// readTopLevelAddresses reads RunInstances' instance-level PrivateIpAddress,
// Ipv6AddressCount and Ipv6Address.N.Ipv6Address.
func readTopLevelAddresses(p params) (addressRequest, *apiError) {
	req := addressRequest{privateIP: p.str("PrivateIpAddress")}
	for _, a := range p.items("Ipv6Address") {
		req.ipv6 = append(req.ipv6, a.str("Ipv6Address"))
	}
	return req, readIPv6Count(p, &req)
}

// readInterfaceAddresses reads an InstanceNetworkInterfaceSpecification's
// PrivateIpAddress, PrivateIpAddresses.N, SecondaryPrivateIpAddressCount,
// Ipv6AddressCount and Ipv6Addresses.N.
func readInterfaceAddresses(nic params) (addressRequest, *apiError) {
	req := addressRequest{privateIP: nic.str("PrivateIpAddress")}
	for _, a := range nic.items("PrivateIpAddresses") {
		ip := a.str("PrivateIpAddress")
		if primary, _ := a.boolean("Primary"); primary {
			if req.privateIP != "" && req.privateIP != ip {
				return req, clientErr("InvalidParameterCombination", "Only one primary private IP address can be specified.")
			}
			req.privateIP = ip
			continue
		}
		req.secondaryIPs = append(req.secondaryIPs, ip)
	}
	if nic.has("SecondaryPrivateIpAddressCount") {
		n, ok := nic.integer("SecondaryPrivateIpAddressCount")
		if !ok || n < 0 {
			return req, invalidValue("Value (%s) for parameter secondaryPrivateIpAddressCount is invalid.", nic.str("SecondaryPrivateIpAddressCount"))
		}
		req.secondaryCount, req.hasSecondary = n, true
	}
	for _, a := range nic.items("Ipv6Addresses") {
		req.ipv6 = append(req.ipv6, a.str("Ipv6Address"))
	}
	return req, readIPv6Count(nic, &req)
}

// readIPv6Count reads Ipv6AddressCount, which excludes explicit addresses.
func readIPv6Count(p params, req *addressRequest) *apiError {
	if !p.has("Ipv6AddressCount") {
		return nil
	}
	n, ok := p.integer("Ipv6AddressCount")
	if !ok || n < 0 {
		return invalidValue("Value (%s) for parameter ipv6AddressCount is invalid.", p.str("Ipv6AddressCount"))
	}
	if len(req.ipv6) > 0 {
		return clientErr("InvalidParameterCombination", "IPv6 addresses and IPv6 address count may not be specified on the same request")
	}
	req.ipv6Count = n
	return nil
}

// parseInterfaceAddresses validates the requested addresses against the
// launch subnet and records them in spec.nic. Requested IPv4 addresses must
// be host addresses of the subnet that AWS does not reserve (the first four
// and the last) and not in use; the subnet must have room for every
// instance's addresses; IPv6 needs an IPv6 CIDR on the subnet.
func (s *Sim) parseInterfaceAddresses(req addressRequest, spec *launchSpec) *apiError {
	sn := spec.subnet
	fixed := append([]string(nil), req.secondaryIPs...)
	if req.privateIP != "" {
		fixed = append([]string{req.privateIP}, fixed...)
	}
	if (len(fixed) > 0 || len(req.ipv6) > 0) && spec.count > 1 {
		// Fixed addresses can belong to one interface only. EC2's wording for
		// this case is not documented; the code is its usual one for
		// conflicting parameters.
		return clientErr("InvalidParameterCombination", "Private IP addresses and IPv6 addresses may only be specified when launching one instance")
	}
	seen := map[string]bool{}
	for _, ip := range fixed {
		if _, ok := sn.hostOffset(ip); !ok {
			return invalidValue("Address %s does not fall within the subnet's address range", ip)
		}
		if seen[ip] || sn.privateIPInUse(ip) {
			return clientErr("InvalidIPAddress.InUse", "Address %s is in use.", ip)
		}
		seen[ip] = true
	}
	if len(req.ipv6) > 0 || req.ipv6Count > 0 {
		if sn.IPv6CIDR == "" {
			// The code is EC2's generic one; the exact wording EC2 uses here is
			// not documented, so the message only names the cause.
			return invalidValue("The subnet '%s' does not have an IPv6 CIDR block associated with it, so IPv6 addresses cannot be assigned.", sn.ID)
		}
	}
	var ipv6 []string
	for _, raw := range req.ipv6 {
		ip := normalizeIPv6(raw)
		if ip == "" || !sn.inIPv6CIDR(ip) {
			return invalidValue("Address %s does not fall within the subnet's address range", raw)
		}
		if seen[ip] || sn.ipv6Used[ip] {
			return clientErr("InvalidIPAddress.InUse", "Address %s is in use.", raw)
		}
		seen[ip] = true
		ipv6 = append(ipv6, ip)
	}
	spec.nic = nicSpec{privateIP: req.privateIP, secondaryIPs: req.secondaryIPs, secondaryCount: req.secondaryCount, ipv6: ipv6, ipv6Count: req.ipv6Count}
	if sn.availableIPs() < spec.count*spec.nic.addressesPerInstance() {
		return clientErr("InsufficientFreeAddressesInSubnet", "The specified subnet does not have enough free addresses to satisfy the request.")
	}
	return nil
}

// checkGroupsInSubnetVPC refuses security groups of another VPC than the
// launch subnet's, with EC2's RunInstances error.
func (s *Sim) checkGroupsInSubnetVPC(groupIDs []string, sn *Subnet) *apiError {
	for _, id := range groupIDs {
		if g := s.groups[id]; g != nil && g.VPCID != sn.VPCID {
			return clientErr("InvalidParameter", "Security group %s and subnet %s belong to different networks.", id, sn.ID)
		}
	}
	return nil
}

// checkGroupsInVPC refuses security groups of another VPC than vpcID, as
// ModifyInstanceAttribute and ModifyNetworkInterfaceAttribute do.
func (s *Sim) checkGroupsInVPC(groupIDs []string, vpcID string) *apiError {
	for _, id := range groupIDs {
		if g := s.groups[id]; g != nil && g.VPCID != vpcID {
			return clientErr("InvalidGroup.NotFound", "You have specified two resources that belong to different networks.")
		}
	}
	return nil
}
