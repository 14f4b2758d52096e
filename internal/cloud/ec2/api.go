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

// Package ec2 is the operator's only door to Amazon EC2. It hides the AWS SDK behind
// the Client interface the controller uses, itself made of small interfaces, one per
// kind of use (instances, their settings, volumes, addresses, network, images, tags,
// fleet hints), classifies AWS errors into the typed errors of errors.go, owns the tag conventions (ownership tags, managed tags), coalesces
// DescribeInstances lookups, and records every SDK call for metrics. Nothing here knows
// about Kubernetes objects.
package ec2

import (
	"context"
	"time"
)

// Client is everything the controller may ask of EC2: the composition of the small
// interfaces below, so that a caller needing one of them can ask for just that one and a
// test can fake just what it uses. Every method is safe to repeat: the controller calls
// them again after a crash or a requeue without knowing whether the previous call took
// effect. Errors are classified (see errors.go) so that the caller can tell "gone" from
// "slow down" from "your input is wrong". AWSClient implements it with the AWS SDK;
// the controller's phases each ask for the part they use (launch.EC2, converge.EC2,
// ...), which their tests fake.
type Client interface {
	Instances
	InstanceSettings
	Volumes
	Addresses
	Network
	Images
	Tags
	FleetHints
}

// Instances launches, finds and changes the power state of instances: what the
// controller needs to bring an instance into existence, keep track of it and end it.
type Instances interface {
	// RunInstance launches one instance with req.ClientToken as EC2's idempotency
	// token. Repeating it with the same token and parameters returns the same
	// instance instead of launching a second one. All tags in req.Tags are applied at
	// launch, on the instance and its volumes, through TagSpecifications.
	RunInstance(ctx context.Context, req LaunchRequest) (*Instance, error)

	// RunInstances launches req.Count alike instances in one call, as RunInstance
	// launches one: the same token and parameters return the same instances. EC2 may
	// launch fewer than asked (never none without an error); each carries its
	// LaunchIndex.
	RunInstances(ctx context.Context, req LaunchRequest) ([]Instance, error)

	// GetInstance describes one instance by ID. Concurrent calls are coalesced into
	// batched DescribeInstances requests. It returns an error for which awserrors.IsNotFound is
	// true when EC2 does not know the ID (never launched, or terminated long ago).
	GetInstance(ctx context.Context, id string) (*Instance, error)

	// FindInstances lists the instances matching every non-empty field of the filter,
	// including recently terminated ones (their State says so). The operator uses it to
	// find an instance it launched but did not record, before launching again.
	FindInstances(ctx context.Context, filter InstanceFilter) ([]Instance, error)

	// OwnedInstances lists the live (not shutting-down or terminated) instances that
	// carry the ownership tags of a namespace and an object name, whatever object UID
	// they name (an empty name: every object's). One listing of the namespace answers
	// every caller for a few seconds, so it may miss an instance launched since;
	// callers that act on what it returns look the instance up again first. It holds
	// every cluster's instances (another cluster's must be seen to be reported):
	// callers act only on those whose TagCluster is theirs, or, without one, whose
	// TagOwnerUID is their object's.
	OwnedInstances(ctx context.Context, namespace, name string) ([]Instance, error)

	// StartInstance starts the instance. Starting a pending or running instance succeeds.
	StartInstance(ctx context.Context, id string) error

	// StopInstance stops the instance. Stopping a stopping or stopped instance succeeds.
	StopInstance(ctx context.Context, id string) error

	// HibernateInstance stops the instance with hibernation.
	HibernateInstance(ctx context.Context, id string) error

	// TerminateInstance terminates the instance and returns its state after the call
	// (shutting-down, or terminated). Terminating an instance that is already shutting
	// down or terminated succeeds. An instance with termination protection fails with
	// OperationNotPermitted (awserrors.KindTerminal).
	TerminateInstance(ctx context.Context, id string) (string, error)

	// CancelSpotRequest cancels a Spot Instance request, so that EC2 does not relaunch
	// an instance the operator terminates. Cancelling a cancelled request succeeds.
	CancelSpotRequest(ctx context.Context, requestID string) error
}

