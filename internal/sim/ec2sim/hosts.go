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
	"regexp"
	"strings"
)

// hostIDPattern is the shape of a Dedicated Host id (h- and 8 or 17 hex).
var hostIDPattern = regexp.MustCompile(`^h-([0-9a-f]{8}|[0-9a-f]{17})$`)

// dedicatedHost is an allocated Dedicated Host.
type dedicatedHost struct {
	id, az string
	// instanceType is either one type ("m5.large"), which is all the host
	// runs, or a family ("m5"), any size of which it runs.
	instanceType string
	// autoPlacement "on" lets untargeted host-tenancy launches land on the
	// host; EC2 allocates hosts with it "off" ("Amazon EC2 Dedicated Host
	// auto-placement and host affinity", EC2 User Guide).
	autoPlacement bool
}

// supports reports whether the host can run instanceType.
func (h *dedicatedHost) supports(instanceType string) bool {
	if strings.Contains(h.instanceType, ".") {
		return h.instanceType == instanceType
	}
	family, _, _ := strings.Cut(instanceType, ".")
	return family == h.instanceType
}

// AddDedicatedHost allocates a Dedicated Host in az for one instance type
// ("m5.large") or a whole family ("m5"). Like a newly allocated host it has
// auto-placement off, so only launches naming its id (or a host resource
// group holding it) land on it; see SetHostAutoPlacement.
func (s *Sim) AddDedicatedHost(id, instanceType, az string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := s.placing()
	if _, ok := ps.hosts[id]; !ok {
		ps.hostOrder = append(ps.hostOrder, id)
	}
	ps.hosts[id] = &dedicatedHost{id: id, az: az, instanceType: instanceType}
}

// SetHostAutoPlacement switches a Dedicated Host's auto-placement, as
// ModifyHosts AutoPlacement=on|off does. It reports whether the host exists.
func (s *Sim) SetHostAutoPlacement(id string, on bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.placing().hosts[id]
	if h != nil {
		h.autoPlacement = on
	}
	return h != nil
}

// AddHostResourceGroup creates an AWS Resource Groups host resource group
// with the given Dedicated Hosts, which launches can name with
// Placement.HostResourceGroupArn.
func (s *Sim) AddHostResourceGroup(arn string, hostIDs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.placing().hostGroups[arn] = append([]string(nil), hostIDs...)
}

// lookupHost resolves a HostId: a malformed id and an unknown one give EC2's
// documented codes (the messages are our best guess).
func (s *Sim) lookupHost(id string) (*dedicatedHost, *apiError) {
	if !hostIDPattern.MatchString(id) {
		return nil, malformedID("InvalidHostID.Malformed", id, "h")
	}
	h := s.placing().hosts[id]
	if h == nil {
		return nil, clientErr("InvalidHostID.NotFound", "The specified host ID '%s' does not exist.", id)
	}
	return h, nil
}

// checkHostFits is EC2's answer when an instance of instanceType in az cannot
// run on h: ZonesMismatched and UnsupportedInstanceTypeOnHost are the
// documented codes ("Error codes for the Amazon EC2 API"); the messages are
// our best guess.
func checkHostFits(h *dedicatedHost, instanceType, az string) *apiError {
	if h.az != az {
		return clientErr("ZonesMismatched", "The Availability Zone for the instance (%s) does not match that of the Dedicated Host %s (%s).", az, h.id, h.az)
	}
	if !h.supports(instanceType) {
		return clientErr("UnsupportedInstanceTypeOnHost", "The instance type %s is not supported on the Dedicated Host %s, which supports %s.", instanceType, h.id, h.instanceType)
	}
	return nil
}

// noCompatibleHost is the documented IncompatibleHostRequirements error,
// for host-tenancy launches that name no host and find none that fits.
func noCompatibleHost() *apiError {
	return clientErr("IncompatibleHostRequirements", "There are no available or compatible Dedicated Hosts available on which to launch or start the instance.")
}

// pickHost chooses a Dedicated Host for an untargeted host-tenancy launch:
// from a host resource group when groupARN is set, otherwise any host with
// auto-placement on, in either case one in az that supports instanceType.
func (s *Sim) pickHost(groupARN, instanceType, az string) (*dedicatedHost, *apiError) {
	ps := s.placing()
	candidates := ps.hostOrder
	if groupARN != "" {
		members, ok := ps.hostGroups[groupARN]
		if !ok {
			// Not documented: EC2's exact error for an unknown host resource group.
			return nil, invalidValue("The host resource group ARN '%s' is not valid.", groupARN)
		}
		candidates = members
	}
	for _, id := range candidates {
		h := ps.hosts[id]
		if h == nil || (groupARN == "" && !h.autoPlacement) {
			continue
		}
		if checkHostFits(h, instanceType, az) == nil {
			return h, nil
		}
	}
	return nil, noCompatibleHost()
}
