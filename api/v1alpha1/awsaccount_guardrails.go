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
// set it to restrict that field. Values the object leaves to AWS (no key pair, no
// instance profile) are always allowed.
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
}
