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

// Labels the operator puts on a set's instances.
const (
	// InstanceSetLabel names the set an EC2Instance belongs to; status.selector
	// selects on it, so kubectl scale and autoscalers count the set's instances.
	InstanceSetLabel = "compute.ec2-operator.dev/instance-set"
	// TemplateHashLabel holds the hash of the template fields an instance cannot take
	// in place (ReplacementFields): instances with another hash are replaced.
	TemplateHashLabel = "compute.ec2-operator.dev/template-hash"
	// LaunchBatchAnnotation puts an instance the set creates in a batch launched by
	// one RunInstances call: "<client token>/<launch index>/<batch size>". The set
	// writes it when it creates the instance, before anything is sent, and the
	// operator trusts it only on an instance a set controls whose batch is complete.
	LaunchBatchAnnotation = "compute.ec2-operator.dev/launch-batch"
)

// Condition types of an EC2InstanceSet, besides Ready, Reconciling and Stalled
// (which mean what they mean for an EC2Instance).
const (
	// ConditionAvailable is True while at least spec.replicas minus the rolling
	// update's maxUnavailable instances are available.
	ConditionAvailable = "Available"
	// ConditionProgressing is True while the set is creating, replacing or removing
	// instances, and after that with reason Complete.
	ConditionProgressing = "Progressing"
)

// EC2InstanceSetStatus reports a set's instances.
type EC2InstanceSetStatus struct {
	// observedGeneration is the generation of the spec this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// replicas is how many instances the set has (EC2Instance objects not being
	// deleted), whatever their template.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Replicas int32 `json:"replicas"`

	// readyReplicas is how many of them are Ready.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Ready Replicas",xDescriptors={"urn:alm:descriptor:text"}
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is how many have been Ready for at least minReadySeconds.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Available Replicas",xDescriptors={"urn:alm:descriptor:text"}
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`

	// updatedReplicas is how many are made from the current template.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Updated Replicas",xDescriptors={"urn:alm:descriptor:text"}
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`

	// selector selects the set's instances (a label selector in string form), for
	// the scale subresource.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Selector",xDescriptors={"urn:alm:descriptor:text"}
	Selector string `json:"selector,omitempty"`

	// templateHash is the current template's hash (the instances' template-hash
	// label).
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Template Hash",xDescriptors={"urn:alm:descriptor:text"}
	TemplateHash string `json:"templateHash,omitempty"`

	// conditions are Ready, Available, Progressing, Reconciling and Stalled.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}
