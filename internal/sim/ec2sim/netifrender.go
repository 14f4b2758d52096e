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

// writeInstanceInterface renders a DescribeInstances networkInterfaceSet
// item. InstanceNetworkInterface has no tagSet and its association carries
// no allocation or association id; DescribeNetworkInterfaces shows those.
func (s *Sim) writeInstanceInterface(x *xmlBuilder, r *InstanceRecord, eni *netInterface) {
	x.open("item")
	x.leaf("networkInterfaceId", eni.ID)
	x.leaf("subnetId", eni.SubnetID)
	x.leaf("vpcId", eni.VPCID)
	x.leaf("description", "")
	x.leaf("ownerId", s.cfg.AccountID)
	x.leaf("status", "in-use")
	x.leaf("macAddress", eni.MAC)
	x.leaf("privateIpAddress", eni.PrivateIPs[0])
	x.leaf("privateDnsName", s.privateDNS(eni.PrivateIPs[0]))
	x.boolLeaf("sourceDestCheck", eni.SourceDestCheck)
	x.open("groupSet")
	for _, g := range r.SecurityGroupIDs {
		s.writeGroup(x, g)
	}
	x.close("groupSet")
	x.open("attachment")
	x.leaf("attachmentId", attachmentID(eni))
	x.intLeaf("deviceIndex", 0)
	x.leaf("status", "attached")
	x.timeLeaf("attachTime", eni.AttachTime)
	x.boolLeaf("deleteOnTermination", true)
	x.intLeaf("networkCardIndex", 0)
	x.close("attachment")
	s.writeAddresses(x, r, eni, false)
	x.close("item")
}

// writeIPAssociation renders the public address of one private IP, if it
// has one: an Elastic IP (owned by the account, with its allocation and
// association ids when full) or, on the primary IP, the auto-assigned
// public address (owned by "amazon").
func (s *Sim) writeIPAssociation(x *xmlBuilder, r *InstanceRecord, eni *netInterface, privateIP string, full bool) {
	if a := s.elasticIPFor(eni.ID, privateIP); a != nil {
		x.open("association")
		if full {
			x.leaf("allocationId", a.AllocationID)
			x.leaf("associationId", a.AssociationID)
		}
		x.leaf("ipOwnerId", s.cfg.AccountID)
		x.leaf("publicDnsName", s.publicDNS(a.PublicIP))
		x.leaf("publicIp", a.PublicIP)
		x.close("association")
		return
	}
	if r != nil && r.PublicIP != "" && privateIP == eni.PrivateIPs[0] {
		x.open("association")
		x.leaf("ipOwnerId", "amazon")
		x.leaf("publicDnsName", r.PublicDNSName)
		x.leaf("publicIp", r.PublicIP)
		x.close("association")
	}
}

// writeIPv6Set renders ipv6AddressesSet.
func writeIPv6Set(x *xmlBuilder, eni *netInterface) {
	x.open("ipv6AddressesSet")
	for _, ip := range eni.IPv6 {
		x.open("item")
		x.leaf("ipv6Address", ip)
		x.boolLeaf("isPrimaryIpv6", false)
		x.close("item")
	}
	x.close("ipv6AddressesSet")
}

// attachmentID derives the interface's attachment id from its own id.
func attachmentID(eni *netInterface) string { return "eni-attach-" + eni.ID[4:] }

// writeInterface renders a DescribeNetworkInterfaces networkInterfaceSet item.
func (s *Sim) writeInterface(x *xmlBuilder, eni *netInterface) {
	var r *InstanceRecord
	if in := s.instances[eni.InstanceID]; in != nil {
		r = &in.InstanceRecord
	}
	x.open("item")
	x.leaf("networkInterfaceId", eni.ID)
	x.leaf("subnetId", eni.SubnetID)
	x.leaf("vpcId", eni.VPCID)
	x.leaf("availabilityZone", eni.AZ)
	x.leaf("description", "")
	x.leaf("ownerId", s.cfg.AccountID)
	x.boolLeaf("requesterManaged", false)
	x.leaf("status", "in-use")
	x.leaf("macAddress", eni.MAC)
	x.leaf("privateIpAddress", eni.PrivateIPs[0])
	x.leaf("privateDnsName", s.privateDNS(eni.PrivateIPs[0]))
	x.boolLeaf("sourceDestCheck", eni.SourceDestCheck)
	x.open("groupSet")
	if r != nil {
		for _, g := range r.SecurityGroupIDs {
			s.writeGroup(x, g)
		}
	}
	x.close("groupSet")
	if r != nil {
		x.open("attachment")
		x.leaf("attachmentId", attachmentID(eni))
		x.leaf("instanceId", r.ID)
		x.leaf("instanceOwnerId", s.cfg.AccountID)
		x.intLeaf("deviceIndex", 0)
		x.intLeaf("networkCardIndex", 0)
		x.leaf("status", "attached")
		x.timeLeaf("attachTime", eni.AttachTime)
		x.boolLeaf("deleteOnTermination", true)
		x.close("attachment")
	}
	s.writeAddresses(x, r, eni, true)
	x.tagSet(eni.Tags)
	x.close("item")
}

// writeAddresses renders an interface's addresses: the primary address's association,
// every private address with its own, the IPv6 addresses and the interface type. full
// selects DescribeNetworkInterfaces' association shape (with the allocation and
// association IDs) over DescribeInstances' (without them).
func (s *Sim) writeAddresses(x *xmlBuilder, r *InstanceRecord, eni *netInterface, full bool) {
	s.writeIPAssociation(x, r, eni, eni.PrivateIPs[0], full)
	x.open("privateIpAddressesSet")
	for i, ip := range eni.PrivateIPs {
		x.open("item")
		x.leaf("privateIpAddress", ip)
		x.leaf("privateDnsName", s.privateDNS(ip))
		x.boolLeaf("primary", i == 0)
		s.writeIPAssociation(x, r, eni, ip, full)
		x.close("item")
	}
	x.close("privateIpAddressesSet")
	writeIPv6Set(x, eni)
	x.leaf("interfaceType", "interface")
}
