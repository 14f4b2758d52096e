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

// This file holds where the instance sits in the network: subnet and security-group
// selectors, the addressing of its primary network interface, and its Elastic IP.

// SubnetSelector picks the instance's subnet by tags, as an alternative to subnetId.
// Among the matching subnets (in the availability zone, when one is given) the
// operator takes the one with the most free IPv4 addresses, and the lowest subnet ID
// among equals. The choice is recorded in status.subnetId before the launch and never
// changes for that instance, even when the tags change later.
type SubnetSelector struct {
	// tags select subnets that carry every one of these tags. An empty value matches
	// any value of the key.
	// +required
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=10
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) >= 1 && size(k) <= 128)",message="tag keys must be 1 to 128 characters long"
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(self[k]) <= 256)",message="tag values must be at most 256 characters long"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Subnet Tags"
	Tags map[string]string `json:"tags"`

	// availabilityZone narrows the choice to subnets of this zone.
	// +optional
	// +kubebuilder:validation:Pattern=`^[a-z]{2}(-[a-z0-9]+)+[a-z]$`
	// +kubebuilder:validation:MaxLength=64
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Subnet Availability Zone",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	AvailabilityZone string `json:"availabilityZone,omitempty"`
}

// SecurityGroupSelector picks security groups by tags or by names, within the VPC of
// the instance's subnet. Every group that matches is attached, together with the
// groups of securityGroupIds; when the selection changes (a group gains or loses a
// tag), the instance's groups follow at the next resync.
//
// +kubebuilder:validation:XValidation:rule="has(self.tags) || has(self.names)",message="securityGroupSelector needs tags or names"
type SecurityGroupSelector struct {
	// tags select groups that carry every one of these tags. An empty value matches any
	// value of the key.
	// +optional
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=10
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) >= 1 && size(k) <= 128)",message="tag keys must be 1 to 128 characters long"
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(self[k]) <= 256)",message="tag values must be at most 256 characters long"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Security Group Tags"
	Tags map[string]string `json:"tags,omitempty"`

	// names select groups by group name.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Security Group Names"
	Names []string `json:"names,omitempty"`
}

// ElasticIP associates an Elastic IP address with the instance's primary network
// interface once the instance runs. It is re-associated when it is removed outside
// Kubernetes. When the EC2Instance is deleted, or elasticIp leaves the spec, an
// address the operator allocated is released and an address it was given is only
// disassociated.
//
// +kubebuilder:validation:XValidation:rule="has(self.allocationId) != (has(self.allocate) && self.allocate)",message="elasticIp needs exactly one of allocationId or allocate: true"
// +kubebuilder:validation:XValidation:rule="!has(self.publicIpv4Pool) || (has(self.allocate) && self.allocate)",message="publicIpv4Pool can only be set with allocate: true",fieldPath=".publicIpv4Pool"
type ElasticIP struct {
	// allocationId is an existing Elastic IP address (eipalloc-...) to associate. The
	// operator never releases it.
	// +optional
	// +kubebuilder:validation:Pattern=`^eipalloc-([0-9a-f]{8}|[0-9a-f]{17})$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Elastic IP Allocation ID",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	AllocationID string `json:"allocationId,omitempty"`

	// allocate asks the operator to allocate an address, tag it with the ownership
	// tags, and release it when it is no longer wanted.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Allocate Elastic IP",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Allocate bool `json:"allocate,omitempty"`

	// publicIpv4Pool allocates the address from this pool (an Amazon pool or a BYOIP
	// pool, ipv4pool-ec2-...) instead of Amazon's default pool.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Public IPv4 Pool",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	PublicIPv4Pool string `json:"publicIpv4Pool,omitempty"`
}

// NetworkInterfaceStatus reports one network interface of the instance.
type NetworkInterfaceStatus struct {
	// networkInterfaceId is the interface's ID (eni-...).
	NetworkInterfaceID string `json:"networkInterfaceId"`
	// deviceIndex is 0 for the primary interface.
	// +optional
	DeviceIndex int32 `json:"deviceIndex,omitempty"`
	// privateIpAddresses are the interface's private IPv4 addresses, the primary first.
	// +optional
	PrivateIPAddresses []string `json:"privateIpAddresses,omitempty"`
	// ipv6Addresses are the interface's IPv6 addresses.
	// +optional
	IPv6Addresses []string `json:"ipv6Addresses,omitempty"`
	// publicIp is the public IPv4 address of the interface, if any.
	// +optional
	PublicIP string `json:"publicIp,omitempty"`
	// sourceDestCheck is the interface's source/destination check.
	// +optional
	SourceDestCheck *bool `json:"sourceDestCheck,omitempty"`
}

// ElasticIPStatus reports the instance's Elastic IP address.
type ElasticIPStatus struct {
	// allocationId is the address's allocation ID.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Elastic IP Allocation ID",xDescriptors={"urn:alm:descriptor:text"}
	AllocationID string `json:"allocationId,omitempty"`
	// publicIp is the address.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Elastic IP Address",xDescriptors={"urn:alm:descriptor:text"}
	PublicIP string `json:"publicIp,omitempty"`
	// associationId is the association with the instance, while there is one.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Elastic IP Association ID",xDescriptors={"urn:alm:descriptor:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	AssociationID string `json:"associationId,omitempty"`
	// allocatedByOperator is true for an address the operator allocated (allocate:
	// true), which it releases when the address is no longer wanted.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Allocated By The Operator",xDescriptors={"urn:alm:descriptor:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	AllocatedByOperator bool `json:"allocatedByOperator,omitempty"`
}
