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
	"net/http"
	"strconv"
)

// Instance tenancies (Placement.Tenancy).
const (
	TenancyDefault   = "default"
	TenancyDedicated = "dedicated"
	TenancyHost      = "host"
)

// InstancePlacement is where an instance runs beyond its subnet.
type InstancePlacement struct {
	// GroupName and GroupID name the placement group, or are "".
	GroupName string
	GroupID   string
	// PartitionNumber is the partition of a partition placement group, or 0.
	PartitionNumber int
	// Tenancy is "default", "dedicated" or "host".
	Tenancy string
	// HostID is the Dedicated Host of a host-tenancy instance.
	HostID string
	// Affinity is "default" or "host" for host-tenancy instances, else "".
	Affinity string
	// HostResourceGroupARN is the host resource group the instance was
	// launched into, or "".
	HostResourceGroupARN string
}

// placementSpec is the validated placement of a RunInstances request.
type placementSpec struct {
	group        *placementGroup
	partition    int // requested partition; 0 lets EC2 choose
	tenancy      string
	host         *dedicatedHost
	hostGroupARN string
	affinity     string
	capacity     InstanceCapacityReservation
	// reservations holds the Capacity Reservation each launched instance
	// uses, by launch index; "" (or a short list) means On-Demand capacity.
	reservations []string
}

// parsePlacement validates Placement (tenancy, Dedicated Host, affinity,
// placement group and partition) and CapacityReservationSpecification
// against the subnet parseNetwork chose.
func (s *Sim) parsePlacement(p params, spec *launchSpec) *apiError {
	pl := p.sub("Placement")
	ps := &spec.placement
	az := spec.subnet.AZ
	ps.tenancy = TenancyDefault
	if t := pl.str("Tenancy"); t != "" {
		if !contains([]string{TenancyDefault, TenancyDedicated, TenancyHost}, t) {
			return invalidValue("Value (%s) for parameter tenancy is invalid. Valid values are: default, dedicated, host", t)
		}
		ps.tenancy = t
	}
	hostID, hostGroup := pl.str("HostId"), pl.str("HostResourceGroupArn")
	if hostID != "" && hostGroup != "" {
		// Not documented for RunInstances; Image Builder, which passes both
		// through, documents that specifying both is an error.
		return clientErr("InvalidParameterCombination", "The parameters HostId and HostResourceGroupArn cannot be specified together.")
	}
	if hostID != "" || hostGroup != "" {
		// Placement: "if you specify [HostResourceGroupArn], either omit the
		// Tenancy parameter or set it to host"; the same holds for a host id.
		// The error code and message are our best guess.
		if pl.str("Tenancy") != "" && ps.tenancy != TenancyHost {
			return clientErr("InvalidParameterCombination", "A Dedicated Host or host resource group can only be specified with a tenancy of host, not %s.", ps.tenancy)
		}
		ps.tenancy = TenancyHost
	}
	if err := s.parseAffinity(pl.str("Affinity"), ps); err != nil {
		return err
	}
	if ps.tenancy == TenancyHost {
		h, err := s.resolveLaunchHost(hostID, hostGroup, spec.instanceType, az)
		if err != nil {
			return err
		}
		ps.host, ps.hostGroupARN = h, hostGroup
	}
	if err := s.parsePlacementGroup(pl, spec); err != nil {
		return err
	}
	c, err := s.parseCapacityTargeting(p.sub("CapacityReservationSpecification"))
	if err != nil {
		return err
	}
	ps.capacity = c
	ps.reservations, err = s.chooseReservations(c, spec.instanceType, az, ps.tenancy, spec.spot, spec.count)
	return err
}

// parseAffinity validates Placement.Affinity. Host affinity ties an instance
// to a Dedicated Host, so it needs host tenancy (a rule we infer from "Host
// affinity", EC2 User Guide; the error code is our guess).
func (s *Sim) parseAffinity(a string, ps *placementSpec) *apiError {
	switch a {
	case "":
		if ps.tenancy == TenancyHost {
			ps.affinity = "default"
		}
		return nil
	case "default", "host":
	default:
		// InvalidAffinity is documented; the message is our best guess.
		return clientErr("InvalidAffinity", "Value (%s) for parameter affinity is invalid. Valid values are: default, host", a)
	}
	if a == "host" && ps.tenancy != TenancyHost {
		return clientErr("InvalidParameterCombination", "Host affinity can only be specified for instances with a tenancy of host.")
	}
	ps.affinity = a
	return nil
}

