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

package v1alpha1

// This file holds the instance's lifecycle options: the power state the operator
// keeps it in, what happens to it when its EC2Instance is deleted, and Spot.

// DesiredState is the power state the operator keeps an instance in.
type DesiredState string

const (
	// DesiredStateRunning keeps the instance running.
	DesiredStateRunning DesiredState = "running"
	// DesiredStateStopped keeps the instance stopped.
	DesiredStateStopped DesiredState = "stopped"
	// DesiredStateHibernated stops the instance with hibernation (its memory is saved
	// and restored at the next start) and keeps it stopped.
	DesiredStateHibernated DesiredState = "hibernated"
)

// DeletionPolicy says what happens to the instance when its EC2Instance is deleted.
type DeletionPolicy string

const (
	// DeletionPolicyDelete terminates the instance.
	DeletionPolicyDelete DeletionPolicy = "Delete"
	// DeletionPolicyRetain leaves the instance and releases it from the operator.
	DeletionPolicyRetain DeletionPolicy = "Retain"
)

// ManagementPolicy says whether the operator manages the instance or only looks at it.
type ManagementPolicy string

const (
	// ManagementPolicyFull launches or adopts the instance and keeps it matching the
	// spec.
	ManagementPolicyFull ManagementPolicy = "Full"
	// ManagementPolicyObserve only reads the instance: status is filled from it and
	// differences from the spec are reported, never corrected; nothing in AWS is ever
	// changed, and deleting the object only releases it.
	ManagementPolicyObserve ManagementPolicy = "Observe"
)

// Observes reports whether the object only observes its instance.
func (s *EC2InstanceSpec) Observes() bool { return s.ManagementPolicy == ManagementPolicyObserve }

// WantsRunning reports whether the spec keeps the instance running (desiredState
// omitted means running).
func (s *EC2InstanceSpec) WantsRunning() bool {
	return s.DesiredState != DesiredStateStopped && s.DesiredState != DesiredStateHibernated
}

// WantsMonitoring reports whether detailed monitoring is asked for (omitted: off).
func (s *EC2InstanceSpec) WantsMonitoring() bool { return s.Monitoring != nil && *s.Monitoring }

// WantsTerminationProtection reports whether termination protection is asked for
// (omitted: off).
func (s *EC2InstanceSpec) WantsTerminationProtection() bool {
	return s.DisableAPITermination != nil && *s.DisableAPITermination
}

// SpotOptions requests a Spot Instance.
type SpotOptions struct {
	// maxPrice is the highest hourly price in USD you will pay, as a decimal string
	// (for example "0.05"). When omitted, the On-Demand price is the cap (AWS's
	// recommendation).
	// +optional
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]+)?$`
	// +kubebuilder:validation:MaxLength=16
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Spot Max Price (USD/hour)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	MaxPrice string `json:"maxPrice,omitempty"`

	// interruptionBehavior is what EC2 does when it reclaims the capacity: terminate
	// (the default), stop or hibernate. stop and hibernate use a persistent Spot
	// request, as EC2 requires.
	// +optional
	// +kubebuilder:default=terminate
	// +kubebuilder:validation:Enum=terminate;stop;hibernate
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Spot Interruption Behavior",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:terminate","urn:alm:descriptor:com.tectonic.ui:select:stop","urn:alm:descriptor:com.tectonic.ui:select:hibernate"}
	InterruptionBehavior SpotInterruptionBehavior `json:"interruptionBehavior,omitempty"`
}

// SpotInterruptionBehavior is what EC2 does to a Spot Instance it interrupts.
type SpotInterruptionBehavior string
