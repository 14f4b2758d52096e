// Package ec2 is the operator's only door to Amazon EC2. It hides the AWS SDK behind
// the narrow Client interface the controller uses, classifies AWS errors into the typed
// errors of errors.go, owns the tag conventions (ownership tags, managed tags), coalesces
// DescribeInstances lookups, and records every SDK call for metrics. Nothing here knows
// about Kubernetes objects.
package ec2

import (
	"context"
	"time"
)

// Client is everything the controller may ask of EC2. Every method is safe to repeat:
// the controller calls them again after a crash or a requeue without knowing whether
// the previous call took effect. Errors are classified (see errors.go) so that the
// caller can tell "gone" from "slow down" from "your input is wrong".
type Client interface {
	// RunInstance launches one instance with req.ClientToken as EC2's idempotency
	// token. Repeating it with the same token and parameters returns the same
	// instance instead of launching a second one. All tags in req.Tags are applied at
	// launch, on the instance and its volumes, through TagSpecifications.
	RunInstance(ctx context.Context, req LaunchRequest) (*Instance, error)

	// LaunchDelay says how long a RunInstance call would wait now for EC2's
	// RunInstances budget (two launches a second once a burst of five is spent, by
	// default), so that a caller can come back later instead of blocking.
	LaunchDelay() time.Duration

	// GetInstance describes one instance by ID. Concurrent calls are coalesced into
	// batched DescribeInstances requests. It returns an error for which IsNotFound is
	// true when EC2 does not know the ID (never launched, or terminated long ago).
	GetInstance(ctx context.Context, id string) (*Instance, error)

	// Invalidate drops what the client remembers of these instances (an EC2 event
	// said they changed), so that the next lookup describes them.
	Invalidate(ids ...string)

	// Expect tells the client that these instances will be looked up soon (a manager
	// starting with a fleet it already manages), so that one batched
	// DescribeInstances call answers them all rather than one call each.
	Expect(ids []string)

	// FindInstances lists the instances matching every non-empty field of the filter,
	// including recently terminated ones (their State says so). The operator uses it to
	// find an instance it launched but did not record, before launching again.
	FindInstances(ctx context.Context, filter InstanceFilter) ([]Instance, error)

	// OwnedInstances lists the live (not shutting-down or terminated) instances that
	// carry the ownership tag of a namespace, whatever object they name. One listing
	// answers every caller for the namespace for a few seconds, so it may miss an
	// instance launched since; callers that act on what it returns look the instance
	// up again first. It holds every cluster's instances of the namespace (another
	// cluster's must be seen to be reported): callers act only on those whose
	// TagCluster is theirs, or, without one, whose TagOwnerUID is their object's.
	OwnedInstances(ctx context.Context, namespace string) ([]Instance, error)

	// GetInstanceAttributes reads the attributes DescribeInstances does not return.
	GetInstanceAttributes(ctx context.Context, id string) (*InstanceAttributes, error)

	// TerminateInstance terminates the instance and returns its state after the call
	// (shutting-down, or terminated). Terminating an instance that is already shutting
	// down or terminated succeeds. An instance with termination protection fails with
	// OperationNotPermitted (KindTerminal).
	TerminateInstance(ctx context.Context, id string) (string, error)
	// StopInstance stops the instance. Stopping a stopping or stopped instance succeeds.
	StopInstance(ctx context.Context, id string) error
	// StartInstance starts the instance. Starting a pending or running instance succeeds.
	StartInstance(ctx context.Context, id string) error

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
	// ResizeVolume grows an EBS volume to sizeGiB.
	ResizeVolume(ctx context.Context, volumeID string, sizeGiB int32) error
	// GetVolumeSize returns the size of an EBS volume in GiB.
	GetVolumeSize(ctx context.Context, volumeID string) (int32, error)

	// DescribeVolumes returns the EBS volumes among ids that exist, keyed by ID; lookups
	// of many callers within a short window share one DescribeVolumes request.
	DescribeVolumes(ctx context.Context, ids []string) (map[string]Volume, error)
	// CreateVolume creates a volume in zone with token as the idempotency token, tagged
	// at creation: repeated with the same token, it returns the same volume.
	CreateVolume(ctx context.Context, zone, token string, req VolumeRequest, tags map[string]string) (*Volume, error)
	// FindVolumes lists the volumes carrying every one of tags.
	FindVolumes(ctx context.Context, tags map[string]string) ([]Volume, error)
	// AttachVolume attaches an available volume to the instance at device.
	AttachVolume(ctx context.Context, volumeID, instanceID, device string) error
	// DetachVolume detaches a volume from the instance.
	DetachVolume(ctx context.Context, volumeID, instanceID string) error
	// DeleteVolume deletes a detached volume; a volume already gone is not an error.
	DeleteVolume(ctx context.Context, volumeID string) error
	// ModifyVolume changes size, type, IOPS or throughput in place.
	ModifyVolume(ctx context.Context, volumeID string, change VolumeChange) error
	// SetDeleteOnTermination sets whether the volume at device goes with the instance.
	SetDeleteOnTermination(ctx context.Context, instanceID, device string, deleteOnTermination bool) error

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

	// FindSubnets lists the subnets matching the query.
	FindSubnets(ctx context.Context, q SubnetQuery) ([]Subnet, error)
	// FindSecurityGroups lists the security groups matching the query, by ID.
	FindSecurityGroups(ctx context.Context, q SecurityGroupQuery) ([]SecurityGroup, error)
	// SetSecondaryPrivateIPCount assigns or releases secondary private IPv4 addresses
	// of the interface so that it has count of them (secondaries are its current
	// ones, in order; the last ones are released).
	SetSecondaryPrivateIPCount(ctx context.Context, instanceID, networkInterfaceID string, secondaries []string, count int32) error
	// SetSourceDestCheck turns the instance's source/destination check on or off.
	SetSourceDestCheck(ctx context.Context, instanceID string, enabled bool) error

	// FindImages lists the available images matching the query, newest first.
	FindImages(ctx context.Context, q ImageQuery) ([]Image, error)
	// DescribeImage returns one image by ID.
	DescribeImage(ctx context.Context, id string) (*Image, error)
	// InstanceType describes an instance type (architectures, CPU options, memory,
	// hibernation support).
	InstanceType(ctx context.Context, name string) (*InstanceTypeInfo, error)
	// HibernateInstance stops the instance with hibernation.
	HibernateInstance(ctx context.Context, id string) error
	// GetLifecycleAttributes reads stop protection and the shutdown behaviour.
	GetLifecycleAttributes(ctx context.Context, id string) (*LifecycleAttributes, error)
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
	// GetCreditSpecification returns a burstable instance's CPU credit option.
	GetCreditSpecification(ctx context.Context, id string) (string, error)
	// SetCreditSpecification sets a burstable instance's CPU credit option.
	SetCreditSpecification(ctx context.Context, id, credits string) error

	// CancelSpotRequest cancels a Spot Instance request, so that EC2 does not relaunch
	// an instance the operator terminates. Cancelling a cancelled request succeeds.
	CancelSpotRequest(ctx context.Context, requestID string) error

	// CreateTags adds or overwrites tags on the given resources.
	CreateTags(ctx context.Context, resourceIDs []string, tags map[string]string) error
	// DeleteTags removes the given tag keys from the given resources, whatever their
	// values.
	DeleteTags(ctx context.Context, resourceIDs []string, keys []string) error
}

