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

// Guardrails say what the EC2Instances of an AWSAccount may ask for. Each list is a
// set of patterns in which * matches any run of characters (slashes included); a
// value is allowed when it matches one of them. A list left unset allows any value;
// set it to restrict that field. A key pair or instance profile left unset is always
// allowed (the instance has none). A subnet or security group left unset is not, once
// subnetIds, vpcIds or securityGroupIds are set: EC2 would pick the default subnet (of
// the default VPC, public addresses on) and the VPC's default group, which no platform
// team that lists its networks means to hand out, so such a launch is refused.
// Guardrails are enforced on every request the operator sends to EC2 for an object,
// whichever code path built it, and on an instance an object adopts, restores or
// observes, as EC2 describes it at that moment.
type Guardrails struct {
	// instanceProfiles are the IAM instance profiles spec.iamInstanceProfile may name.
	// A pattern that starts with arn: is matched against an ARN the object gives; any
	// other pattern against the profile's name (the part after the last / of an ARN).
	// Keep them to the profiles whose roles the namespaces' users may have anyway: an
	// instance's role credentials can be read by whoever controls the instance.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=2048
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Instance Profiles"
	InstanceProfiles []string `json:"instanceProfiles,omitempty"`

	// keyNames are the EC2 key pairs spec.keyName may name.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Key Names"
	KeyNames []string `json:"keyNames,omitempty"`

	// subnetIds are the subnets an instance may be launched into, whether named by
	// spec.subnetId or chosen by spec.subnetSelector.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=64
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Subnet IDs"
	SubnetIDs []string `json:"subnetIds,omitempty"`

	// vpcIds are the VPCs an instance's subnet may belong to.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=64
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="VPC IDs"
	VPCIDs []string `json:"vpcIds,omitempty"`

	// securityGroupIds are the security groups an instance may have, whether named by
	// spec.securityGroupIds or chosen by spec.securityGroupSelector.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=64
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Security Group IDs"
	SecurityGroupIDs []string `json:"securityGroupIds,omitempty"`

	// imageOwners are the owners of the images instances may boot: account IDs, or the
	// aliases amazon, aws-marketplace and self (the account's own images). An image
	// given by ID is looked up (DescribeImages) before the launch; a resolve:ssm: image
	// is allowed only with amazon here and only for the public parameters under
	// /aws/service/, which name Amazon's own images.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^([0-9]{12}|amazon|aws-marketplace|self|\*)$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image Owners"
	ImageOwners []string `json:"imageOwners,omitempty"`

	// instanceTypes are the instance types instances may have, for example t3.* or
	// m7g.large.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=64
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Instance Types"
	InstanceTypes []string `json:"instanceTypes,omitempty"`

	// regions are the regions instances may run in (spec.region, the account's default
	// region or the operator's). Unset allows every region.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=32
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Regions"
	Regions []string `json:"regions,omitempty"`

	// tenancies are the tenancies instances may have: default, dedicated or host.
	// Instances that name no tenancy run on shared hardware (default), which is
	// allowed only when default is listed.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=3
	// +kubebuilder:validation:items:Enum=default;dedicated;host
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Tenancies"
	Tenancies []string `json:"tenancies,omitempty"`

	// placementGroups are the placement groups instances may be placed in, by name.
	// An instance in no group is always allowed.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Placement Groups"
	PlacementGroups []string `json:"placementGroups,omitempty"`

	// hosts are the Dedicated Hosts (IDs) and host resource groups (ARNs) instances may
	// be placed on. Unset allows any; set to an empty list to allow none.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=2048
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Dedicated Hosts"
	Hosts []string `json:"hosts,omitempty"`

	// capacityReservations are the Capacity Reservations (IDs) and reservation resource
	// groups (ARNs) instances may target. Unset allows any; an empty list allows none.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=2048
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Capacity Reservations"
	CapacityReservations []string `json:"capacityReservations,omitempty"`

	// openCapacityReservations says whether instances may run in any open Capacity
	// Reservation of the account that matches them, EC2's default when an instance
	// names no reservation preference. Forbidden requires every instance to set
	// spec.capacityReservation (preference none, or a target capacityReservations
	// allows), so that no namespace consumes capacity another team reserved.
	// +optional
	// +kubebuilder:default=Allowed
	// +kubebuilder:validation:Enum=Allowed;Forbidden
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Open Capacity Reservations"
	OpenCapacityReservations string `json:"openCapacityReservations,omitempty"`

	// publicIpv4Pools are the BYOIP public IPv4 pools Elastic IPs may be allocated
	// from. An address from Amazon's pool is always allowed.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=64
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Public IPv4 Pools"
	PublicIPv4Pools []string `json:"publicIpv4Pools,omitempty"`

	// volumes bound the EBS volumes instances may have: the root volume and data
	// volumes, at launch, created later, or changed.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Volumes"
	Volumes *VolumeGuardrails `json:"volumes,omitempty"`
}

// VolumeGuardrails bound EBS volumes.
type VolumeGuardrails struct {
	// maxSizeGiB is the largest size of one volume, in GiB.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65536
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Largest Volume (GiB)"
	MaxSizeGiB *int32 `json:"maxSizeGiB,omitempty"`

	// maxIops is the most provisioned IOPS of one volume.
	// +optional
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=256000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Most Volume IOPS"
	MaxIOPS *int32 `json:"maxIops,omitempty"`

	// kmsKeyIds are the KMS keys (IDs, ARNs or aliases, as the object names them)
	// volumes may be encrypted with. A volume that names no key uses the account's
	// default EBS key, which is always allowed.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=2048
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Volume KMS Keys"
	KMSKeyIDs []string `json:"kmsKeyIds,omitempty"`

	// snapshotOwners are the owners of the EBS snapshots data volumes may be created
	// from: account IDs, or the aliases amazon and self (the account's own). A volume
	// from no snapshot is always allowed. The snapshot is looked up (DescribeSnapshots)
	// before the request, and its size counts against maxSizeGiB when the volume names
	// none.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^([0-9]{12}|amazon|self|\*)$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Snapshot Owners"
	SnapshotOwners []string `json:"snapshotOwners,omitempty"`
}
