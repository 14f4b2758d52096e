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

	// ConditionReconciling is True while the operator is moving the instance toward
	// the spec (launching, changing, stopping, starting, deleting), as kstatus reads
	// it: Argo CD, Flux and kubectl wait see the object as in progress.
	ConditionReconciling = "Reconciling"

	// ConditionStalled is True when the operator cannot make progress without the
	// user (invalid input, a refused change, an idempotency conflict, an existing
	// instance in the way); kstatus reads it as failed. Its reason says what is wrong.
	ConditionStalled = "Stalled"

	// ConditionDuplicateInstances is True when more than one live instance carries
	// this object's ownership tags; the message names the extras. It is absent
	// otherwise.
	ConditionDuplicateInstances = "DuplicateInstances"

	// ConditionElasticIPAssociated is present when spec.elasticIp is set: True once the
	// address is associated with the instance, False while the association waits for
	// the instance to run or EC2 refused it (the reason says why).
	ConditionElasticIPAssociated = "ElasticIPAssociated"

	// ConditionSpotInterruption is present and True when EC2 sent a Spot Instance
	// interruption warning for the instance (with --events-queue-url): the message
	// says what EC2 will do and when, about two minutes after the warning.
	ConditionSpotInterruption = "SpotInterruption"

	// ConditionSecondWriter is present and True while something other than this
	// operator keeps writing the object's status and the operator's own writes keep
	// conflicting with it: most often a second install of the operator watching the
	// same namespace. The message names the other field manager and when it wrote.
	// The operator backs off meanwhile; the condition goes once the writes stop.
	ConditionSecondWriter = "SecondWriter"

	// ConditionOutputsWritten is present when spec.outputsTo is set: True once the
	// ConfigMap or Secret holds the instance's current coordinates, False while there
	// is no instance yet or the object cannot be written (the reason says why: the
	// namespace has not granted it, or the name belongs to something else; both set
	// Stalled).
	ConditionOutputsWritten = "OutputsWritten"
)

// Reasons of ConditionOutputsWritten.
const (
	// ReasonOutputsWritten: the object holds the instance's current coordinates.
	ReasonOutputsWritten = "Written"
	// ReasonWaitingForInstance: no instance is recorded yet, so there is nothing to write.
	ReasonWaitingForInstance = "WaitingForInstance"
	// ReasonOutputsNotGranted: the namespace has not bound the operator the
	// ec2-operator-outputs-writer ClusterRole; the message says how to.
	ReasonOutputsNotGranted = "OutputsNotGranted"
	// ReasonOutputsTargetRefused: the named ConfigMap or Secret exists and is not
	// owned by this EC2Instance, or is one of the operator's own Secrets.
	ReasonOutputsTargetRefused = "OutputsTargetRefused"
)

// ReasonAnotherWriter is the reason of ConditionSecondWriter.
const ReasonAnotherWriter = "AnotherWriter"

