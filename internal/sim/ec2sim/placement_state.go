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

// placementState holds the resources that decide where instances may run
// beyond their subnet: placement groups, Dedicated Hosts and their resource
// groups, and On-Demand Capacity Reservations and their resource groups.
type placementState struct {
	groups     map[string]*placementGroup // by name
	groupOrder []string
	hosts      map[string]*dedicatedHost // by id
	hostOrder  []string
	// hostGroups and reservationGroups are AWS Resource Groups, by ARN,
	// listing their members' ids.
	hostGroups        map[string][]string
	reservations      map[string]*capacityReservation
	reservationOrder  []string
	reservationGroups map[string][]string
}

// placing returns the placement state, creating it on first use so that a Sim
// that never touches placement pays nothing for it.
func (s *Sim) placing() *placementState {
	if s.place == nil {
		s.place = &placementState{
			groups:            map[string]*placementGroup{},
			hosts:             map[string]*dedicatedHost{},
			hostGroups:        map[string][]string{},
			reservations:      map[string]*capacityReservation{},
			reservationGroups: map[string][]string{},
		}
	}
	return s.place
}

// occupiesCapacity reports whether an instance in state holds hardware: EC2
// counts pending and running instances (and those on their way out) against
// reservations and spread limits, but not stopped or terminated ones.
func occupiesCapacity(state string) bool {
	switch state {
	case StatePending, StateRunning, StateStopping, StateShuttingDown:
		return true
	}
	return false
}
