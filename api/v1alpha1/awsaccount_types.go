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

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AccountFinalizer is set on every AWSAccount, so that an account cannot be deleted
// while EC2Instances still act through it: their instances could then be neither
// changed nor terminated.
const AccountFinalizer = "compute.ec2-operator.dev/account-in-use"

// DefaultAccountAnnotation, on a Namespace, names the AWSAccount that EC2Instances of
// that namespace use when they do not set spec.accountRef. The account must still
// allow the namespace.
const DefaultAccountAnnotation = "compute.ec2-operator.dev/default-account"

// DefaultAccountName is the AWSAccount that EC2Instances use when they name none
// (no spec.accountRef and no default-account annotation on their namespace). It
// stands for the operator's own credentials, so it has no roleArn; while it does not
// exist, such EC2Instances use the operator's credentials without any namespace or
// guardrail restriction (the open default of a new install).
const DefaultAccountName = "default"

// AWSAccountSpec says which AWS credentials the operator acts with (an IAM role it
// assumes in another account, or its own), which namespaces may use them, and what
// their EC2Instances may ask for.
// +kubebuilder:validation:XValidation:rule="has(self.roleArn) || (!has(self.externalId) && !has(self.sessionName))",message="externalId and sessionName apply only with a roleArn"
type AWSAccountSpec struct {
	// roleArn is the IAM role the operator's own identity assumes (sts:AssumeRole) to
	// act in this account, for example arn:aws:iam::123456789012:role/ec2-operator.
	// The role's trust policy must allow the operator's identity (see docs/accounts.md).
	// Without a roleArn the account stands for the operator's own credentials: it then
	// only says which namespaces may use them and what they may ask for.
	// +optional
	// +kubebuilder:validation:Pattern=`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}$`
	// +kubebuilder:validation:MaxLength=2048
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Role ARN",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	RoleARN string `json:"roleArn,omitempty"`

	// externalId is passed to sts:AssumeRole; set it when the role's trust policy
	// requires sts:ExternalId, as it should when the role is shared with a third party.
	// +optional
	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:MaxLength=1224
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9+=,.@:/_-]+$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="External ID",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	ExternalID string `json:"externalId,omitempty"`

	// sessionName is the role session name, which CloudTrail records with every call
	// made in this account. It defaults to ec2-operator-<account name>.
	// +optional
	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9+=,.@_-]+$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Session Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	SessionName string `json:"sessionName,omitempty"`

	// defaultRegion is the region of EC2Instances that use this account and set no
	// spec.region. When empty, the operator's default region is used.
	// +optional
	// +kubebuilder:validation:Pattern=`^[a-z]{2}(-[a-z]+)+-[0-9]+$`
	// +kubebuilder:validation:MaxLength=32
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Default Region",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	DefaultRegion string `json:"defaultRegion,omitempty"`

	// allowedNamespaces are the namespaces whose EC2Instances may use this account.
	// A namespace is allowed when it is named in names or matches selector. When
	// neither is set, no namespace may use the account.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Allowed Namespaces"
	AllowedNamespaces AllowedNamespaces `json:"allowedNamespaces,omitempty"`

	// guardrails limit what the EC2Instances that use this account may ask for. An
	// object that asks for something outside them is refused before any AWS call
	// (reason GuardrailViolation), and a change of a running one is refused while its
	// instance is left as it is.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Guardrails"
	Guardrails *Guardrails `json:"guardrails,omitempty"`
}

// AllowedNamespaces selects namespaces by name, by label, or both (either suffices).
type AllowedNamespaces struct {
	// names lists namespaces by name.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=63
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Namespace Names"
	Names []string `json:"names,omitempty"`

	// selector selects namespaces by their labels. An empty selector ({}) matches
	// every namespace.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Namespace Selector",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:selector:core:v1:Namespace"}
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}

// AWSAccountStatus reports whether the operator can act in the account.
type AWSAccountStatus struct {
	// accountId is the 12-digit AWS account the assumed role acts in, as
	// sts:GetCallerIdentity reported it.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Account ID",xDescriptors={"urn:alm:descriptor:text"}
	AccountID string `json:"accountId,omitempty"`

	// arn is the assumed-role session ARN that sts:GetCallerIdentity reported.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Session ARN",xDescriptors={"urn:alm:descriptor:text"}
	ARN string `json:"arn,omitempty"`

	// lastVerified is when the role was last assumed successfully.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Last Verified",xDescriptors={"urn:alm:descriptor:timestamp"}
	LastVerified *metav1.Time `json:"lastVerified,omitempty"`

	// inUseBy is the number of EC2Instances that use this account.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="In Use By",xDescriptors={"urn:alm:descriptor:text"}
	InUseBy int32 `json:"inUseBy,omitempty"`

	// observedGeneration is the generation the status was computed from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready is True once the role was assumed and the caller identity
	// read (reason Verified), False with reason AssumeRoleFailed and AWS's message
	// otherwise. DeletionBlocked is True (reason InUse) while a deletion waits until
	// no EC2Instance uses the account.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// AWSAccount is an AWS account the operator acts in, by assuming an IAM role or with
// its own credentials, the namespaces allowed to use it, and the guardrails on what
// their EC2Instances may ask for. An EC2Instance selects one with spec.accountRef (or
// its namespace's compute.ec2-operator.dev/default-account annotation); without one it
// uses the AWSAccount named default, and while that does not exist, the operator's own
// credentials without restriction.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:validation:XValidation:rule="self.metadata.name != 'default' || !has(self.spec.roleArn)",message="the AWSAccount named default stands for the operator's own credentials and has no roleArn"
// +kubebuilder:resource:scope=Cluster,shortName=awsaccount,categories=aws
// +kubebuilder:printcolumn:name="Account",type=string,JSONPath=`.status.accountId`
// +kubebuilder:printcolumn:name="Role",type=string,JSONPath=`.spec.roleArn`,priority=1
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.defaultRegion`,priority=1
// +kubebuilder:printcolumn:name="In Use",type=integer,JSONPath=`.status.inUseBy`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +operator-sdk:csv:customresourcedefinitions:displayName="AWS Account",resources={{EC2Instance,v1alpha1}}
type AWSAccount struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec names the role to assume and the namespaces allowed to use it.
	// +required
	Spec AWSAccountSpec `json:"spec"`

	// status reports whether the role can be assumed.
	// +optional
	Status AWSAccountStatus `json:"status,omitempty"`
}

// AWSAccountList is a list of AWSAccount objects.
//
// +kubebuilder:object:root=true
type AWSAccountList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AWSAccount `json:"items"`
}

// AccountReference names an AWSAccount.
type AccountReference struct {
	// name is the AWSAccount's name.
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="AWS Account Name",xDescriptors={"urn:alm:descriptor:io.kubernetes:compute.ec2-operator.dev:v1alpha1:AWSAccount"}
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`
}

func init() {
	SchemeBuilder.Register(&AWSAccount{}, &AWSAccountList{})
}