// RetryAnnotation asks the operator to try again a launch it gave up on (Stalled with
// IdempotencyConflict): set it to a new value, for example a timestamp.
const RetryAnnotation = "compute.ec2-operator.dev/retry"

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
	// ReasonInstanceTypeUnavailable: EC2 could not start the instance with the new
	// type; it runs with the previous one again.
	ReasonInstanceTypeUnavailable = "InstanceTypeUnavailable"
	// ReasonStartFailed: the instance stopped again right after a start.
	ReasonStartFailed = "StartFailed"
	// ReasonInstanceExists: an instance tagged for this object's namespace and name
	// exists that the operator may not take over.
	ReasonInstanceExists = "InstanceExists"
	// ReasonRestored: an instance launched for an earlier object with this namespace
	// and name (deleted without its finalizer, then restored) was taken over.
	ReasonRestored = "Restored"
	// ReasonExtraInstances: more than one instance carries this object's tags.
	ReasonExtraInstances = "ExtraInstances"
	// ReasonSettled: nothing is in progress (Reconciling False).
	ReasonSettled = "Settled"
	// ReasonQuotaExceeded: the account's limit (instances, vCPUs, volumes) is reached.
	ReasonQuotaExceeded = "QuotaExceeded"
	// ReasonSnapshotNotFound: a volume's snapshot does not exist in the instance's
	// region.
	ReasonSnapshotNotFound = "SnapshotNotFound"
	// ReasonVolumeNotFound: a volume the operator created or expected is gone.
	ReasonVolumeNotFound = "VolumeNotFound"
	// ReasonVolumeZoneMismatch: a volume is in another availability zone than the
	// instance.
	ReasonVolumeZoneMismatch = "VolumeZoneMismatch"
	// ReasonAddressNotFound: the Elastic IP allocation does not exist.
	ReasonAddressNotFound = "AddressNotFound"
	// ReasonAddressInUse: the Elastic IP address is associated with another instance or
	// interface.
	ReasonAddressInUse = "AddressInUse"
	// ReasonAddressLimitExceeded: the account's Elastic IP quota for the region is used
	// up.
	ReasonAddressLimitExceeded = "AddressLimitExceeded"
	// ReasonIPAddressInUse: the requested private IP address is taken in the subnet.
	ReasonIPAddressInUse = "IPAddressInUse"
	// ReasonAssociationPending: the Elastic IP waits for the instance to run.
	ReasonAssociationPending = "AssociationPending"
	// ReasonAssociated: the Elastic IP is associated.
	ReasonAssociated = "Associated"
	// ReasonObserving: managementPolicy Observe; the instance is read, never changed.
	ReasonObserving = "Observing"
	// ReasonDriftDetected: in Observe, the instance differs from the spec; the message
	// says how, and nothing is corrected.
	ReasonDriftDetected = "DriftDetected"
	// ReasonNothingToObserve: managementPolicy Observe without an instance to look at
	// (no instanceId, and none launched earlier); Observe never launches.
	ReasonNothingToObserve = "NothingToObserve"
	// ReasonUserDataNotFound: the Secret or ConfigMap of userDataFrom, or its key, does
	// not exist.
	ReasonUserDataNotFound = "UserDataNotFound"
	// ReasonUserDataNotGranted: the namespace has not let the operator read its Secrets
	// and ConfigMaps (a RoleBinding to the ec2-operator-userdata-reader ClusterRole);
	// the message names the command that grants it.
	ReasonUserDataNotGranted = "UserDataNotGranted"
	// ReasonTagLimitExceeded: the tags the spec asks for would take the instance past
	// EC2's 50 tags per resource (tags added outside Kubernetes count too); nothing
	// is tagged until some are removed.
	ReasonTagLimitExceeded = "TagLimitExceeded"
	// ReasonReplacementPaused: the instance is not found in EC2, and so are many other
	// instances of its account and region; it is not replaced until a person sets the
	// retry annotation to a new value.
	ReasonReplacementPaused = "ReplacementPaused"
	// ReasonGuardrailViolation: the object asks for something its AWSAccount's
	// guardrails do not allow (an instance profile, key pair, subnet, VPC, security
	// group, image owner or instance type); the message names the field and the rule.
	ReasonGuardrailViolation = "GuardrailViolation"

	// ReasonRegionUnknown: the object's region (spec.region, or its account's default
	// region) is in no AWS partition the operator knows; nothing is called.
	ReasonRegionUnknown = "RegionUnknown"
	// ReasonUserDataSourceRefused: userDataFrom names a Secret the operator never
	// reads, whatever RBAC allows: a ServiceAccount or bootstrap token, or one of the
	// operator's own credentials.
	ReasonUserDataSourceRefused = "UserDataSourceRefused"
	// ReasonArchitectureMismatch: the image's architecture is not one the instance type
	// runs.
	ReasonArchitectureMismatch = "ArchitectureMismatch"
	// ReasonHibernated: the instance is hibernated, as desiredState asks.
	ReasonHibernated = "Hibernated"
	// ReasonInterruptionWarning: EC2 announced it will interrupt the Spot Instance.
	ReasonInterruptionWarning = "InterruptionWarning"
	// ReasonAccountNotFound: the AWSAccount that spec.accountRef (or the namespace's
	// default-account annotation) names does not exist.
	ReasonAccountNotFound = "AccountNotFound"
	// ReasonAccountNotAllowed: the AWSAccount does not allow the object's namespace;
	// nothing is called in AWS.
	ReasonAccountNotAllowed = "AccountNotAllowed"
	// ReasonAccountNotReady: the AWSAccount's role could not be assumed (its Ready
	// condition says why), or was not tried yet.
	ReasonAccountNotReady = "AccountNotReady"
	// ReasonAccountMismatch: the AWSAccount's role now acts in another AWS account than
	// the one the instance lives in; nothing is called until it points back.
	ReasonAccountMismatch = "AccountMismatch"
	// ReasonCRDUnreadable: the object (or AWSAccount) is being deleted and the
	// operator could not read its CustomResourceDefinition to tell an uninstall (the
	// CRD is being deleted: release, never terminate) from a deletion of the object
	// alone; nothing is done in AWS until it can.
	ReasonCRDUnreadable = "CRDUnreadable"
)

// Reasons of the AWSAccount Ready condition.
const (
	// ReasonVerified: the role was assumed and the caller identity read.
	ReasonVerified = "Verified"
	// ReasonAssumeRoleFailed: sts:AssumeRole or sts:GetCallerIdentity failed; the
	// message is AWS's.
	ReasonAssumeRoleFailed = "AssumeRoleFailed"
	// ReasonAccountInUse: the account is being deleted and waits until no
	// EC2Instance uses it (on DeletionBlocked).
	ReasonAccountInUse = "InUse"
)

// ConditionDeletionBlocked is True on an AWSAccount whose deletion waits until no
// EC2Instance uses it; its message names them. Ready keeps saying whether the role
// can be assumed, since the account serves those objects until they are gone.
const ConditionDeletionBlocked = "DeletionBlocked"
