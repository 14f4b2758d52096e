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

// Finalizer is set on every EC2Instance before the operator makes any AWS call, so
// that the instance cannot be orphaned by deleting the object.
const Finalizer = "compute.ec2-operator.dev/finalizer"

// Condition types reported in status.conditions.
const (
	// ConditionReady is True when the instance exists, is in the desired power state
	// and matches every mutable field of the spec. kubectl wait --for=condition=Ready
	// waits on it.
	ConditionReady = "Ready"

	// ConditionInstanceLaunched is True once an instance exists for this object
	// (launched or adopted). It turns False when the instance is found terminated
	// outside Kubernetes, until a replacement is launched.
	ConditionInstanceLaunched = "InstanceLaunched"

	// ConditionSynced is True when every mutable field of the spec was applied at the
	// last settled pass. It is False with UserDataPendingStop (user data waits for the
	// next stop), UpdateFailed (EC2 refused a change) or ImmutableFieldDiffers
	// (immutable fields of an adopted instance differ from the spec).
	ConditionSynced = "Synced"
)

// Reasons used on the conditions above. They are part of the API: alerts and
// scripts match on them.
const (
	ReasonAvailable            = "Available"
	ReasonProvisioning         = "Provisioning"
	ReasonPending              = "Pending"
	ReasonStarting             = "Starting"
	ReasonStopping             = "Stopping"
	ReasonStopped              = "Stopped"
	ReasonUpdating             = "Updating"
	ReasonInSync               = "InSync"
	ReasonImmutableFieldDiffer = "ImmutableFieldDiffers"
	ReasonRecreating           = "Recreating"
	ReasonTerminatedOutOfBand  = "TerminatedOutsideKubernetes"
	ReasonDeleting             = "Deleting"
	ReasonInvalidSpec          = "InvalidSpec"
	ReasonImageNotFound        = "ImageNotFound"
	ReasonSubnetNotFound       = "SubnetNotFound"
	ReasonSecurityGroupMissing = "SecurityGroupNotFound"
	ReasonInstanceNotFound     = "InstanceNotFound"
	ReasonInsufficientCapacity = "InsufficientCapacity"
	ReasonThrottled            = "Throttled"
	ReasonAuthFailure          = "AuthFailure"
	ReasonIdempotencyConflict  = "IdempotencyConflict"
	ReasonOwnedByAnother       = "OwnedByAnotherResource"
	ReasonAWSError             = "AWSError"
	ReasonLaunchFailed         = "LaunchFailed"
	ReasonUpdateFailed         = "UpdateFailed"
	ReasonSpotInterrupted      = "SpotInterrupted"
)
