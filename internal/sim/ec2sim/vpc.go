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
	"encoding/binary"
	"fmt"
	"maps"
	"net/netip"
)

// VPC is a virtual private cloud that subnets and security groups belong to.
type VPC struct {
	ID   string
	CIDR string
}

// netState holds the VPC networking model: VPCs, network interfaces and
// Elastic IP addresses. It lives in one Sim field so the networking code
// stays out of the shared Sim struct.
type netState struct {
	vpcs      map[string]*VPC
	enis      map[string]*netInterface
	eniOrder  []string
	addresses map[string]*address
	addrOrder []string
	// assocs maps an Elastic IP association id to its allocation id.
	assocs map[string]string
	// pastAssocs remembers ended associations, so DisassociateAddress stays idempotent.
	pastAssocs map[string]bool
	// pools are the BYOIP public IPv4 pools AllocateAddress accepts besides "amazon".
	pools map[string]bool
	// addressLimit is the account's Elastic IP quota in the Region.
	addressLimit int
	ipv6Seq      uint64
}

// defaultAddressLimit is EC2's default Elastic IP quota: "By default, all AWS
// accounts have a quota of five (5) Elastic IP addresses per Region" (EC2 User
// Guide, "Elastic IP address quota").
const defaultAddressLimit = 5

// network returns the networking state, creating it (with the default VPC)
// on first use.
func (s *Sim) network() *netState {
	if s.net == nil {
		s.net = &netState{
			vpcs:         map[string]*VPC{DefaultVPCID: {ID: DefaultVPCID, CIDR: "172.31.0.0/16"}},
			enis:         map[string]*netInterface{},
			addresses:    map[string]*address{},
			assocs:       map[string]string{},
			pastAssocs:   map[string]bool{},
			pools:        map[string]bool{},
			addressLimit: defaultAddressLimit,
		}
	}
	return s.net
}

// AddVPC adds a VPC with an IPv4 CIDR block such as "10.0.0.0/16". It panics
// on a malformed CIDR, which is a bug in the calling test.
func (s *Sim) AddVPC(id, cidr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := mustPrefix4(cidr)
	s.network().vpcs[id] = &VPC{ID: id, CIDR: p.String()}
}

// AddSubnetInVPC adds a non-default subnet of vpcID in az with any IPv4 CIDR
// inside the VPC's block (a /24, a /28, ...). Private IPs are allocated from
// it, skipping the addresses AWS reserves. It panics when the VPC does not
// exist or the CIDR does not fit in it.
func (s *Sim) AddSubnetInVPC(id, vpcID, az, cidr string, tags map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vpc := s.network().vpcs[vpcID]
	if vpc == nil {
		panic(fmt.Sprintf("ec2sim: VPC %s does not exist", vpcID))
	}
	p := mustPrefix4(cidr)
	vp := mustPrefix4(vpc.CIDR)
	if !vp.Contains(p.Addr()) || p.Bits() < vp.Bits() {
		panic(fmt.Sprintf("ec2sim: subnet CIDR %s is not inside VPC %s (%s)", cidr, vpcID, vpc.CIDR))
	}
	sn := newSubnet(id, vpcID, az, p, false)
	sn.Tags = maps.Clone(tags)
	s.storeSubnet(sn)
}

// SetSubnetIPv6CIDR associates an IPv6 /64 such as "2600:1f18:abcd:1200::/64"
// with a subnet, so launches into it can request IPv6 addresses.
func (s *Sim) SetSubnetIPv6CIDR(subnetID, cidr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sn := s.subnets[subnetID]
	if sn == nil {
		panic(fmt.Sprintf("ec2sim: subnet %s does not exist", subnetID))
	}
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is6() || p.Bits() != 64 {
		panic(fmt.Sprintf("ec2sim: %q is not an IPv6 /64", cidr))
	}
	sn.IPv6CIDR = p.Masked().String()
	sn.ipv6AssocID = "subnet-cidr-assoc-" + s.newID("x")[2:]
}

// AddSecurityGroupInVPC adds a security group to vpcID with tags.
func (s *Sim) AddSecurityGroupInVPC(id, name, vpcID string, tags map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.network().vpcs[vpcID] == nil {
		panic(fmt.Sprintf("ec2sim: VPC %s does not exist", vpcID))
	}
	s.putGroup(&SecurityGroup{ID: id, Name: name, Description: name, VPCID: vpcID, Tags: maps.Clone(tags)})
}

