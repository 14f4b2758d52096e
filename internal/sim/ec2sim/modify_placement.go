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

// modifyInstancePlacement implements ModifyInstancePlacement. Per the API
// reference, at least one of affinity, host, tenancy or placement group must
// be given; tenancy changes between dedicated and host only; and "to modify
// the host ID, tenancy, placement group, or partition for an instance, the
// instance must be in the stopped state" (InvalidInstanceState, whose
// documented description says exactly that). Affinity alone can change at any
// time. Codes not named in the documentation are marked as guesses.
func (s *Sim) modifyInstancePlacement(p params, x *xmlBuilder) *apiError {
	in, err := s.lookupInstance(p.str("InstanceId"))
	if err != nil {
		return err
	}
	changesGroup := p.has("GroupName") || p.has("GroupId")
	if !changesGroup && !p.has("Affinity") && !p.has("HostId") && !p.has("Tenancy") && !p.has("PartitionNumber") && !p.has("HostResourceGroupArn") {
		// A guess: the reference says only that one attribute is required.
		return missingParam("Affinity, GroupName, HostId or Tenancy")
	}
	cur := in.Placement
	if cur.Tenancy == "" {
		cur.Tenancy = TenancyDefault
	}
	next := cur
	if err := modifyTenancy(p, in, &next); err != nil {
		return err
	}
	if err := s.modifyHost(p, in, &next); err != nil {
		return err
	}
	if err := s.modifyGroup(p, in, &next, changesGroup); err != nil {
		return err
	}
	if in.State == StateTerminated || in.State == StateShuttingDown {
		return clientErr("InvalidInstanceState", "The instance '%s' is not in a state from which its placement can be modified.", in.ID)
	}
	moved := next.Tenancy != cur.Tenancy || next.HostID != cur.HostID || next.HostResourceGroupARN != cur.HostResourceGroupARN ||
		next.GroupName != cur.GroupName || next.PartitionNumber != cur.PartitionNumber
	if moved && in.State != StateStopped {
		return clientErr("InvalidInstanceState", "The instance '%s' is not in the 'stopped' state. Stop the instance before modifying its placement.", in.ID)
	}
	in.Placement = next
	x.boolLeaf("return", true)
	return nil
}

// modifyTenancy applies Tenancy and Affinity. InvalidTenancy is documented
// for changing the tenancy of a default-tenancy instance, and InvalidRequest
// for moving a T3 instance off a Dedicated Host; InvalidAffinity for an
// invalid affinity. The messages are our best guesses.
func modifyTenancy(p params, in *instance, next *InstancePlacement) *apiError {
	if p.has("Tenancy") {
		t := p.str("Tenancy")
		if t != TenancyDedicated && t != TenancyHost {
			return invalidValue("Value (%s) for parameter tenancy is invalid. Valid values are: dedicated, host", t)
		}
		if next.Tenancy == TenancyDefault {
			return clientErr("InvalidTenancy", "The tenancy of instance '%s' cannot be changed because it has a tenancy of default.", in.ID)
		}
		if strings.HasPrefix(in.InstanceType, "t3.") && next.Tenancy == TenancyHost && t == TenancyDedicated {
			return clientErr("InvalidRequest", "The tenancy of T3 instance '%s' cannot be changed from host to dedicated.", in.ID)
		}
		next.Tenancy = t
	}
	if p.has("HostId") || p.has("HostResourceGroupArn") {
		switch {
		case next.Tenancy == TenancyDefault:
			return clientErr("InvalidTenancy", "Instance '%s' has a tenancy of default and cannot be placed on a Dedicated Host.", in.ID)
		case next.Tenancy == TenancyDedicated && p.has("Tenancy"):
			return clientErr("InvalidParameterCombination", "A Dedicated Host can only be specified with a tenancy of host.")
		}
		next.Tenancy = TenancyHost // a dedicated instance given a host moves onto it
	}
	if p.has("Affinity") {
		a := p.str("Affinity")
		if a != "default" && a != "host" {
			return clientErr("InvalidAffinity", "Value (%s) for parameter affinity is invalid. Valid values are: default, host", a)
		}
		if a == "host" && next.Tenancy != TenancyHost {
			return clientErr("InvalidParameterCombination", "Host affinity can only be specified for instances with a tenancy of host.")
		}
		next.Affinity = a
	}
	return nil
}

// modifyHost resolves the Dedicated Host of an instance whose tenancy is (or
// becomes) host: the named host, a host of the named resource group, the
// current host, or, for an instance moving onto hosts, one with
// auto-placement on. Other tenancies have no host and no affinity.
func (s *Sim) modifyHost(p params, in *instance, next *InstancePlacement) *apiError {
	if next.Tenancy != TenancyHost {
		next.HostID, next.HostResourceGroupARN, next.Affinity = "", "", ""
		return nil
	}
	hostID, groupARN := p.str("HostId"), p.str("HostResourceGroupArn")
	switch {
	case hostID != "" && groupARN != "":
		return clientErr("InvalidParameterCombination", "The parameters HostId and HostResourceGroupArn cannot be specified together.")
	case hostID != "":
		h, err := s.lookupHost(hostID)
		if err != nil {
			return err
		}
		if err := checkHostFits(h, in.InstanceType, in.AZ); err != nil {
			return err
		}
		next.HostID, next.HostResourceGroupARN = h.id, ""
	case groupARN != "" || next.HostID == "":
		h, err := s.pickHost(groupARN, in.InstanceType, in.AZ)
		if err != nil {
			return err
		}
		next.HostID, next.HostResourceGroupARN = h.id, groupARN
	}
	if next.Affinity == "" {
		next.Affinity = "default"
	}
	return nil
}

// modifyGroup moves the instance into or out of a placement group ("" leaves
// it) and sets its partition. The documented rules: spread groups need
// default tenancy, cluster and partition groups default or dedicated; a
// partition number is valid only in a partition group.
func (s *Sim) modifyGroup(p params, in *instance, next *InstancePlacement, changesGroup bool) *apiError {
	if changesGroup {
		name, id := p.str("GroupName"), p.str("GroupId")
		var g *placementGroup
		switch {
		case name != "" && id != "":
			return clientErr("InvalidParameterCombination", "The parameter groupName cannot be used with the parameter groupId")
		case name != "":
			if g = s.placing().groups[name]; g == nil {
				return unknownPlacementGroup(name)
			}
		case id != "":
			if g = s.placing().placementGroupByID(id); g == nil {
				return clientErr("InvalidPlacementGroup.Unknown", "The Placement Group ID '%s' is unknown.", id)
			}
		}
		next.GroupName, next.GroupID, next.PartitionNumber = "", "", 0
		if g != nil {
			if err := s.checkGroupZone(g, in.AZ, in.ID); err != nil {
				return err
			}
			next.GroupName, next.GroupID = g.name, g.id
		}
	}
	g := s.placing().groups[next.GroupName]
	if g == nil {
		if p.has("PartitionNumber") {
			return invalidValue("A partition number can only be specified for instances in a partition placement group.")
		}
		return nil
	}
	if err := checkGroupRules(g, next.Tenancy, in.Spot, in.SpotInterruptionBehavior); err != nil {
		return err
	}
	if p.has("PartitionNumber") {
		n, err := partitionNumber(p.str("PartitionNumber"), g, next.Tenancy)
		if err != nil {
			return err
		}
		next.PartitionNumber = n
	} else if g.strategy == StrategyPartition && next.PartitionNumber == 0 {
		next.PartitionNumber = s.leastUsedPartition(g, in.AZ, partitionLimit(g, next.Tenancy))
	}
	return nil
}