// LaunchRequest describes one instance to launch.
type LaunchRequest struct {
	// ClientToken is EC2's idempotency token (at most 64 ASCII characters).
	ClientToken string
	// ImageID is an AMI ID or a resolve:ssm: parameter reference.
	ImageID      string
	InstanceType string
	SubnetID     string
	// SecurityGroupIDs are the groups of the primary network interface.
	SecurityGroupIDs []string
	KeyName          string
	// UserData is plain text; the client base64-encodes it.
	UserData string
	// IAMInstanceProfile is a profile name or ARN.
	IAMInstanceProfile string
	// RootVolume, when set, overrides the AMI's root block device.
	RootVolume *RootVolume
	// Tags are applied at launch to the instance and its volumes.
	Tags            map[string]string
	MetadataOptions MetadataOptions
	// DetailedMonitoring enables one-minute CloudWatch metrics.
	DetailedMonitoring    bool
	DisableAPITermination bool
	// AssociatePublicIPAddress, when not nil, overrides the subnet's setting.
	AssociatePublicIPAddress *bool
	AvailabilityZone         string
	// Spot, when not nil, launches a Spot Instance.
	Spot *SpotOptions
	// Volumes are data volumes created and attached at launch, tagged like the root
	// volume.
	Volumes []VolumeRequest
	// Hibernation enables hibernation (EC2 allows it only at launch).
	Hibernation bool
	// StopProtection, when not nil, sets disableApiStop.
	StopProtection *bool
	// ShutdownBehavior, when set, is stop or terminate.
	ShutdownBehavior string
	// AutoRecovery, when set, is default or disabled.
	AutoRecovery string
	// PrivateDNSNameOptions, when not nil, sets the hostname type and records.
	PrivateDNSNameOptions *PrivateDNSNameOptions
	// CreditSpecification, when set, is standard or unlimited.
	CreditSpecification string
	// CPUOptions, when not nil, sets cores and threads per core.
	CPUOptions *CPUOptions
	// CapacityReservation, when not nil, sets the reservation preference or target.
	CapacityReservation *CapacityReservationSpec
	// Placement, when not nil, places the instance.
	Placement *PlacementSpec
	// PrivateIPAddress, SecondaryPrivateIPAddressCount, IPv6AddressCount and
	// IPv6Addresses address the primary network interface; zero values let EC2 choose.
	PrivateIPAddress               string
	SecondaryPrivateIPAddressCount int32
	IPv6AddressCount               int32
	IPv6Addresses                  []string
}

// RootVolume configures the root EBS volume at launch.
type RootVolume struct {
	// SizeGiB of zero keeps the AMI's size.
	SizeGiB             int32
	Type                string
	IOPS                int32
	Throughput          int32
	Encrypted           *bool
	KMSKeyID            string
	DeleteOnTermination *bool
}

