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

import "strings"

// interfaceFilterNames are the DescribeNetworkInterfaces filters the
// simulator evaluates (besides tag:<key>, tag-key and tag-value).
var interfaceFilterNames = []string{
	"attachment.instance-id", "attachment.status", "availability-zone", "network-interface-id",
	"private-ip-address", "addresses.private-ip-address", "association.public-ip", "association.allocation-id",
	"source-dest-check", "status", "subnet-id", "vpc-id", "mac-address", "owner-id", "group-id",
}

// describeNetworkInterfaces implements DescribeNetworkInterfaces with
// NetworkInterfaceId.N and filters. Multi-valued attributes (secondary
// addresses, groups) match when any of their values does.
func (s *Sim) describeNetworkInterfaces(p params, x *xmlBuilder) *apiError {
	n := s.network()
	ids := p.list("NetworkInterfaceId")
	var missing []string
	for _, id := range ids {
		if !eniIDPattern.MatchString(id) {
			return malformedID("InvalidNetworkInterfaceID.Malformed", id, "eni")
		}
		if n.enis[id] == nil {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return clientErr("InvalidNetworkInterfaceID.NotFound", "The networkInterface ID '%s' does not exist", strings.Join(missing, ", "))
	}
	filters := p.filters()
	for _, f := range filters {
		if !isTagFilter(f.Name) && !contains(interfaceFilterNames, f.Name) {
			return invalidValue("The filter '%s' is invalid", f.Name)
		}
	}
	x.open("networkInterfaceSet")
	for _, id := range n.eniOrder {
		eni := n.enis[id]
		if len(ids) > 0 && !contains(ids, id) {
			continue
		}
		if !s.interfaceMatches(eni, filters) {
			continue
		}
		s.writeInterface(x, eni)
	}
	x.close("networkInterfaceSet")
	return nil
}

// interfaceMatches evaluates filters against an interface; each filter is
// tried against every value of a multi-valued attribute.
func (s *Sim) interfaceMatches(eni *netInterface, filters []filter) bool {
	fields := map[string][]string{
		"attachment.instance-id": {eni.InstanceID}, "attachment.status": {"attached"},
		"availability-zone": {eni.AZ}, "network-interface-id": {eni.ID},
		"private-ip-address": eni.PrivateIPs, "addresses.private-ip-address": eni.PrivateIPs,
		"source-dest-check": {boolString(eni.SourceDestCheck)}, "status": {"in-use"},
		"subnet-id": {eni.SubnetID}, "vpc-id": {eni.VPCID}, "mac-address": {eni.MAC}, "owner-id": {s.cfg.AccountID},
	}
	for _, a := range s.addressesOn(eni.ID) {
		fields["association.public-ip"] = append(fields["association.public-ip"], a.PublicIP)
		fields["association.allocation-id"] = append(fields["association.allocation-id"], a.AllocationID)
	}
	if in := s.instances[eni.InstanceID]; in != nil {
		fields["group-id"] = in.SecurityGroupIDs
		if in.PublicIP != "" && s.elasticIPFor(eni.ID, eni.PrivateIPs[0]) == nil {
			fields["association.public-ip"] = append(fields["association.public-ip"], in.PublicIP)
		}
	}
	for _, f := range filters {
		if isTagFilter(f.Name) {
			if !resourceMatches(nil, eni.Tags, []filter{f}) {
				return false
			}
			continue
		}
		matched := false
		for _, v := range fields[f.Name] {
			if anyGlob(f.Values, v) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	return true
}

// modifyNetworkInterfaceAttribute implements ModifyNetworkInterfaceAttribute
// for SourceDestCheck.Value and SecurityGroupId.N; like EC2 it changes one
// attribute per call.
func (s *Sim) modifyNetworkInterfaceAttribute(p params, x *xmlBuilder) *apiError {
	eni, err := s.lookupInterface(p.str("NetworkInterfaceId"))
	if err != nil {
		return err
	}
	var attrs []string
	for _, m := range []string{"SourceDestCheck", "SecurityGroupId", "Description", "Attachment", "AssociatePublicIpAddress", "EnablePrimaryIpv6"} {
		if p.hasAny(m) {
			attrs = append(attrs, m)
		}
	}
	switch {
	case len(attrs) == 0:
		return missingParam("Attribute")
	case len(attrs) > 1:
		return clientErr("InvalidParameterCombination", "Fields for multiple attribute types specified: %s", strings.Join(attrs, ", "))
	}
	switch attrs[0] {
	case "SourceDestCheck":
		v, ok := p.boolean("SourceDestCheck.Value")
		if !ok {
			return missingParam("SourceDestCheck.Value")
		}
		eni.SourceDestCheck = v
	case "SecurityGroupId":
		ids := p.list("SecurityGroupId")
		if err := s.checkGroups(ids); err != nil {
			return err
		}
		if err := s.checkGroupsInVPC(ids, eni.VPCID); err != nil {
			return err
		}
		if in := s.instances[eni.InstanceID]; in != nil {
			// The primary interface's groups are the instance's groups.
			in.SecurityGroupIDs = dedupe(ids)
		}
	default:
		// Accepted but not modelled: the operator does not manage them.
	}
	x.boolLeaf("return", true)
	return nil
}

// setSourceDestCheck implements ModifyInstanceAttribute's SourceDestCheck,
// which sets the primary interface's check.
func (s *Sim) setSourceDestCheck(in *instance, value string) *apiError {
	if !strings.EqualFold(value, "true") && !strings.EqualFold(value, "false") {
		return invalidValue("Value (%s) for parameter sourceDestCheck is invalid.", value)
	}
	if eni := s.primaryInterface(in); eni != nil {
		eni.SourceDestCheck = strings.EqualFold(value, "true")
	}
	return nil
}
