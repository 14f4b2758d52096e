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

import "time"

// VolumeFailure is how EBS ends a volume whose creation fails after CreateVolume
// answered. The API reference says of CreateVolume's KmsKeyId that EBS checks the key
// asynchronously, so that with a key it cannot use "the action can appear to
// complete, but eventually fails": the volume is reported creating, then is gone.
type VolumeFailure int

const (
	// VolumeVanishes: EBS forgets the volume; DescribeVolumes no longer lists it, and
	// by id it is InvalidVolume.NotFound.
	VolumeVanishes VolumeFailure = iota
	// VolumeErrors: the volume stays, in the error state, until it is deleted.
	VolumeErrors
)

// FailNextVolumeCreation makes the creation of the next volume CreateVolume creates
// fail as how says: it is answered creating like any other, stays creating for
// VolumeCreateDuration and then vanishes or goes to the error state instead of
// becoming available. Each call arms one failure; the armed failures are taken in
// order. A CreateVolume retried with the ClientToken of a volume already created
// creates nothing and takes none.
func (s *Sim) FailNextVolumeCreation(how VolumeFailure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.volumeFailures = append(s.volumeFailures, how)
}

// armCreationFailure gives a new volume the next armed failure, if any.
func (s *Sim) armCreationFailure(v *VolumeRecord) {
	if len(s.volumeFailures) == 0 {
		return
	}
	how := s.volumeFailures[0]
	s.volumeFailures = s.volumeFailures[1:]
	v.fails = &how
}

// finishCreation ends a volume's creation at the time at: it becomes available, or
// fails as it was armed to. It reports whether the volume is gone.
func (s *Sim) finishCreation(v *VolumeRecord, at time.Time) bool {
	switch {
	case v.fails == nil:
		v.State, v.since = VolumeAvailable, at
	case *v.fails == VolumeErrors:
		v.State, v.since = VolumeError, at
	default:
		s.deleteVolume(v.ID)
		return true
	}
	return false
}
