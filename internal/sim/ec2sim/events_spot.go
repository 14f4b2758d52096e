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
	"time"
)

// SpotInterruptionNotice is how long before a Spot interruption EC2 emits
// the interruption warning ("Spot Instance interruption notices", EC2 User
// Guide: "two minutes prior to the actual interruption").
const SpotInterruptionNotice = 2 * time.Minute

// State reasons EC2 records when it interrupts a Spot Instance (EC2 API
// reference, StateReason).
const (
	spotTerminationCode = "Server.SpotInstanceTermination"
	spotTerminationMsg  = "Server.SpotInstanceTermination: Spot instance termination"
	spotShutdownCode    = "Server.SpotInstanceShutdown"
	spotShutdownMsg     = "Server.SpotInstanceShutdown: Spot instance shutdown"
)

// interruption is a Spot interruption announced but not yet carried out.
type interruption struct {
	action string
	at     time.Time
}

// InjectSpotInterruption makes EC2 reclaim a Spot Instance. It publishes an
// "EC2 Spot Instance Interruption Warning" now and performs action
// ("terminate", "stop" or "hibernate"; "" means the instance's interruption
// behaviour) SpotInterruptionNotice later on the Sim's clock, the next time
// anything looks at the Sim. As documented, hibernation gets the warning but
// no two-minute notice: it begins at once. The instance must be a running
// Spot Instance.
func (s *Sim) InjectSpotInterruption(id, action string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.liveInstance(id)
	if err != nil {
		return err
	}
	if !in.Spot {
		return fmt.Errorf("ec2sim: instance %s is not a Spot Instance", id)
	}
	if in.State != StateRunning && in.State != StatePending {
		return fmt.Errorf("ec2sim: instance %s is %s; only a running Spot Instance can be interrupted", id, in.State)
	}
	if action == "" {
		action = in.SpotInterruptionBehavior
	}
	switch action {
	case "terminate", "stop", "hibernate":
	default:
		return fmt.Errorf("ec2sim: unknown Spot interruption action %q (want terminate, stop or hibernate)", action)
	}
	now := s.now()
	s.publish(DetailTypeSpotInterruption, now, EventDetail{InstanceID: id, InstanceAction: action})
	if action == "hibernate" {
		s.interrupt(in, action, now)
		return nil
	}
	s.eventing().interruptions[id] = &interruption{action: action, at: now.Add(SpotInterruptionNotice)}
	return nil
}

// InjectRebalanceRecommendation publishes an "EC2 Instance Rebalance
// Recommendation" for a Spot Instance, the signal EC2 sends when the
// instance is at elevated risk of interruption. Nothing else changes.
func (s *Sim) InjectRebalanceRecommendation(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.liveInstance(id)
	if err != nil {
		return err
	}
	if !in.Spot {
		return fmt.Errorf("ec2sim: instance %s is not a Spot Instance", id)
	}
	if in.State == StateTerminated || in.State == StateShuttingDown {
		return fmt.Errorf("ec2sim: instance %s is %s", id, in.State)
	}
	s.publish(DetailTypeRebalance, s.now(), EventDetail{InstanceID: id})
	return nil
}

// interruptDue carries out in's scheduled interruption if it is due by now.
// The instance's lifecycle is first advanced to the interruption time so
// that later timers chain from the moment EC2 acted.
func (s *Sim) interruptDue(in *instance, now time.Time) {
	if s.events == nil {
		return
	}
	p := s.events.interruptions[in.ID]
	if p == nil || now.Before(p.at) {
		return
	}
	delete(s.events.interruptions, in.ID)
	for s.step(in, p.at) {
	}
	s.interrupt(in, p.action, p.at)
}

// interrupt stops, hibernates or terminates a Spot Instance at time at. An
// instance that already left the running state (say, the user terminated it
// during the notice) is left alone.
func (s *Sim) interrupt(in *instance, action string, at time.Time) {
	if in.State != StateRunning && in.State != StatePending {
		return
	}
	next, code, msg := StateStopping, spotShutdownCode, spotShutdownMsg
	if action == "terminate" {
		next, code, msg = StateShuttingDown, spotTerminationCode, spotTerminationMsg
	}
	in.State, in.since = next, at
	in.StateTransitionReason = "Server initiated (" + at.Format("2006-01-02 15:04:05 GMT") + ")"
	in.StateReasonCode, in.StateReasonMessage = code, msg
	if action == "hibernate" {
		markHibernating(in)
	}
	s.publishState(in, at)
}
