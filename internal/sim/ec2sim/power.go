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

// stateChange is one instancesSet item of Start/Stop/TerminateInstances.
type stateChange struct {
	id, previous, current string
}

// writeStateChanges renders instancesSet with previousState/currentState.
func writeStateChanges(x *xmlBuilder, changes []stateChange) {
	x.open("instancesSet")
	for _, c := range changes {
		x.open("item")
		x.leaf("instanceId", c.id)
		writeState(x, "currentState", c.current)
		writeState(x, "previousState", c.previous)
		x.close("item")
	}
	x.close("instancesSet")
}

// terminateInstances implements TerminateInstances. Termination protection
// on any instance fails the call before anything changes; terminating a
// terminated or shutting-down instance succeeds and reports its state.
func (s *Sim) terminateInstances(p params, x *xmlBuilder) *apiError {
	ins, err := s.lookupInstances(p.list("InstanceId"))
	if err != nil {
		return err
	}
	for _, in := range ins {
		if in.DisableAPITermination && in.State != StateTerminated && in.State != StateShuttingDown {
			return clientErr("OperationNotPermitted", "The instance '%s' may not be terminated. Modify its 'disableApiTermination' instance attribute and try again.", in.ID)
		}
	}
	var changes []stateChange
	for _, in := range ins {
		prev := in.State
		if prev != StateTerminated && prev != StateShuttingDown {
			s.userTransition(in, StateShuttingDown)
		}
		changes = append(changes, stateChange{in.ID, prev, in.State})
	}
	writeStateChanges(x, changes)
	return nil
}

// stopInstances implements StopInstances. Stopping a stopping or stopped
// instance succeeds; pending and terminating instances cannot be stopped,
// nor can Spot Instances of one-time requests or stop-protected instances.
// Hibernate=true needs an instance configured for hibernation (checkStop).
func (s *Sim) stopInstances(p params, x *xmlBuilder) *apiError {
	ins, err := s.lookupInstances(p.list("InstanceId"))
	if err != nil {
		return err
	}
	hibernate, _ := p.boolean("Hibernate")
	for _, in := range ins {
		switch in.State {
		case StatePending, StateShuttingDown, StateTerminated:
			return incorrectState(in.ID, "stopped")
		}
		if in.Spot && in.SpotInstanceType == "one-time" {
			return clientErr("UnsupportedOperation", "You can't stop the Spot Instance '%s' because it is associated with a one-time Spot Instance request. You can only stop Spot Instances associated with persistent Spot Instance requests.", in.ID)
		}
		if err := checkStop(in, hibernate); err != nil {
			return err
		}
	}
	var changes []stateChange
	for _, in := range ins {
		prev := in.State
		if prev == StateRunning {
			s.userTransition(in, StateStopping)
			if hibernate {
				markHibernating(in)
			}
		}
		changes = append(changes, stateChange{in.ID, prev, in.State})
	}
	writeStateChanges(x, changes)
	return nil
}

// startInstances implements StartInstances. Starting a pending or running
// instance succeeds; stopping and terminating instances cannot be started,
// and a stopped instance whose type its zone does not offer or has no
// capacity for fails the whole call before anything changes.
func (s *Sim) startInstances(p params, x *xmlBuilder) *apiError {
	ins, err := s.lookupInstances(p.list("InstanceId"))
	if err != nil {
		return err
	}
	for _, in := range ins {
		switch in.State {
		case StateStopping, StateShuttingDown, StateTerminated:
			return incorrectState(in.ID, "started")
		}
		if in.State == StateStopped {
			if err := s.checkPlacement(in.AZ, in.InstanceType); err != nil {
				return err
			}
			if err := s.checkStartPlacement(in); err != nil {
				return err
			}
		}
	}
	var changes []stateChange
	for _, in := range ins {
		prev := in.State
		if prev == StateStopped {
			s.restart(in)
		}
		changes = append(changes, stateChange{in.ID, prev, in.State})
	}
	writeStateChanges(x, changes)
	return nil
}

// restart moves a stopped instance back to pending. A restarted instance
// gets a new public IP (EC2 does not keep non-Elastic public addresses);
// one with an Elastic IP keeps it.
func (s *Sim) restart(in *instance) {
	now := s.now()
	in.State, in.since = StatePending, now
	in.StateReasonCode, in.StateReasonMessage, in.StateTransitionReason = "", "", ""
	in.LaunchTime = now
	s.rebindReservation(in)
	s.publishState(in, now)
	if in.publicOnStart && in.PublicIP == "" {
		in.PublicIP = s.allocatePublicIP()
		in.PublicDNSName = s.publicDNS(in.PublicIP)
	}
}
