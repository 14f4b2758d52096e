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

// cancelSpotInstanceRequests cancels Spot Instance requests. As in EC2, cancelling
// leaves the instances of the request running, and cancelling a cancelled request
// answers with its state instead of an error. The emulator does not relaunch
// instances of persistent requests, so cancelling only changes what the request
// reports (see SpotRequestCancelled).
func (s *Sim) cancelSpotInstanceRequests(p params, x *xmlBuilder) *apiError {
	ids := p.list("SpotInstanceRequestId")
	if len(ids) == 0 {
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
