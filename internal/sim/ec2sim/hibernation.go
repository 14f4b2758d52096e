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

import "fmt"

// Reasons EC2 records for hibernation and for a shutdown from inside the
// instance ("State transition reasons", EC2 API reference StateReason).
const (
	hibernateReasonCode    = "Client.UserInitiatedHibernate"
	hibernateReasonMessage = "Client.UserInitiatedHibernate: User initiated hibernate"
	osShutdownReasonCode   = "Client.InstanceInitiatedShutdown"
	osShutdownReasonMsg    = "Client.InstanceInitiatedShutdown: Instance initiated shutdown"
)

// parseHibernation validates HibernationOptions.Configured against the
// User Guide's "Prerequisites for EC2 instance hibernation": a type whose
// family supports hibernation (not bare metal, at most 150 GB of RAM), an
// encrypted EBS root volume large enough to hold the RAM contents, and for
// Spot Instances an interruption behaviour of hibernate (HibernationOptionsRequest:
// omitted defaults to hibernate, anything else is an error).
func parseHibernation(p params, spec *launchSpec) *apiError {
	on, _ := p.boolean("HibernationOptions.Configured")
	if !on {
		return nil
	}
	ti, _ := lookupTypeInfo(spec.instanceType)
	if !ti.hibernation {
		// EC2 uses UnsupportedHibernationConfiguration for hibernation
		// prerequisites; this message is our guess.
		return clientErr("UnsupportedHibernationConfiguration", "The instance type '%s' does not support hibernation.", spec.instanceType)
	}
	if !spec.root.encrypted {
		// EC2's exact code and message for an unencrypted root volume.
		return clientErr("UnsupportedHibernationConfiguration", "For hibernation, the root device volume must be encrypted.")
	}
	// The User Guide asks for a root volume "large enough to store the RAM
	// contents and accommodate your expected usage"; the simulator enforces
	// the RAM part, rounded up to whole GiB. The message is our guess.
	if need := (ti.memMiB + 1023) / 1024; spec.root.sizeGiB < need {
		return clientErr("UnsupportedHibernationConfiguration", "For hibernation, the root device volume must be at least %d GiB to store the RAM contents of instance type '%s'.", need, spec.instanceType)
	}
	if spec.spot {
		explicit := p.str("InstanceMarketOptions.SpotOptions.InstanceInterruptionBehavior")
		if explicit != "" && explicit != "hibernate" {
			// The API reference says this is an error without naming it.
			return clientErr("InvalidParameterCombination", "The interruption behavior '%s' can't be used with hibernation. Specify hibernate or omit the interruption behavior.", explicit)
		}
		spec.spotBehavior = "hibernate"
		if spec.spotType == "one-time" {
			return clientErr("InvalidParameterCombination", "The interruption behavior '%s' is only supported for persistent Spot Instance requests.", spec.spotBehavior)
		}
	}
	spec.options.HibernationConfigured = true
	return nil
}

// checkStop applies the StopInstances rules this file adds: stop protection
// refuses the call ("Stop protection", EC2 User Guide; the code and message
// are EC2's), and Hibernate needs an instance configured for hibernation at
// launch (EC2 answers UnsupportedHibernationConfiguration with this message).
func checkStop(in *instance, hibernate bool) *apiError {
	if in.DisableAPIStop && (in.State == StateRunning || in.State == StatePending) {
		return clientErr("OperationNotPermitted", "The instance '%s' may not be stopped. Modify its 'disableApiStop' instance attribute and try again.", in.ID)
	}
	if hibernate && !in.HibernationConfigured {
		return clientErr("UnsupportedHibernationConfiguration", "The instance can't be hibernated because it was not configured at launch for hibernation: %s", in.ID)
	}
	return nil
}

// markHibernating records that a stop that just began is a hibernation, so
// the stopping and stopped states carry EC2's hibernate reason.
func markHibernating(in *instance) {
	in.StateReasonCode, in.StateReasonMessage = hibernateReasonCode, hibernateReasonMessage
}

// keepsStopReason reports whether the reason recorded when a stop or
// termination began must survive its completion: hibernation,
// OS-initiated shutdowns and Spot interruptions keep their own reasons,
// where everything else ends as a user-initiated shutdown.
func keepsStopReason(in *instance) bool {
	switch in.StateReasonCode {
	case hibernateReasonCode, osShutdownReasonCode, spotTerminationCode, spotShutdownCode:
		return true
	}
	return false
}

// ShutdownFromOS models "sudo shutdown" run inside a running instance. The
// instance stops or terminates according to its instance-initiated shutdown
// behaviour, regardless of stop and termination protection (the User Guide
// says neither protects against a shutdown from the OS), with the state
// reason Client.InstanceInitiatedShutdown.
func (s *Sim) ShutdownFromOS(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, err := s.liveInstance(id)
	if err != nil {
		return err
	}
	if in.State != StateRunning {
		return fmt.Errorf("ec2sim: instance %s is %s; only a running instance can shut itself down", id, in.State)
	}
	next := StateStopping
	if in.shutdownBehavior() == "terminate" {
		next = StateShuttingDown
	}
	// EC2 reports the same "User initiated (time)" transition reason as for an
	// API stop; only the state reason tells the two apart. We have not seen
	// EC2 document the transition reason for this case.
	s.userTransition(in, next)
	in.StateReasonCode, in.StateReasonMessage = osShutdownReasonCode, osShutdownReasonMsg
	return nil
}
