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

// This file holds how the instance computes: where its user data comes from (and, as
// the API grows, its image selection, CPU, capacity and lifecycle options).

// UserDataSource names the key of a Secret or ConfigMap in the object's namespace
// that holds the instance's user data.
//
// +kubebuilder:validation:XValidation:rule="has(self.secretKeyRef) != has(self.configMapKeyRef)",message="userDataFrom needs exactly one of secretKeyRef or configMapKeyRef"
type UserDataSource struct {
	// secretKeyRef selects a key of a Secret. Use it for user data that holds
	// credentials or keys: Secrets are the object RBAC guards for that.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Secret Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	SecretKeyRef *KeySelector `json:"secretKeyRef,omitempty"`

	// configMapKeyRef selects a key of a ConfigMap.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="ConfigMap Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	ConfigMapKeyRef *KeySelector `json:"configMapKeyRef,omitempty"`

	// base64 says the value is base64-encoded (for example gzip-compressed cloud-init
	// stored as text); the operator decodes it, and the decoded bytes are the user
	// data EC2 limits to 16 KB.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Value Is Base64",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Base64 bool `json:"base64,omitempty"`
}

// KeySelector names one key of a Secret or ConfigMap in the object's namespace.
type KeySelector struct {
	// name is the Secret's or ConfigMap's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Name string `json:"name"`

	// key is the key in its data.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Key string `json:"key"`
}