// InstanceSettings reads and changes the attributes of an existing instance that
// DescribeInstances does not fully cover or that EC2 changes one call at a time: what
// drift correction needs. Several of them EC2 allows only while the instance is stopped.
type InstanceSettings interface {
	// GetInstanceAttributes reads the attributes DescribeInstances does not return.
	GetInstanceAttributes(ctx context.Context, id string) (*InstanceAttributes, error)

	// GetLifecycleAttributes reads stop protection and the shutdown behaviour.
	GetLifecycleAttributes(ctx context.Context, id string) (*LifecycleAttributes, error)

	// GetCreditSpecification returns a burstable instance's CPU credit option.
	GetCreditSpecification(ctx context.Context, id string) (string, error)

	// ModifyInstanceType changes the instance type; EC2 allows it only while stopped.
	ModifyInstanceType(ctx context.Context, id, instanceType string) error

	// ModifySecurityGroups replaces the security groups of the primary interface.
	ModifySecurityGroups(ctx context.Context, id string, groupIDs []string) error

	// ModifyTerminationProtection sets disableApiTermination.
	ModifyTerminationProtection(ctx context.Context, id string, enabled bool) error

	// ModifyUserData replaces the user data (plain text; encoded here). EC2 allows it
	// only while the instance is stopped.
	ModifyUserData(ctx context.Context, id, userData string) error

	// ModifyMetadataOptions changes the instance metadata service options.
	ModifyMetadataOptions(ctx context.Context, id string, opts MetadataOptions) error

	// SetDetailedMonitoring turns CloudWatch detailed monitoring on or off.
	SetDetailedMonitoring(ctx context.Context, id string, enabled bool) error

	// SetIAMInstanceProfile associates the profile (name or ARN), replacing any other
	// association; an empty profile removes the association.
	SetIAMInstanceProfile(ctx context.Context, id, profile string) error

	// SetSourceDestCheck turns the instance's source/destination check on or off.
	SetSourceDestCheck(ctx context.Context, instanceID string, enabled bool) error

	// SetStopProtection sets disableApiStop.
	SetStopProtection(ctx context.Context, id string, enabled bool) error

	// SetShutdownBehavior sets what a shutdown from inside the instance does.
	SetShutdownBehavior(ctx context.Context, id, behavior string) error

	// SetAutoRecovery sets simplified automatic recovery.
	SetAutoRecovery(ctx context.Context, id, autoRecovery string) error

	// SetPrivateDNSNameOptions changes the hostname type and DNS records (stopped only
	// for the hostname type).
	SetPrivateDNSNameOptions(ctx context.Context, id string, opts PrivateDNSNameOptions) error

	// SetCapacityReservation changes the reservation preference or target (stopped
	// only).
	SetCapacityReservation(ctx context.Context, id string, spec CapacityReservationSpec) error

	// SetPlacement moves the instance to another group, partition, tenancy or host
	// (stopped only), or changes its affinity; changeGroup says whether the group is
	// to change (an empty GroupName leaves any group).
	SetPlacement(ctx context.Context, id string, p PlacementSpec, changeGroup bool) error

	// SetCPUOptions changes the cores and threads per core (stopped only).
	SetCPUOptions(ctx context.Context, id string, o CPUOptions) error

	// SetCreditSpecification sets a burstable instance's CPU credit option.
	SetCreditSpecification(ctx context.Context, id, credits string) error
}

// Volumes creates, finds, attaches, changes and deletes EBS volumes, the root volume's
// size and the delete-on-termination flag of attached ones included.
type Volumes interface {
	// DescribeVolumes returns the EBS volumes among ids that exist, keyed by ID; lookups
	// of many callers within a short window share one DescribeVolumes request.
	DescribeVolumes(ctx context.Context, ids []string) (map[string]Volume, error)

	// FindVolumes lists the volumes carrying every one of tags.
	FindVolumes(ctx context.Context, tags map[string]string) ([]Volume, error)

	// DescribeSnapshot returns an EBS snapshot's owner and size; an ID the account
	// cannot see fails as invalid input (InvalidSnapshot.NotFound).
	DescribeSnapshot(ctx context.Context, id string) (*Snapshot, error)

	// GetVolumeSize returns the size of an EBS volume in GiB.
	GetVolumeSize(ctx context.Context, volumeID string) (int32, error)

	// CreateVolume creates a volume in zone with token as the idempotency token, tagged
	// at creation: repeated with the same token, it returns the same volume.
	CreateVolume(ctx context.Context, zone, token string, req VolumeRequest, tags map[string]string) (*Volume, error)

	// AttachVolume attaches an available volume to the instance at device.
	AttachVolume(ctx context.Context, volumeID, instanceID, device string) error

	// DetachVolume detaches a volume from the instance.
	DetachVolume(ctx context.Context, volumeID, instanceID string) error

	// ModifyVolume changes size, type, IOPS or throughput in place.
	ModifyVolume(ctx context.Context, volumeID string, change VolumeChange) error

	// ResizeVolume grows an EBS volume to sizeGiB.
	ResizeVolume(ctx context.Context, volumeID string, sizeGiB int32) error

	// SetDeleteOnTermination sets whether the volume at device goes with the instance.
	SetDeleteOnTermination(ctx context.Context, instanceID, device string, deleteOnTermination bool) error

	// DeleteVolume deletes a detached volume; a volume already gone is not an error.
	DeleteVolume(ctx context.Context, volumeID string) error
}