// resolveLaunchHost picks the Dedicated Host of a host-tenancy launch: the
// named host, a fitting host of the named host resource group, or a fitting
// host with auto-placement on.
func (s *Sim) resolveLaunchHost(hostID, groupARN, instanceType, az string) (*dedicatedHost, *apiError) {
	if hostID == "" {
		return s.pickHost(groupARN, instanceType, az)
	}
	h, err := s.lookupHost(hostID)
	if err != nil {
		return nil, err
	}
	return h, checkHostFits(h, instanceType, az)
}

// parsePlacementGroup validates Placement.GroupName/GroupId and
// PartitionNumber against the rules in "Placement group rules and
// limitations" (EC2 User Guide). EC2's codes for breaking those rules are not
// documented, so the codes and messages below are our best guesses.
func (s *Sim) parsePlacementGroup(pl params, spec *launchSpec) *apiError {
	ps := &spec.placement
	name, id := pl.str("GroupName"), pl.str("GroupId")
	if name != "" && id != "" {
		// Placement: "you can specify GroupId or GroupName, but not both".
		return clientErr("InvalidParameterCombination", "The parameter groupName cannot be used with the parameter groupId")
	}
	var g *placementGroup
	switch {
	case name != "":
		if g = s.placing().groups[name]; g == nil {
			return unknownPlacementGroup(name)
		}
	case id != "":
		if g = s.placing().placementGroupByID(id); g == nil {
			return clientErr("InvalidPlacementGroup.Unknown", "The Placement Group ID '%s' is unknown.", id)
		}
	}
	if g == nil {
		if pl.has("PartitionNumber") {
			return invalidValue("A partition number can only be specified for instances in a partition placement group.")
		}
		return nil
	}
	ps.group = g
	if err := checkGroupRules(g, ps.tenancy, spec.spot, spec.spotBehavior); err != nil {
		return err
	}
	if err := s.checkGroupZone(g, spec.subnet.AZ, ""); err != nil {
		return err
	}
	if g.strategy == StrategySpread {
		if err := s.checkSpreadRoom(g, spec.subnet.AZ, "", spec.count); err != nil {
			return err
		}
	}
	if pl.has("PartitionNumber") {
		n, err := partitionNumber(pl.str("PartitionNumber"), g, ps.tenancy)
		if err != nil {
			return err
		}
		ps.partition = n
	}
	return nil
}

// checkGroupRules applies the documented tenancy and Spot rules of
// placement groups: "You can't launch Dedicated Hosts in placement groups",
// spread groups are "not supported for Dedicated Instances", and Spot
// Instances that stop or hibernate on interruption cannot be in one.
func checkGroupRules(g *placementGroup, tenancy string, spot bool, spotBehavior string) *apiError {
	if tenancy == TenancyHost {
		return clientErr("InvalidParameterCombination", "Instances with a tenancy of host cannot be launched into a placement group.")
	}
	if g.strategy == StrategySpread && tenancy == TenancyDedicated {
		return clientErr("InvalidParameterCombination", "Spread placement groups are not supported for Dedicated Instances.")
	}
	if spot && spotBehavior != "terminate" {
		return clientErr("InvalidParameterCombination", "Spot Instances with an interruption behavior of %s cannot be launched into a placement group.", spotBehavior)
	}
	return nil
}

// partitionNumber validates a requested partition: 1..partitionCount, and at
// most 2 for Dedicated Instances.
func partitionNumber(raw string, g *placementGroup, tenancy string) (int, *apiError) {
	if g.strategy != StrategyPartition {
		return 0, invalidValue("A partition number can only be specified for instances in a partition placement group; '%s' uses the %s strategy.", g.name, g.strategy)
	}
	limit := partitionLimit(g, tenancy)
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > limit {
		return 0, invalidValue("Value (%s) for parameter partitionNumber is invalid. The placement group '%s' has partitions 1 to %d.", raw, g.name, limit)
	}
	return n, nil
}

// partitionLimit is how many partitions an instance of tenancy can use.
func partitionLimit(g *placementGroup, tenancy string) int {
	if tenancy == TenancyDedicated {
		return min(g.partitionCount, maxDedicatedPartitions)
	}
	return g.partitionCount
}