// mustPrefix4 parses an IPv4 CIDR, masking host bits.
func mustPrefix4(cidr string) netip.Prefix {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() || p.Bits() > 28 {
		// AWS subnets range from /16 to /28; anything smaller has no usable host.
		panic(fmt.Sprintf("ec2sim: %q is not an IPv4 CIDR between /0 and /28", cidr))
	}
	return p.Masked()
}

// newSubnet builds a subnet over prefix p with no addresses in use.
func newSubnet(id, vpcID, az string, p netip.Prefix, isDefault bool) *Subnet {
	a := p.Addr().As4()
	return &Subnet{
		ID: id, VPCID: vpcID, AZ: az, CIDR: p.String(), DefaultForAZ: isDefault, MapPublicIPOnLaunch: isDefault,
		Tags: map[string]string{}, base: binary.BigEndian.Uint32(a[:]), size: 1 << (32 - p.Bits()),
		used: map[int]bool{}, ipv6Used: map[string]bool{},
	}
}

// storeSubnet stores a subnet, keeping insertion order.
func (s *Sim) storeSubnet(sn *Subnet) {
	if sn.Tags == nil {
		sn.Tags = map[string]string{}
	}
	if _, ok := s.subnets[sn.ID]; !ok {
		s.subnetOrder = append(s.subnetOrder, sn.ID)
	}
	s.subnets[sn.ID] = sn
}

// reservedHead is how many addresses at the start of every subnet AWS keeps
// (network address, VPC router, DNS, future use); the last address is also
// reserved ("Subnet CIDR blocks", Amazon VPC User Guide).
const reservedHead = 4

// availableIPs is the subnet's availableIpAddressCount: every address minus
// the five AWS reserves and those in use.
func (sn *Subnet) availableIPs() int { return sn.size - reservedHead - 1 - len(sn.used) }

// hostOffset locates ip in the subnet; ok is false for addresses outside it
// or reserved by AWS, which cannot be assigned.
func (sn *Subnet) hostOffset(ip string) (int, bool) {
	a, err := netip.ParseAddr(ip)
	if err != nil || !a.Is4() {
		return 0, false
	}
	b := a.As4()
	off := int(binary.BigEndian.Uint32(b[:]) - sn.base)
	if binary.BigEndian.Uint32(b[:]) < sn.base || off < reservedHead || off >= sn.size-1 {
		return 0, false
	}
	return off, true
}

// hostIP renders the address at offset off.
func (sn *Subnet) hostIP(off int) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], sn.base+uint32(off))
	return netip.AddrFrom4(b).String()
}

// allocatePrivateIP takes the lowest free host address; ok is false when the
// subnet is full.
func (sn *Subnet) allocatePrivateIP() (string, bool) {
	for off := reservedHead; off < sn.size-1; off++ {
		if !sn.used[off] {
			sn.used[off] = true
			return sn.hostIP(off), true
		}
	}
	return "", false
}

// claimPrivateIP marks a specific, already validated address as in use.
func (sn *Subnet) claimPrivateIP(ip string) {
	if off, ok := sn.hostOffset(ip); ok {
		sn.used[off] = true
	}
}

// releasePrivateIP returns an address to the subnet.
func (sn *Subnet) releasePrivateIP(ip string) {
	if off, ok := sn.hostOffset(ip); ok {
		delete(sn.used, off)
	}
}

// privateIPInUse reports whether ip is assigned to an interface.
func (sn *Subnet) privateIPInUse(ip string) bool {
	off, ok := sn.hostOffset(ip)
	return ok && sn.used[off]
}

// inIPv6CIDR reports whether ip is an address of the subnet's IPv6 /64.
func (sn *Subnet) inIPv6CIDR(ip string) bool {
	if sn.IPv6CIDR == "" {
		return false
	}
	a, err := netip.ParseAddr(ip)
	return err == nil && a.Is6() && netip.MustParsePrefix(sn.IPv6CIDR).Contains(a)
}

// allocateIPv6 hands out the next unused address of the subnet's /64,
// starting a little above the prefix so results look like EC2's.
func (s *Sim) allocateIPv6(sn *Subnet) string {
	p := netip.MustParsePrefix(sn.IPv6CIDR)
	b := p.Addr().As16()
	for {
		s.network().ipv6Seq++
		var out [16]byte
		copy(out[:8], b[:8])
		binary.BigEndian.PutUint64(out[8:], 0x1000+s.net.ipv6Seq)
		ip := netip.AddrFrom16(out).String()
		if !sn.ipv6Used[ip] {
			sn.ipv6Used[ip] = true
			return ip
		}
	}
}

// normalizeIPv6 returns the canonical text of an IPv6 address, or "" if it is not one.
func normalizeIPv6(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil || !a.Is6() {
		return ""
	}
	return a.String()
}
