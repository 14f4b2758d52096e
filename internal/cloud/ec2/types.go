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

import "time"

// LaunchRequest describes one instance to launch.
type LaunchRequest struct {
	// ClientToken is EC2's idempotency token (at most 64 ASCII characters).
	ClientToken string
	// Count, when more than one, launches that many alike instances in one call (a
	// set's batch), each with its launch index; EC2 may launch fewer (MinCount is 1)
	// when it lacks capacity for all. Zero means one.
	Count int32
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
	// LaunchIndex is the instance's place in the RunInstances call that launched it
	// (amiLaunchIndex), from 0: which member of a batch it is.
	LaunchIndex     int32
	MetadataOptions MetadataOptions
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

// VolumeStateError is the EBS state of a volume whose creation failed; such a volume
// can only be deleted.
const VolumeStateError = "error"

// PrimaryInterface is the instance's network interface at device index 0, or nil
// when EC2 reported none (an instance that is still pending or already gone).
func (i *Instance) PrimaryInterface() *NetworkInterface {
	for n := range i.NetworkInterfaces {
		if i.NetworkInterfaces[n].DeviceIndex == 0 {
			return &i.NetworkInterfaces[n]
		}
	}
	return nil
}

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
