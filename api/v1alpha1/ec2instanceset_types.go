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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// This file holds the EC2InstanceSet kind: N alike EC2Instance objects, changed
// safely. Its status and conditions are in ec2instanceset_status.go.

// EC2InstanceSet keeps spec.replicas EC2Instance objects made from spec.template. Each
// child is an ordinary EC2Instance owned by the set, so every rule an EC2Instance
// follows (guardrails, accounts, drift, deletion policy) holds for each instance.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName=ec2set,categories=aws
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.replicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Up-to-date",type=integer,JSONPath=`.status.updatedReplicas`
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.availableReplicas`
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.template.spec.instanceType`,priority=1
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.template.spec.imageId`,priority=1
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="an EC2InstanceSet's name is at most 63 characters: its instances carry it as a label value"
// +operator-sdk:csv:customresourcedefinitions:displayName="EC2 Instance Set",resources={{EC2Instance,v1alpha1},{Event,v1}}
type EC2InstanceSet struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec declares the instances.
	// +required
	Spec EC2InstanceSetSpec `json:"spec"`

	// status reports the set's instances. It defaults to an observedGeneration of 0,
	// so that before the operator's first write the object reads as not yet observed.
	// +optional
	// +kubebuilder:default={observedGeneration: 0}
	Status EC2InstanceSetStatus `json:"status,omitempty"`
}

// EC2InstanceSetSpec declares how many instances a set keeps, what each is, and how a
// change reaches them.
//
// +kubebuilder:validation:XValidation:rule="!has(self.template.spec.instanceId)",message="template.spec.instanceId cannot be set: a set launches its instances, it does not adopt one",fieldPath=".template.spec.instanceId"
// +kubebuilder:validation:XValidation:rule="!has(self.template.spec.privateIpAddress) && !has(self.template.spec.ipv6Addresses)",message="template.spec cannot name fixed addresses (privateIpAddress, ipv6Addresses): every instance of a set would ask for the same address",fieldPath=".template.spec"
// +kubebuilder:validation:XValidation:rule="!has(self.template.spec.elasticIp) || !has(self.template.spec.elasticIp.allocationId)",message="template.spec.elasticIp cannot name an allocationId: one address cannot follow every instance of a set (use allocate: true)",fieldPath=".template.spec.elasticIp"
// +kubebuilder:validation:XValidation:rule="!has(self.template.spec.outputsTo)",message="template.spec.outputsTo cannot be set: every instance of a set would write the same object",fieldPath=".template.spec.outputsTo"
// +kubebuilder:validation:XValidation:rule="!has(self.template.spec.managementPolicy) || self.template.spec.managementPolicy == 'Full'",message="a set launches and manages its instances: template.spec.managementPolicy must be Full",fieldPath=".template.spec.managementPolicy"
type EC2InstanceSetSpec struct {
	// replicas is how many instances the set keeps. kubectl scale, the console's
	// count control and autoscalers (through the scale subresource) change it.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=5000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Replicas *int32 `json:"replicas,omitempty"`

	// template is what each instance is: its labels and annotations, and an
	// EC2Instance spec. A change that every instance can take in place (tags, type,
	// security groups, metadata options, power state and the other mutable fields) is
	// applied to the existing instances; a change that needs new instances (the image,
	// the subnet, user data and the other immutable fields) replaces them as
	// spec.strategy says.
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Template"
	Template EC2InstanceTemplate `json:"template"`

	// strategy says how a change that needs new instances replaces the old ones.
	// +optional
	// +kubebuilder:default={type: RollingUpdate}
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Strategy"
	Strategy EC2InstanceSetStrategy `json:"strategy,omitempty"`

	// minReadySeconds is how long an instance must have been Ready to count as
	// available, to a rolling replacement and in status.availableReplicas.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Min Ready Seconds",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
}

// EC2InstanceTemplate is what each instance of a set is.
type EC2InstanceTemplate struct {
	// metadata holds the labels and annotations every instance gets.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Instance Metadata"
	Metadata EC2InstanceTemplateMetadata `json:"metadata,omitempty"`

	// spec is every instance's EC2Instance spec. It is checked as an EC2Instance's
	// spec is, except for the rules that compare a spec with its previous version:
	// a template may change anything, and a change that an instance cannot take in
	// place gives new instances.
	// +required
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Instance Spec"
	Spec EC2InstanceSpec `json:"spec"`
}

// EC2InstanceTemplateMetadata holds the labels and annotations of a set's instances.
type EC2InstanceTemplateMetadata struct {
	// labels are added to every instance.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Labels"
	Labels map[string]string `json:"labels,omitempty"`

	// annotations are added to every instance.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Annotations"
	Annotations map[string]string `json:"annotations,omitempty"`
}

// EC2InstanceSetStrategyType names how a set replaces its instances.
// +kubebuilder:validation:Enum=RollingUpdate;OnDelete
type EC2InstanceSetStrategyType string

const (
	// RollingUpdate replaces old instances with new ones a few at a time, as
	// spec.strategy.rollingUpdate allows.
	RollingUpdate EC2InstanceSetStrategyType = "RollingUpdate"
	// OnDelete replaces an old instance only when its EC2Instance is deleted.
	OnDelete EC2InstanceSetStrategyType = "OnDelete"
)

// EC2InstanceSetStrategy says how a change that needs new instances reaches them.
//
// +kubebuilder:validation:XValidation:rule="self.type == 'RollingUpdate' || !has(self.rollingUpdate)",message="rollingUpdate is for type RollingUpdate",fieldPath=".rollingUpdate"
type EC2InstanceSetStrategy struct {
	// type is RollingUpdate (the default) or OnDelete.
	// +optional
	// +kubebuilder:default=RollingUpdate
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Strategy Type",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:RollingUpdate","urn:alm:descriptor:com.tectonic.ui:select:OnDelete"}
	Type EC2InstanceSetStrategyType `json:"type,omitempty"`

	// rollingUpdate bounds a rolling replacement.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Rolling Update"
	RollingUpdate *RollingUpdateEC2InstanceSet `json:"rollingUpdate,omitempty"`
}

// RollingUpdateEC2InstanceSet bounds a rolling replacement, as a Deployment's
// rollingUpdate does: how many instances above spec.replicas may exist, and how many
// below it may be unavailable, at any time.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.maxSurge) && has(self.maxUnavailable) && (self.maxSurge == 0 || self.maxSurge == '0%') && (self.maxUnavailable == 0 || self.maxUnavailable == '0%'))",message="maxSurge and maxUnavailable cannot both be 0: the replacement could never start"
type RollingUpdateEC2InstanceSet struct {
	// maxSurge is how many instances (a number, or a percentage of replicas rounded
	// up) may exist above spec.replicas during a replacement. Default 25%.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^[0-9]+%$')",message="maxSurge must be a non-negative number or a percentage such as 25%"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Surge"
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`

	// maxUnavailable is how many instances (a number, or a percentage of replicas
	// rounded down) may be unavailable below spec.replicas during a replacement.
	// Default 0: no old instance is deleted before its successor is available.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^[0-9]+%$')",message="maxUnavailable must be a non-negative number or a percentage such as 25%"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Max Unavailable"
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}

// EC2InstanceSetList is a list of EC2InstanceSet objects.
//
// +kubebuilder:object:root=true
type EC2InstanceSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EC2InstanceSet `json:"items"`
}

func init() {
	SchemeBuilder.Register(&EC2InstanceSet{}, &EC2InstanceSetList{})
}
