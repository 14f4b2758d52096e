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

// parseNetwork resolves where a launch goes: the subnet (top-level SubnetId,
// NetworkInterface.N.SubnetId, or the default subnet of the requested or
// first AZ), its security groups, the primary interface's addresses and
// whether it gets a public IP. The checks run in the order EC2 reports them, so
// that a request with several faults gets the error EC2 would give.
func (s *Sim) parseNetwork(p params, spec *launchSpec) *apiError {
	req, err := readLaunchNetwork(p)
	if err != nil {
		return err
	}
	subnet, err := s.launchSubnet(p.str("Placement.AvailabilityZone"), req.subnetID)
	if err != nil {
		return err
	}
	spec.subnet = subnet
	groupIDs, err := s.launchGroups(req.groupIDs, req.groupNames, subnet)
	if err != nil {
		return err
	}
	spec.groupIDs = groupIDs
	if err := s.parseInterfaceAddresses(req.addrs, spec); err != nil {
		return err
	}
	spec.publicIP = subnet.MapPublicIPOnLaunch
	if req.publicIP != nil {
		spec.publicIP = *req.publicIP
	}
	return nil
}

// launchNetwork is what a RunInstances request asks of the network, read either
// from the instance-level parameters or from its primary network interface.
type launchNetwork struct {
	subnetID   string
	groupIDs   []string
	groupNames []string
	// publicIP is the primary interface's AssociatePublicIpAddress, or nil for the
	// subnet's default.
	publicIP *bool
	addrs    addressRequest
}

// instanceLevelConflicts are the instance-level settings EC2 refuses next to
// NetworkInterface.N, each with the message it answers; the first one set wins.
var instanceLevelConflicts = []struct {
	set     func(launchNetwork) bool
	message string
}{
	{func(n launchNetwork) bool { return n.subnetID != "" },
		"Network interfaces and an instance-level subnet ID may not be specified on the same request"},
	{func(n launchNetwork) bool { return len(n.groupIDs) > 0 || len(n.groupNames) > 0 },
		"Network interfaces and an instance-level security groups may not be specified on the same request"},
	{func(n launchNetwork) bool { return n.addrs.privateIP != "" },
		"Network interfaces and an instance-level private IP address may not be specified on the same request"},
	{func(n launchNetwork) bool { return len(n.addrs.ipv6) > 0 || n.addrs.ipv6Count > 0 },
		"Network interfaces and an instance-level IPv6 addresses may not be specified on the same request"},
}

// readLaunchNetwork reads the instance-level network parameters and, when the
// request names interfaces, replaces them with the primary interface's: EC2 takes
// one or the other, never both.
func readLaunchNetwork(p params) (launchNetwork, *apiError) {
	n := launchNetwork{subnetID: p.str("SubnetId"), groupIDs: p.list("SecurityGroupId"), groupNames: p.list("SecurityGroup")}
	var err *apiError
	if n.addrs, err = readTopLevelAddresses(p); err != nil {
		return n, err
	}
	nics := p.items("NetworkInterface")
	if len(nics) == 0 {
		return n, nil
	}
	for _, c := range instanceLevelConflicts {
		if c.set(n) {
			return n, clientErr("InvalidParameterCombination", "%s", c.message)
		}
	}
	var primary *params
	for i := range nics {
		if nics[i].str("DeviceIndex") == "0" {
			primary = &nics[i]
		}
	}
	if primary == nil {
		return n, clientErr("InvalidParameterValue", "Each network interface requires a device index, and the primary network interface must have device index 0.")
	}
	if primary.str("NetworkInterfaceId") != "" {
		return n, clientErr("InvalidNetworkInterfaceID.NotFound", "The networkInterface ID '%s' does not exist", primary.str("NetworkInterfaceId"))
	}
	n.subnetID = primary.str("SubnetId")
	n.groupIDs = primary.list("SecurityGroupId")
	if v, ok := primary.boolean("AssociatePublicIpAddress"); ok {
		n.publicIP = &v
	}
	if n.addrs, err = readInterfaceAddresses(*primary); err != nil {
		return n, err
	}
	return n, nil
}

// launchSubnet finds the subnet a launch goes to: the one named, which must be in
// the requested AZ if there is one, or else the default subnet of that AZ (of the
// first AZ when none is requested).
func (s *Sim) launchSubnet(az, subnetID string) (*Subnet, *apiError) {
	if az != "" && !contains(s.azs(), az) {
		return nil, invalidValue("Value (%s) for parameter availabilityZone is invalid. Subnet '%s' does not exist in this region.", az, subnetID)
	}
	if subnetID == "" {
		subnet := s.defaultSubnet(az)
		if subnet == nil {
			return nil, clientErr("MissingInput", "No subnets found for the default VPC '%s'. Please specify a subnet.", DefaultVPCID)
		}
		return subnet, nil
	}
	subnet := s.subnets[subnetID]
	if subnet == nil {
		return nil, clientErr("InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist", subnetID)
	}
	if az != "" && az != subnet.AZ {
		return nil, invalidValue("Value (%s) for parameter availabilityZone is invalid. Subnet '%s' is in the availability zone %s", az, subnetID, subnet.AZ)
	}
	return subnet, nil
}

// launchGroups resolves a launch's security groups, by ID and by name, into IDs in
// the subnet's VPC; with none, the VPC's "default" group.
func (s *Sim) launchGroups(groupIDs, groupNames []string, subnet *Subnet) ([]string, *apiError) {
	var missing []string
	for _, id := range groupIDs {
		if !groupIDPattern.MatchString(id) {
			return nil, malformedID("InvalidGroupId.Malformed", id, "sg")
		}
		if s.groups[id] == nil {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, groupsNotFound(missing)
	}
	if len(groupNames) > 0 && subnet.VPCID != DefaultVPCID {
		// Group names only resolve in the default VPC.
		return nil, clientErr("InvalidParameterCombination", "The parameter groupName cannot be used with the parameter subnet")
	}
	for _, n := range groupNames {
		g := s.groupByName(n)
		if g == nil {
			return nil, clientErr("InvalidGroup.NotFound", "The security group '%s' does not exist in VPC '%s'", n, subnet.VPCID)
		}
		groupIDs = append(groupIDs, g.ID)
	}
	if len(groupIDs) == 0 {
		// Without groups, the instance gets its VPC's "default" group.
		groupIDs = s.defaultGroupOf(subnet.VPCID)
	}
	if err := s.checkGroupsInSubnetVPC(groupIDs, subnet); err != nil {
		return nil, err
	}
	return dedupe(groupIDs), nil
}

// defaultSubnet picks the default subnet of az, or of the first AZ when az is "".
func (s *Sim) defaultSubnet(az string) *Subnet {
	for _, id := range s.subnetOrder {
		sn := s.subnets[id]
		if sn.DefaultForAZ && (az == "" || sn.AZ == az) {
			return sn
		}
	}
	return nil
}

// dedupe removes repeated values, keeping first occurrences in order.
func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// defaultGroupOf returns the id of a VPC's security group named "default",
// which EC2 creates with every VPC, or nothing if the test did not add one.
func (s *Sim) defaultGroupOf(vpcID string) []string {
	for _, id := range s.groupOrder {
		if g := s.groups[id]; g.VPCID == vpcID && g.Name == "default" {
			return []string{id}
		}
	}
	return nil
}
