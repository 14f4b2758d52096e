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

// netTaggable resolves the networking resources CreateTags and DeleteTags
// accept (subnets, security groups, network interfaces and Elastic IP
// allocations) to their tag maps. handled is false for ids of other kinds.
func (s *Sim) netTaggable(id string) (tags *map[string]string, err *apiError, handled bool) {
	n := s.network()
	switch {
	case strings.HasPrefix(id, "subnet-"):
		if sn, ok := s.subnets[id]; ok {
			return &sn.Tags, nil, true
		}
		if !subnetIDPattern.MatchString(id) {
			return nil, malformedID("InvalidSubnetID.Malformed", id, "subnet"), true
		}
		return nil, clientErr("InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist", id), true
	case strings.HasPrefix(id, "sg-"):
		if g, ok := s.groups[id]; ok {
			return &g.Tags, nil, true
		}
		if !groupIDPattern.MatchString(id) {
			return nil, malformedID("InvalidGroupId.Malformed", id, "sg"), true
		}
		return nil, clientErr("InvalidGroup.NotFound", "The security group '%s' does not exist", id), true
	case strings.HasPrefix(id, "eni-"):
		eni, err := s.lookupInterface(id)
		if err != nil {
			return nil, err, true
		}
		return &eni.Tags, nil, true
	case strings.HasPrefix(id, "eipalloc-"):
		if a, ok := n.addresses[id]; ok {
			return &a.Tags, nil, true
		}
		if !allocIDPattern.MatchString(id) {
			return nil, malformedID("InvalidAllocationID.Malformed", id, "eipalloc"), true
		}
		return nil, clientErr("InvalidAllocationID.NotFound", "The allocation ID '%s' does not exist", id), true
	}
	return nil, nil, false
}

// netIDTaken reports whether a networking resource already uses id, so
// newID never hands out a duplicate.
func (s *Sim) netIDTaken(id string) bool {
	n := s.network()
	if _, ok := n.enis[id]; ok {
		return true
	}
	if _, ok := n.addresses[id]; ok {
		return true
	}
	_, ok := n.assocs[id]
	return ok || n.pastAssocs[id]
}
