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
	"sort"
	"strings"
)

// cancelSpotInstanceRequests cancels Spot Instance requests. As in EC2, cancelling
// leaves the instances of the request running, and cancelling a cancelled request
// answers with its state instead of an error. The emulator does not relaunch
// instances of persistent requests, so cancelling only changes what the request
// reports (see SpotRequestCancelled).
func (s *Sim) cancelSpotInstanceRequests(p params, x *xmlBuilder) *apiError {
	ids, filters := p.list("SpotInstanceRequestId"), p.filters()
	for _, f := range filters {
		if !contains(spotFilterNames, f.Name) {
			return invalidValue("The filter '%s' is invalid", f.Name)
		}
	}
	named := len(ids) > 0
	if !named {
		return missingParam("SpotInstanceRequestId")
	}
	known := map[string]bool{}
	for _, in := range s.instances {
		if in.SpotRequestID != "" {
			known[in.SpotRequestID] = true
		}
	}
	for _, id := range ids {
		if !strings.HasPrefix(id, "sir-") {
			return clientErr("InvalidSpotInstanceRequestID.Malformed", "Invalid id: %q (expecting \"sir-...\")", id)
		}
		if !known[id] {
			return clientErr("InvalidSpotInstanceRequestID.NotFound", "The spot instance request ID '%s' does not exist", id)
		}
	}
	x.open("spotInstanceRequestSet")
	for _, id := range ids {
		s.cancelledSpot[id] = true
		x.open("item")
		x.leaf("spotInstanceRequestId", id)
		x.leaf("state", "cancelled")
		x.close("item")
	}
	x.close("spotInstanceRequestSet")
	return nil
}

// SpotRequestCancelled reports whether the Spot Instance request was cancelled.
func (s *Sim) SpotRequestCancelled(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelledSpot[id]
}

// describeSpotInstanceRequests describes the Spot Instance requests behind the Spot
// instances, by SpotInstanceRequestId.N, or all of them. As in EC2 an unknown ID fails
// the request (InvalidSpotInstanceRequestID.NotFound), and the request's state follows
// its instance: active while it runs, disabled while it is stopped (a persistent
// request), closed once it is terminated, cancelled once cancelled.
func (s *Sim) describeSpotInstanceRequests(p params, x *xmlBuilder) *apiError {
	byRequest := map[string]*instance{}
	for _, in := range s.instances {
		if in.SpotRequestID != "" {
			byRequest[in.SpotRequestID] = in
		}
	}
	ids, filters := p.list("SpotInstanceRequestId"), p.filters()
	for _, f := range filters {
		if !contains(spotFilterNames, f.Name) {
			return invalidValue("The filter '%s' is invalid", f.Name)
		}
	}
	named := len(ids) > 0
	if !named {
		for id := range byRequest {
			ids = append(ids, id)
		}
		sort.Strings(ids)
	}
	for _, id := range ids {
		if !strings.HasPrefix(id, "sir-") {
			return clientErr("InvalidSpotInstanceRequestID.Malformed", "Invalid id: %q (expecting \"sir-...\")", id)
		}
		if byRequest[id] == nil && named {
			return clientErr("InvalidSpotInstanceRequestID.NotFound", "The spot instance request ID '%s' does not exist", id)
		}
	}
	x.open("spotInstanceRequestSet")
	for _, id := range ids {
		in := byRequest[id]
		state, code := s.spotRequestState(in)
		fields := map[string]string{"spot-instance-request-id": id, "instance-id": in.ID, "state": state,
			"type": in.SpotInstanceType, "status-code": code}
		if !resourceMatches(fields, nil, filters) {
			continue
		}
		x.open("item")
		x.leaf("spotInstanceRequestId", id)
		x.leafIf("spotPrice", in.SpotMaxPrice)
		x.leaf("type", in.SpotInstanceType)
		x.leaf("state", state)
		x.open("status")
		x.leaf("code", code)
		x.close("status")
		x.leaf("instanceId", in.ID)
		x.leaf("instanceInterruptionBehavior", in.SpotInterruptionBehavior)
		x.leaf("launchedAvailabilityZone", in.AZ)
		x.leaf("productDescription", "Linux/UNIX")
		x.close("item")
	}
	x.close("spotInstanceRequestSet")
	return nil
}

// spotFilterNames are the DescribeSpotInstanceRequests filters the emulator
// evaluates.
var spotFilterNames = []string{"spot-instance-request-id", "instance-id", "state", "type", "status-code"}

// spotRequestState is the state and status code EC2 reports for the request of a
// Spot instance in its current state.
func (s *Sim) spotRequestState(in *instance) (string, string) {
	switch {
	case s.cancelledSpot[in.SpotRequestID]:
		return "cancelled", "request-canceled-and-instance-running"
	case in.State == StateTerminated || in.State == StateShuttingDown:
		return "closed", "instance-terminated-by-user"
	case in.State == StateStopped || in.State == StateStopping:
		return "disabled", "instance-stopped-by-user"
	}
	return "active", "fulfilled"
}
