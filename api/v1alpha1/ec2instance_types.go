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

// This file holds the EC2Instance kind itself and its list. The spec is in
// ec2instance_spec_types.go and the status in ec2instance_status.go.

// EC2Instance is an AWS EC2 instance managed from Kubernetes. The operator launches
// the instance the spec describes, keeps it matching the spec, reports it in status,
// and terminates (or releases) it when the object is deleted.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ec2,categories=aws
// +kubebuilder:printcolumn:name="ID",type=string,JSONPath=`.status.instanceId`
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.status.instanceType`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="IP",type=string,JSONPath=`.status.privateIp`
// +kubebuilder:printcolumn:name="Public IP",type=string,JSONPath=`.status.publicIp`,priority=1
// +kubebuilder:printcolumn:name="Zone",type=string,JSONPath=`.status.availabilityZone`,priority=1
// +kubebuilder:printcolumn:name="VPC",type=string,JSONPath=`.status.vpcId`,priority=1
// +kubebuilder:printcolumn:name="Account",type=string,JSONPath=`.status.account`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Policy",type=string,JSONPath=`.spec.managementPolicy`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +operator-sdk:csv:customresourcedefinitions:displayName="EC2 Instance",resources={{Event,v1}}
type EC2Instance struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec declares the instance.
	// +required
	Spec EC2InstanceSpec `json:"spec"`

	// status reports the instance as EC2 last described it.
	// It defaults to an observedGeneration of 0, so that before the operator's first
	// write the object reads as not yet observed (kstatus: in progress).
	// +optional
	// +kubebuilder:default={observedGeneration: 0}
	Status EC2InstanceStatus `json:"status,omitempty"`
}

// EC2InstanceList is a list of EC2Instance objects.
//
// +kubebuilder:object:root=true
type EC2InstanceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EC2Instance `json:"items"`
}

func init() {
	SchemeBuilder.Register(&EC2Instance{}, &EC2InstanceList{})
}
