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

// OutputsKind is the kind of object the instance's coordinates are written to.
// +kubebuilder:validation:Enum=ConfigMap;Secret
type OutputsKind string

const (
	// OutputsConfigMap writes the coordinates into a ConfigMap.
	OutputsConfigMap OutputsKind = "ConfigMap"
	// OutputsSecret writes them into a Secret (type Opaque), for workloads that take
	// their settings only from Secrets.
	OutputsSecret OutputsKind = "Secret"
)

// OutputsTarget names the ConfigMap or Secret, in the EC2Instance's own namespace,
// that the operator keeps the instance's coordinates in. Its keys are instanceId,
// privateIp, publicIp, ipv6Address, privateDnsName, publicDnsName, elasticIp,
// availabilityZone and region; a key whose value the instance does not have (yet)
// holds the empty string, so that a workload can always mount every key.
type OutputsTarget struct {
	// kind is ConfigMap (the default) or Secret.
	// +optional
	// +kubebuilder:default=ConfigMap
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Outputs Kind",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:ConfigMap","urn:alm:descriptor:com.tectonic.ui:select:Secret"}
	Kind OutputsKind `json:"kind,omitempty"`
	// name is the ConfigMap's or Secret's name. The operator creates it, owned by the
	// EC2Instance (garbage-collected with it); it refuses one that exists and is not
	// owned by this EC2Instance.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Outputs Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Name string `json:"name"`
}

// OutputsStatus says which object the coordinates were last written to, so that the
// operator can delete it when spec.outputsTo is renamed or removed.
type OutputsStatus struct {
	// kind is ConfigMap or Secret.
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Outputs Kind",xDescriptors={"urn:alm:descriptor:text"}
	Kind OutputsKind `json:"kind"`
	// name is the object's name, in the EC2Instance's namespace.
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Outputs Name",xDescriptors={"urn:alm:descriptor:text"}
	Name string `json:"name"`
}