// SpotOptions requests a Spot Instance.
type SpotOptions struct {
	// MaxPrice is a decimal USD price; empty means the On-Demand price.
	MaxPrice string
	// InterruptionBehavior is terminate, stop or hibernate.
	InterruptionBehavior string
}

// MetadataOptions configures the instance metadata service.
type MetadataOptions struct {
	// HTTPTokens is "required" (IMDSv2) or "optional".
	HTTPTokens string
	// HTTPPutResponseHopLimit is 1 to 64.
	HTTPPutResponseHopLimit int32
	// HTTPEndpoint is "enabled" or "disabled".
	HTTPEndpoint string
	// InstanceMetadataTags is "enabled" or "disabled".
	InstanceMetadataTags string
	// HTTPProtocolIPv6 is "enabled" or "disabled".
	HTTPProtocolIPv6 string
}

// Instance is an EC2 instance as DescribeInstances reports it.
type Instance struct {
	ID string
	// State is pending, running, stopping, stopped, shutting-down or terminated.
	State string
	// StateReason is EC2's message for the last state change, if any.
	StateReason string
	// StateReasonCode is EC2's code for it, such as Client.UserInitiatedShutdown or
	// Server.SpotInstanceTermination; Client.* and Server.* codes on an instance that
	// never ran mean the launch itself failed.
	StateReasonCode  string
	InstanceType     string
	ImageID          string
	SubnetID         string
	VPCID            string
	AvailabilityZone string
	PrivateIP        string
	PublicIP         string
	PrivateDNSName   string
	PublicDNSName    string
	KeyName          string
	LaunchTime       time.Time
	SecurityGroupIDs []string
	Tags             map[string]string
	ClientToken      string
	MetadataOptions  MetadataOptions
	// DetailedMonitoring is true when monitoring is enabled or being enabled.
	DetailedMonitoring bool
	// IAMInstanceProfileARN is the ARN of the associated profile, if any.
	IAMInstanceProfileARN string
	// RootVolumeID is the EBS volume attached at the root device, if any.
	RootVolumeID string
	// VolumeIDs are all EBS volumes attached to the instance.
	VolumeIDs []string
	// Spot is true for Spot Instances.
	Spot bool
	// Architecture is x86_64, arm64, ...
	Architecture string
	// Platform is EC2's platform details, for example Linux/UNIX or Windows.
	Platform string
	// MetadataOptionsState is pending or applied.
	MetadataOptionsState string
	// SourceDestCheck is the instance's source/destination check.
	SourceDestCheck *bool
	// NetworkInterfaces are the attached interfaces, the primary (device index 0)
	// first.
	NetworkInterfaces []NetworkInterface
	// BlockDevices are the EBS volumes attached, by device name.
	BlockDevices []BlockDevice
	// HibernationConfigured says whether the instance was launched for hibernation.
	HibernationConfigured bool
	// AutoRecovery is the maintenance option (default or disabled).
	AutoRecovery string
	// PrivateDNSNameOptions are the hostname type and records.
	PrivateDNSNameOptions PrivateDNSNameOptions
	// CPUOptions are the cores and threads per core.
	CPUOptions CPUOptions
	// CapacityReservation is the preference or target, and CapacityReservationID the
	// reservation the instance runs in, if any.
	CapacityReservation   CapacityReservationSpec
	CapacityReservationID string
	// Placement is where the instance runs.
	Placement PlacementSpec
	// SpotRequestID is the Spot Instance request that launched the instance, if any.
	// A persistent request relaunches the instance when it is terminated unless it is
	// cancelled first.
	SpotRequestID string
}

// InstanceAttributes are the attributes that DescribeInstances does not return.
type InstanceAttributes struct {
	// TerminationProtection is the disableApiTermination attribute.
	TerminationProtection bool
	// UserData is the decoded user data.
	UserData string
}

// InstanceFilter selects instances for FindInstances. Empty fields do not filter.
type InstanceFilter struct {
	// ClientToken matches the token the instance was launched with.
	ClientToken string
	// Tags match instances having every one of these tags with these values.
	Tags map[string]string
}

// Instance states, as EC2 names them.
const (
	StatePending      = "pending"
	StateRunning      = "running"
	StateStopping     = "stopping"
	StateStopped      = "stopped"
	StateShuttingDown = "shutting-down"
	StateTerminated   = "terminated"
)

// NetworkInterface is an interface attached to an instance.
type NetworkInterface struct {
	ID          string
	DeviceIndex int32
	// PrivateIPs are the private IPv4 addresses, the primary first.
	PrivateIPs []string
	IPv6s      []string
	PublicIP   string
	// PublicIPOwner is "amazon" for an auto-assigned public IP, and an account ID for
	// an Elastic IP.
	PublicIPOwner string
}

// BlockDevice is an EBS volume attached to an instance.
type BlockDevice struct {
	Device   string
	VolumeID string
	// Status is attaching, attached, detaching or detached.
	Status              string
	DeleteOnTermination bool
}
