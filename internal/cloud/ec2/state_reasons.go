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

package ec2

import "strings"

// The predicates below read EC2's state reason codes (Instance.StateReasonCode), so
// that the controller decides from what they mean, not from their text.

// StoppedByFailure reports whether the instance stopped or terminated because
// something failed (for example Client.InternalError for an unusable KMS key,
// Client.VolumeLimitExceeded, Server.InsufficientInstanceCapacity), not because someone
// asked for it (Client.UserInitiatedShutdown, Client.UserInitiatedHibernate, and
// Client.InstanceInitiatedShutdown for a shutdown from inside the instance) and not by
// a Spot interruption.
func (i *Instance) StoppedByFailure() bool {
	code := i.StateReasonCode
	switch {
	case strings.HasPrefix(code, "Client.UserInitiated"), strings.HasPrefix(code, "Server.SpotInstance"),
		code == "Client.InstanceInitiatedShutdown":
		return false
	default:
		return strings.HasPrefix(code, "Client.") || strings.HasPrefix(code, "Server.")
	}
}

// SpotInterrupted reports whether EC2 stopped the Spot Instance for capacity or price
// (Server.SpotInstance*): only EC2 may start it again.
func (i *Instance) SpotInterrupted() bool {
	return i.Spot && strings.HasPrefix(i.StateReasonCode, "Server.SpotInstance")
}

// Hibernated reports whether the stopped instance was hibernated by its user
// (Client.UserInitiatedHibernate), not merely stopped.
func (i *Instance) Hibernated() bool { return i.StateReasonCode == "Client.UserInitiatedHibernate" }
