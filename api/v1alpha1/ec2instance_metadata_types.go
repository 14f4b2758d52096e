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

// This file holds the options of the instance metadata service (IMDS).

// MetadataOptions configures the instance metadata service.
type MetadataOptions struct {
	// httpTokens is required (IMDSv2 only, the default) or optional (IMDSv1 allowed).
	// +optional
	// +kubebuilder:default=required
	// +kubebuilder:validation:Enum=required;optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="IMDS Tokens",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:required","urn:alm:descriptor:com.tectonic.ui:select:optional"}
	HTTPTokens HTTPTokensState `json:"httpTokens,omitempty"`

	// httpPutResponseHopLimit is the IP hop limit of IMDS responses. Use 2 or more
	// when containers on the instance need IMDS.
	// +optional
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="IMDS Hop Limit",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	HTTPPutResponseHopLimit int32 `json:"httpPutResponseHopLimit,omitempty"`

	// httpEndpoint turns the metadata endpoint on (enabled) or off (disabled).
	// +optional
	// +kubebuilder:default=enabled
	// +kubebuilder:validation:Enum=enabled;disabled
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="IMDS Endpoint",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:enabled","urn:alm:descriptor:com.tectonic.ui:select:disabled"}
	HTTPEndpoint EndpointState `json:"httpEndpoint,omitempty"`

	// instanceMetadataTags makes the instance's tags readable through IMDS (enabled)
	// or not (disabled, the default). EC2 then allows only instance tag keys made of
	// letters, digits and + - = . , _ : @, so the operator writes its ownership tags on
	// the instance as ec2-operator.dev:owner-uid and so on (rewriting them in place
	// when an existing instance turns this on), and spec.tags must follow the rule.
	// +optional
	// +kubebuilder:default=disabled
	// +kubebuilder:validation:Enum=enabled;disabled
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Tags In Metadata",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:enabled","urn:alm:descriptor:com.tectonic.ui:select:disabled"}
	InstanceMetadataTags EndpointState `json:"instanceMetadataTags,omitempty"`

	// httpProtocolIpv6 turns on the IMDS IPv6 endpoint (enabled) or not (disabled, the
	// default).
	// +optional
	// +kubebuilder:default=disabled
	// +kubebuilder:validation:Enum=enabled;disabled
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="IMDS IPv6 Endpoint",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:enabled","urn:alm:descriptor:com.tectonic.ui:select:disabled"}
	HTTPProtocolIPv6 EndpointState `json:"httpProtocolIpv6,omitempty"`
}

// HTTPTokensState says whether IMDS requires session tokens (IMDSv2).
type HTTPTokensState string

const (
	// HTTPTokensRequired allows IMDSv2 only.
	HTTPTokensRequired HTTPTokensState = "required"
	// HTTPTokensOptional allows IMDSv1 and IMDSv2.
	HTTPTokensOptional HTTPTokensState = "optional"
)

// EndpointState turns an endpoint on or off.
type EndpointState string
