package ec2sim

// parseNetwork resolves where a launch goes: the subnet (top-level SubnetId,
// NetworkInterface.N.SubnetId, or the default subnet of the requested or
// first AZ), its security groups, the primary interface's addresses and
// whether it gets a public IP.
func (s *Sim) parseNetwork(p params, spec *launchSpec) *apiError {
	subnetID := p.str("SubnetId")
	groupIDs := p.list("SecurityGroupId")
	groupNames := p.list("SecurityGroup")
	var publicIP *bool
	addrs, err := readTopLevelAddresses(p)
	if err != nil {
		return err
	}

	nics := p.items("NetworkInterface")
	if len(nics) > 0 {
		// EC2 rejects instance-level networking alongside interfaces.
		if subnetID != "" {
			return clientErr("InvalidParameterCombination", "Network interfaces and an instance-level subnet ID may not be specified on the same request")
		}
		if len(groupIDs) > 0 || len(groupNames) > 0 {
			return clientErr("InvalidParameterCombination", "Network interfaces and an instance-level security groups may not be specified on the same request")
		}
		if addrs.privateIP != "" {
			return clientErr("InvalidParameterCombination", "Network interfaces and an instance-level private IP address may not be specified on the same request")
		}
		if len(addrs.ipv6) > 0 || addrs.ipv6Count > 0 {
			return clientErr("InvalidParameterCombination", "Network interfaces and an instance-level IPv6 addresses may not be specified on the same request")
		}
		var primary *params
		for i := range nics {
			if nics[i].str("DeviceIndex") == "0" {
				primary = &nics[i]
			}
		}
		if primary == nil {
			return clientErr("InvalidParameterValue", "Each network interface requires a device index, and the primary network interface must have device index 0.")
		}
		if primary.str("NetworkInterfaceId") != "" {
			return clientErr("InvalidNetworkInterfaceID.NotFound", "The networkInterface ID '%s' does not exist", primary.str("NetworkInterfaceId"))
		}
		subnetID = primary.str("SubnetId")
		groupIDs = primary.list("SecurityGroupId")
		if v, ok := primary.boolean("AssociatePublicIpAddress"); ok {
			publicIP = &v
		}
		if addrs, err = readInterfaceAddresses(*primary); err != nil {
			return err
		}
	}

	az := p.str("Placement.AvailabilityZone")
	if az != "" && !contains(s.azs(), az) {
		return invalidValue("Value (%s) for parameter availabilityZone is invalid. Subnet '%s' does not exist in this region.", az, subnetID)
	}
	var subnet *Subnet
	if subnetID != "" {
		subnet = s.subnets[subnetID]
		if subnet == nil {
			return clientErr("InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist", subnetID)
		}
		if az != "" && az != subnet.AZ {
			return invalidValue("Value (%s) for parameter availabilityZone is invalid. Subnet '%s' is in the availability zone %s", az, subnetID, subnet.AZ)
		}
	} else {
		subnet = s.defaultSubnet(az)
		if subnet == nil {
			return clientErr("MissingInput", "No subnets found for the default VPC '%s'. Please specify a subnet.", DefaultVPCID)
		}
	}
	spec.subnet = subnet

	var missing []string
	for _, id := range groupIDs {
		if !groupIDPattern.MatchString(id) {
			return malformedID("InvalidGroupId.Malformed", id, "sg")
		}
		if s.groups[id] == nil {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return groupsNotFound(missing)
	}
	if len(groupNames) > 0 && subnet.VPCID != DefaultVPCID {
		// Group names only resolve in the default VPC.
		return clientErr("InvalidParameterCombination", "The parameter groupName cannot be used with the parameter subnet")
	}
	for _, n := range groupNames {
		g := s.groupByName(n)
		if g == nil {
			return clientErr("InvalidGroup.NotFound", "The security group '%s' does not exist in VPC '%s'", n, subnet.VPCID)
		}
		groupIDs = append(groupIDs, g.ID)
	}
	if len(groupIDs) == 0 {
		// Without groups, the instance gets its VPC's "default" group.
		groupIDs = s.defaultGroupOf(subnet.VPCID)
	}
	if err := s.checkGroupsInSubnetVPC(groupIDs, subnet); err != nil {
		return err
	}
	spec.groupIDs = dedupe(groupIDs)
	if err := s.parseInterfaceAddresses(addrs, spec); err != nil {
		return err
	}
	spec.publicIP = subnet.MapPublicIPOnLaunch
	if publicIP != nil {
		spec.publicIP = *publicIP
	}
	return nil
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
