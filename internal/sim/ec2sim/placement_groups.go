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
	"fmt"
	"maps"
	"strconv"
)

// Placement strategies ("Placement groups", EC2 User Guide).
const (
	StrategyCluster   = "cluster"
	StrategyPartition = "partition"
	StrategySpread    = "spread"
)

// maxPartitionsPerZone is the documented limit on partitions in a partition
// placement group per Availability Zone ("Placement group rules and
// limitations", EC2 User Guide).
const maxPartitionsPerZone = 7

// maxDedicatedPartitions is the documented limit for partition placement
// groups of Dedicated Instances, which "can have a maximum of two partitions".
const maxDedicatedPartitions = 2

// maxSpreadPerZone is the documented limit of a rack spread placement group:
// "a maximum of seven running instances per Availability Zone per group".
const maxSpreadPerZone = 7

// placementGroup is one placement group of the account.
type placementGroup struct {
	name, id, strategy string
	partitionCount     int
	tags               map[string]string
}

// arn is the placement group's ARN.
func (g *placementGroup) arn(s *Sim) string {
	return "arn:aws:ec2:" + s.cfg.Region + ":" + s.cfg.AccountID + ":placement-group/" + g.name
}

// AddPlacementGroup creates an available placement group with strategy
// "cluster", "partition" or "spread". partitionCount is used only by
// partition groups, which EC2 limits to 1..7 partitions. An invalid strategy
// or partition count panics, as it is a mistake in the test.
func (s *Sim) AddPlacementGroup(name, strategy string, partitionCount int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch strategy {
	case StrategyCluster, StrategySpread:
		partitionCount = 0
	case StrategyPartition:
		if partitionCount < 1 || partitionCount > maxPartitionsPerZone {
			panic(fmt.Sprintf("ec2sim: a partition placement group has 1 to %d partitions, not %d", maxPartitionsPerZone, partitionCount))
		}
	default:
		panic(fmt.Sprintf("ec2sim: unknown placement strategy %q", strategy))
	}
	ps := s.placing()
	if _, ok := ps.groups[name]; !ok {
		ps.groupOrder = append(ps.groupOrder, name)
	}
	ps.groups[name] = &placementGroup{name: name, id: s.newID("pg"), strategy: strategy, partitionCount: partitionCount, tags: map[string]string{}}
}

// placementGroupByID finds a group by its pg- id.
func (ps *placementState) placementGroupByID(id string) *placementGroup {
	for _, name := range ps.groupOrder {
		if g := ps.groups[name]; g.id == id {
			return g
		}
	}
	return nil
}

// unknownPlacementGroup is EC2's documented code for a group that does not
// exist; the message wording is our best guess.
func unknownPlacementGroup(name string) *apiError {
	return clientErr("InvalidPlacementGroup.Unknown", "The Placement Group '%s' is unknown.", name)
}

// groupMembers returns the live instances in group (optionally only those
// in az), excluding skip, in launch order.
func (s *Sim) groupMembers(group, az, skip string) []*instance {
	var out []*instance
	for _, id := range s.order {
		in := s.instances[id]
		if in.Placement.GroupName != group || in.ID == skip || in.State == StateTerminated {
			continue
		}
		if az == "" || in.AZ == az {
			out = append(out, in)
		}
	}
	return out
}

// describePlacementGroups implements DescribePlacementGroups: GroupName.N,
// GroupId.N and the documented filters.
func (s *Sim) describePlacementGroups(p params, x *xmlBuilder) *apiError {
	ps := s.placing()
	names, ids := p.list("GroupName"), p.list("GroupId")
	for _, n := range names {
		if ps.groups[n] == nil {
			return unknownPlacementGroup(n)
		}
	}
	for _, id := range ids {
		if ps.placementGroupByID(id) == nil {
			// EC2 documents only InvalidPlacementGroupId.Malformed for ids; an
			// unknown well-formed id is reported like an unknown name (a guess).
			return clientErr("InvalidPlacementGroup.Unknown", "The Placement Group ID '%s' is unknown.", id)
		}
	}
	filters := p.filters()
	for _, f := range filters {
		if !knownDescribeFilter(f.Name, "group-name", "group-arn", "group-id", "state", "strategy", "spread-level", "partition-count") {
			return invalidValue("The filter '%s' is invalid", f.Name)
		}
	}
	x.open("placementGroupSet")
	for _, name := range ps.groupOrder {
		g := ps.groups[name]
		if (len(names) > 0 || len(ids) > 0) && !contains(names, g.name) && !contains(ids, g.id) {
			continue
		}
		fields := map[string]string{
			"group-name": g.name, "group-arn": g.arn(s), "group-id": g.id, "state": "available",
			"strategy": g.strategy, "spread-level": spreadLevel(g), "partition-count": strconv.Itoa(g.partitionCount),
		}
		if !resourceMatches(fields, g.tags, filters) {
			continue
		}
		x.open("item")
		x.leaf("groupName", g.name)
		x.leaf("state", "available")
		x.leaf("strategy", g.strategy)
		if g.strategy == StrategyPartition {
			x.intLeaf("partitionCount", g.partitionCount)
		}
		x.leaf("groupId", g.id)
		x.leafIf("spreadLevel", spreadLevel(g))
		x.leaf("groupArn", g.arn(s))
		if len(g.tags) > 0 {
			x.tagSet(maps.Clone(g.tags))
		}
		x.close("item")
	}
	x.close("placementGroupSet")
	return nil
}

// spreadLevel is "rack" for spread groups: host-level spread groups exist
// only on AWS Outposts, which the simulator does not model.
func spreadLevel(g *placementGroup) string {
	if g.strategy == StrategySpread {
		return "rack"
	}
	return ""
}

// knownDescribeFilter reports whether a describe call understands a filter name:
// one of names, or a tag filter.
func knownDescribeFilter(name string, names ...string) bool {
	return len(name) > 4 && name[:4] == "tag:" || name == "tag-key" || name == "tag-value" || contains(names, name)
}
