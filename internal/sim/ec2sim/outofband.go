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
)

// The methods in this file change instances "behind the operator's back",
// the way a person in the console or an AWS-initiated event would. They
// bypass API validation that exists to protect callers (termination
// protection, Spot restrictions) but keep the lifecycle consistent.

// liveInstance fetches an instance for an out-of-band change.
func (s *Sim) liveInstance(id string) (*instance, error) {
	s.advance()
	in, ok := s.instances[id]
	if !ok {
		return nil, fmt.Errorf("ec2sim: instance %s does not exist", id)
	}
	return in, nil
}

// StopInstance starts stopping a running (or pending) instance.
func (s *Sim) StopInstance(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.liveInstance(id)
	if err != nil {
		return err
	}
	switch in.State {
	case StateRunning, StatePending:
		s.userTransition(in, StateStopping)
		return nil
	case StateStopping, StateStopped:
		return nil
	}
	return fmt.Errorf("ec2sim: instance %s is %s and cannot be stopped", id, in.State)
}

// StartInstance starts a stopped instance.
func (s *Sim) StartInstance(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.liveInstance(id)
	if err != nil {
		return err
	}
	switch in.State {
	case StateStopped:
		s.restart(in)
		return nil
	case StatePending, StateRunning:
		return nil
	}
	return fmt.Errorf("ec2sim: instance %s is %s and cannot be started", id, in.State)
}

// TerminateInstance starts terminating an instance, ignoring termination
// protection (as a console user who first disables it would).
func (s *Sim) TerminateInstance(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.liveInstance(id)
	if err != nil {
		return err
	}
	if in.State != StateTerminated && in.State != StateShuttingDown {
		s.userTransition(in, StateShuttingDown)
	}
	return nil
}

// SetTags adds or overwrites tags on an instance or volume.
func (s *Sim) SetTags(id string, tags map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	t, apiErr := s.taggable(id)
	if apiErr != nil {
		return apiErr
	}
	m := maps.Clone(*t)
	if m == nil {
		m = map[string]string{}
	}
	maps.Copy(m, tags)
	*t = m
	return nil
}

// ModifyInstance applies an arbitrary edit to an instance's record, e.g.
// changing its type, security groups, metadata options, monitoring or
// termination protection. The ID cannot be changed; a State change is
// taken as entered now.
func (s *Sim) ModifyInstance(id string, fn func(*InstanceRecord)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.liveInstance(id)
	if err != nil {
		return err
	}
	rec := in.clone()
	fn(&rec)
	rec.ID = in.ID
	if _, ok := stateCodes[rec.State]; !ok {
		return fmt.Errorf("ec2sim: unknown state %q", rec.State)
	}
	if rec.Tags == nil {
		rec.Tags = map[string]string{}
	}
	newState := rec.State
	rec.State = in.State
	in.InstanceRecord = rec
	if newState != in.State {
		// enterState applies side effects such as releasing volumes on termination.
		s.enterState(in, newState, s.now())
	}
	return nil
}

// AttachForeignVolume creates a gp3 volume in the instance's zone and attaches it at
// device, as another party would (a CSI driver, a user with AttachVolume): the volume
// carries only the given tags and is kept when the instance terminates.
func (s *Sim) AttachForeignVolume(instanceID, device string, sizeGiB int, tags map[string]string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.liveInstance(instanceID)
	if err != nil {
		return "", err
	}
	now := s.now()
	v := s.createVolume(volumeSpec{device: device, sizeGiB: sizeGiB, volumeType: "gp3"}, in.AZ, tags, in.ID, now)
	in.BlockDevices = append(in.BlockDevices, BlockDevice{DeviceName: device, VolumeID: v.ID, AttachTime: now})
	return v.ID, nil
}
