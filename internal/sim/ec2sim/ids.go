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
	"regexp"
)

// newID returns prefix + "-" + 17 lowercase hex characters, the long id
// format EC2 has used since 2016. Collisions are retried so ids are unique.
func (s *Sim) newID(prefix string) string {
	for {
		// Real long ids start with 0 in practice; the other 16 digits are random.
		id := fmt.Sprintf("%s-0%016x", prefix, s.idRand.Uint64())
		if !s.idTaken(id) {
			return id
		}
	}
}

// idTaken reports whether any resource already uses id.
func (s *Sim) idTaken(id string) bool {
	if _, ok := s.instances[id]; ok {
		return true
	}
	if _, ok := s.volumes[id]; ok {
		return true
	}
	if _, ok := s.reservations[id]; ok {
		return true
	}
	if s.netIDTaken(id) {
		return true
	}
	_, ok := s.associations[id]
	return ok
}

// newRequestID returns a UUID-shaped request id like EC2's.
func (s *Sim) newRequestID() string {
	a, b := s.reqRand.Uint64(), s.reqRand.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x",
		a>>32, (a>>16)&0xffff, a&0xfff, 0x8000|(b>>48)&0x3fff, b&0xffffffffffff)
}

// Id shapes EC2 accepts: the short 8-hex form and the long 17-hex form.
var (
	instanceIDPattern = regexp.MustCompile(`^i-([0-9a-f]{8}|[0-9a-f]{17})$`)
	imageIDPattern    = regexp.MustCompile(`^ami-([0-9a-f]{8}|[0-9a-f]{17})$`)
	volumeIDPattern   = regexp.MustCompile(`^vol-([0-9a-f]{8}|[0-9a-f]{17})$`)
	subnetIDPattern   = regexp.MustCompile(`^subnet-([0-9a-f]{8}|[0-9a-f]{17})$`)
	groupIDPattern    = regexp.MustCompile(`^sg-([0-9a-f]{8}|[0-9a-f]{17})$`)
	eniIDPattern      = regexp.MustCompile(`^eni-([0-9a-f]{8}|[0-9a-f]{17})$`)
	allocIDPattern    = regexp.MustCompile(`^eipalloc-([0-9a-f]{8}|[0-9a-f]{17})$`)
	assocIDPattern    = regexp.MustCompile(`^eipassoc-([0-9a-f]{8}|[0-9a-f]{17})$`)
)
