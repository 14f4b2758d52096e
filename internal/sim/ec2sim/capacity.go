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
	"net/http"
	"strings"
)

// placementKey names one instance type in one Availability Zone.
type placementKey struct{ az, instanceType string }

// SetOffered sets whether instanceType is offered in az at all. Every known
// type is offered in every zone until told otherwise. EC2 refuses to launch
// or start an instance of a type its zone does not offer with the client
// error Unsupported, which retrying does not fix.
func (s *Sim) SetOffered(az, instanceType string, offered bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := placementKey{az, instanceType}
	if offered {
		delete(s.notOffered, key)
	} else {
		s.notOffered[key] = true
	}
}

// SetCapacity sets whether az has spare capacity for instanceType. Without
// it EC2 answers RunInstances and StartInstances with the server error
// InsufficientInstanceCapacity, which clears when capacity returns.
func (s *Sim) SetCapacity(az, instanceType string, available bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := placementKey{az, instanceType}
	if available {
		delete(s.noCapacity, key)
	} else {
		s.noCapacity[key] = true
	}
}

// SetLaunchCapacity sets the most instances one RunInstances call launches (0: as
// many as asked). EC2 launches as many as it can between MinCount and MaxCount, and
// none, with InsufficientInstanceCapacity, when it cannot launch MinCount.
func (s *Sim) SetLaunchCapacity(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.launchCapacity = n
}

// launchCount is how many instances a launch of spec gets, or EC2's refusal.
func (s *Sim) launchCount(spec *launchSpec) (int, *apiError) {
	if s.launchCapacity == 0 || s.launchCapacity >= spec.count {
		return spec.count, nil
	}
	if s.launchCapacity < spec.minCount {
		return 0, &apiError{Code: "InsufficientInstanceCapacity", Status: http.StatusInternalServerError,
			Message: fmt.Sprintf("We currently do not have sufficient %s capacity in the Availability Zone you requested (%s) "+
				"for the %d instances you requested at least. Our system will be working on provisioning additional capacity.",
				spec.instanceType, spec.subnet.AZ, spec.minCount),
		}
	}
	return s.launchCapacity, nil
}

// checkPlacement is EC2's answer when an instance of instanceType cannot run
// in az right now, or nil when it can. The wording follows the messages EC2
// sends for RunInstances and StartInstances, which name the zones that can
// serve the request.
func (s *Sim) checkPlacement(az, instanceType string) *apiError {
	key := placementKey{az, instanceType}
	if s.notOffered[key] {
		return clientErr("Unsupported", "Your requested instance type (%s) is not supported in your requested Availability Zone (%s). Please retry your request by not specifying an Availability Zone or choosing %s.",
			instanceType, az, strings.Join(s.otherZones(az, instanceType), ", "))
	}
	if s.noCapacity[key] {
		return &apiError{
			Code: "InsufficientInstanceCapacity",
			Message: "We currently do not have sufficient " + instanceType + " capacity in the Availability Zone you requested (" + az +
				"). Our system will be working on provisioning additional capacity. You can currently get " + instanceType +
				" capacity by not specifying an Availability Zone in your request or choosing " + strings.Join(s.otherZones(az, instanceType), ", ") + ".",
			Status: http.StatusInternalServerError,
		}
	}
	return nil
}

// otherZones lists the zones other than az that can run instanceType now.
func (s *Sim) otherZones(az, instanceType string) []string {
	var out []string
	for _, z := range s.azs() {
		key := placementKey{z, instanceType}
		if z != az && !s.notOffered[key] && !s.noCapacity[key] {
			out = append(out, z)
		}
	}
	return out
}