// Addresses manages the addresses of an instance beyond the one EC2 gives it: Elastic
// IPs and the secondary private IPv4 addresses of a network interface.
type Addresses interface {
	// DescribeAddresses returns the Elastic IPs among allocationIDs that exist, keyed
	// by allocation ID; lookups within a short window share one request.
	DescribeAddresses(ctx context.Context, allocationIDs []string) (map[string]Address, error)

	// OwnedAddresses lists the Elastic IPs tagged for a namespace, whatever object
	// they name. One listing answers every caller for the namespace for a few seconds,
	// with the addresses this client allocated meanwhile, so it may still show an
	// address released since. Like OwnedInstances, it holds every cluster's.
	OwnedAddresses(ctx context.Context, namespace string) ([]Address, error)

	// AllocateAddress allocates an Elastic IP (from pool, when set), tagged at
	// allocation.
	AllocateAddress(ctx context.Context, pool string, tags map[string]string) (*Address, error)

	// AssociateAddress associates an Elastic IP with the instance's network interface,
	// never taking it from another association, and returns the association ID.
	AssociateAddress(ctx context.Context, allocationID, instanceID, networkInterfaceID string) (string, error)

	// DisassociateAddress ends an association; one already gone is not an error. The
	// instance's remembered description is dropped (its public IP changes) unless
	// instanceID is empty, which a caller about to terminate the instance passes, so
	// that a retry held back by the API budget is answered from memory.
	DisassociateAddress(ctx context.Context, associationID, instanceID string) error

	// ReleaseAddress releases an Elastic IP; one already gone is not an error.
	ReleaseAddress(ctx context.Context, allocationID string) error

	// SetSecondaryPrivateIPCount assigns or releases secondary private IPv4 addresses
	// of the interface so that it has count of them (secondaries are its current
	// ones, in order; the last ones are released).
	SetSecondaryPrivateIPCount(ctx context.Context, instanceID, networkInterfaceID string, secondaries []string, count int32) error
}

// Network looks up where an instance can go: the subnets and security groups that the
// spec's selectors name.
type Network interface {
	// FindSubnets lists the subnets matching the query.
	FindSubnets(ctx context.Context, q SubnetQuery) ([]Subnet, error)

	// FindSecurityGroups lists the security groups matching the query, by ID.
	FindSecurityGroups(ctx context.Context, q SecurityGroupQuery) ([]SecurityGroup, error)
}

// Images looks up what an instance is launched from and on: images and instance types.
type Images interface {
	// FindImages lists the available images matching the query, newest first.
	FindImages(ctx context.Context, q ImageQuery) ([]Image, error)

	// DescribeImage returns one image by ID.
	DescribeImage(ctx context.Context, id string) (*Image, error)

	// InstanceType describes an instance type (architectures, CPU options, memory,
	// hibernation support).
	InstanceType(ctx context.Context, name string) (*InstanceTypeInfo, error)
}

// Tags adds and removes tags on any EC2 resource (instances, volumes, addresses). A
// call, answered or refused, makes the next lookup of the resources describe them
// afresh: a refusal such as TagLimitExceeded means what the caller knew of their tags
// was older than EC2's.
type Tags interface {
	// CreateTags adds or overwrites tags on the given resources.
	CreateTags(ctx context.Context, resourceIDs []string, tags map[string]string) error

	// DeleteTags removes the given tag keys from the given resources, whatever their
	// values.
	DeleteTags(ctx context.Context, resourceIDs []string, keys []string) error
}

// FleetHints are what a caller tells the client, or learns from it, about batching
// and pacing, so that many objects share EC2 calls. None of them calls EC2: a client
// that neither batches nor paces may ignore the hints and report no delay, and
// callers stay correct, only slower.
type FleetHints interface {
	// LaunchTurn says whether the launch under this client token, for tenant (the
	// object's namespace), may be sent now (zero) or how long it should wait for its
	// turn in EC2's RunInstances budget (two launches a second once a burst of five is
	// spent, by default), so that a caller comes back then instead of blocking.
	// Tenants take turns, one launch each, and each tenant's launches go in the order
	// they first asked, so that one namespace's backlog cannot hold back another's
	// launch. A zero answer keeps the launch's tokens for its RunInstance call, which
	// should follow at once.
	LaunchTurn(clientToken, tenant string) time.Duration

	// LaunchBacklog says about how long the launches waiting for their turn take to
	// be sent (zero when none waits), so that a new instance can be looked at once
	// the launches around it are done, in one call.
	LaunchBacklog() time.Duration

	// ChangedElsewhere says these instances changed outside this client (an EC2
	// event said so), so that the next lookup describes them afresh.
	ChangedElsewhere(ids ...string)

	// ExpectLookups tells the client that these instances will be looked up soon (a manager
	// starting with a fleet it already manages), so that one batched
	// DescribeInstances call answers them all rather than one call each.
	ExpectLookups(ids []string)
}