// checkGroupZone enforces that a cluster placement group stays in one
// Availability Zone. The message is one EC2 has been seen to send; the code
// is our guess.
func (s *Sim) checkGroupZone(g *placementGroup, az, skip string) *apiError {
	if g.strategy != StrategyCluster {
		return nil
	}
	for _, m := range s.groupMembers(g.name, "", skip) {
		if m.AZ != az {
			return invalidValue("The placement group '%s' is in use in another availability zone: %s.", g.name, m.AZ)
		}
	}
	return nil
}

// checkSpreadRoom enforces the seven running instances per zone of a spread
// placement group. The guide says only that such a request fails for lack of
// distinct hardware, so we answer like other capacity shortfalls.
func (s *Sim) checkSpreadRoom(g *placementGroup, az, skip string, count int) *apiError {
	running := 0
	for _, m := range s.groupMembers(g.name, az, skip) {
		if occupiesCapacity(m.State) {
			running++
		}
	}
	if running+count <= maxSpreadPerZone {
		return nil
	}
	return &apiError{
		Code:    "InsufficientInstanceCapacity",
		Message: "The spread placement group '" + g.name + "' already has the maximum of 7 running instances in " + az + ". Launch the instances in another Availability Zone or placement group.",
		Status:  http.StatusInternalServerError,
	}
}

// applyPlacement records a launched instance's placement and Capacity
// Reservation. In a partition group without a requested partition, EC2
// "tries to distribute the instances evenly", so the least used partition
// of the zone is chosen.
func (s *Sim) applyPlacement(spec *launchSpec, r *InstanceRecord, index int) {
	ps := &spec.placement
	r.Placement = InstancePlacement{Tenancy: ps.tenancy, Affinity: ps.affinity, HostResourceGroupARN: ps.hostGroupARN}
	if ps.host != nil {
		r.Placement.HostID = ps.host.id
	}
	if g := ps.group; g != nil {
		r.Placement.GroupName, r.Placement.GroupID = g.name, g.id
		if g.strategy == StrategyPartition {
			r.Placement.PartitionNumber = ps.partition
			if ps.partition == 0 {
				r.Placement.PartitionNumber = s.leastUsedPartition(g, spec.subnet.AZ, partitionLimit(g, ps.tenancy))
			}
		}
	}
	r.CapacityReservation = ps.capacity
	if index < len(ps.reservations) {
		r.CapacityReservation.ReservationID = ps.reservations[index]
	}
}

// leastUsedPartition returns the partition (1..limit) with the fewest
// instances of g in az, the lowest on ties.
func (s *Sim) leastUsedPartition(g *placementGroup, az string, limit int) int {
	counts := make([]int, limit+1)
	for _, m := range s.groupMembers(g.name, az, "") {
		if m.Placement.PartitionNumber >= 1 && m.Placement.PartitionNumber <= limit {
			counts[m.Placement.PartitionNumber]++
		}
	}
	best := 1
	for n := 2; n <= limit; n++ {
		if counts[n] < counts[best] {
			best = n
		}
	}
	return best
}

// checkStartPlacement is EC2's answer when a stopped instance cannot start
// where its placement says: its spread group's zone is full, or its Capacity
// Reservation targeting cannot be met.
func (s *Sim) checkStartPlacement(in *instance) *apiError {
	if g := s.placing().groups[in.Placement.GroupName]; g != nil && g.strategy == StrategySpread {
		if err := s.checkSpreadRoom(g, in.AZ, in.ID, 1); err != nil {
			return err
		}
	}
	_, err := s.chooseReservations(in.CapacityReservation, in.InstanceType, in.AZ, in.Placement.Tenancy, in.Spot, 1)
	return err
}

// writePlacement renders an instance's placement element with the names
// awsEc2query_deserializeDocumentPlacement reads.
func writePlacement(x *xmlBuilder, r *InstanceRecord) {
	pl := r.Placement
	x.open("placement")
	x.leaf("availabilityZone", r.AZ)
	x.leaf("groupName", pl.GroupName)
	x.leafIf("groupId", pl.GroupID)
	if pl.PartitionNumber > 0 {
		x.intLeaf("partitionNumber", pl.PartitionNumber)
	}
	tenancy := pl.Tenancy
	if tenancy == "" {
		tenancy = TenancyDefault
	}
	x.leaf("tenancy", tenancy)
	x.leafIf("hostId", pl.HostID)
	x.leafIf("affinity", pl.Affinity)
	x.leafIf("hostResourceGroupArn", pl.HostResourceGroupARN)
	x.close("placement")
}
