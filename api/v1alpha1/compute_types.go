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

// This file holds how the instance computes: its image selection, where its user data
// comes from, its CPU, capacity and placement, and its lifecycle options.

// UserDataSource names the key of a Secret or ConfigMap in the object's namespace
// that holds the instance's user data.
//
// +kubebuilder:validation:XValidation:rule="has(self.secretKeyRef) != has(self.configMapKeyRef)",message="userDataFrom needs exactly one of secretKeyRef or configMapKeyRef"
type UserDataSource struct {
	// secretKeyRef selects a key of a Secret. Use it for user data that holds
	// credentials or keys: Secrets are the object RBAC guards for that.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Secret Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	SecretKeyRef *SecretKeySelector `json:"secretKeyRef,omitempty"`

	// configMapKeyRef selects a key of a ConfigMap.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="ConfigMap Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	ConfigMapKeyRef *ConfigMapKeySelector `json:"configMapKeyRef,omitempty"`

	// base64 says the value is base64-encoded (for example gzip-compressed cloud-init
	// stored as text); the operator decodes it, and the decoded bytes are the user
	// data EC2 limits to 16 KB.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Value Is Base64",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Base64 bool `json:"base64,omitempty"`
}

// SecretKeySelector names one key of a Secret in the object's namespace. It and
// ConfigMapKeySelector have the same fields and rules; they are two types because
// the console's form takes the widget of a field from the field's descriptor, and
// only a type of its own gives the name a Secret picker here and a ConfigMap picker
// there.
type SecretKeySelector struct {
	// name is the Secret's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Secret",xDescriptors={"urn:alm:descriptor:io.kubernetes:Secret","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Name string `json:"name"`

	// key is the key in the Secret's data.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Key string `json:"key"`
}

// ConfigMapKeySelector names one key of a ConfigMap in the object's namespace.
type ConfigMapKeySelector struct {
	// name is the ConfigMap's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="ConfigMap",xDescriptors={"urn:alm:descriptor:io.kubernetes:ConfigMap","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Name string `json:"name"`

	// key is the key in the ConfigMap's data.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Key",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Key string `json:"key"`
}

// ImageSelector picks an AMI: the newest (by creation date, then by ID) of the images
// owned by owners that match name, architecture and tags.
type ImageSelector struct {
	// owners are account IDs or the aliases amazon, aws-marketplace and self.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:Pattern=`^([0-9]{12}|amazon|aws-marketplace|self)$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image Owners"
	Owners []string `json:"owners"`

	// name is the image name, with * and ? wildcards (for example
	// al2023-ami-2023.*-kernel-6.1-x86_64).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image Name Pattern",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Name string `json:"name,omitempty"`

	// architecture is the image's architecture. It must match the instance type's,
	// which the operator checks before launching.
	// +optional
	// +kubebuilder:validation:Enum=x86_64;arm64;i386;x86_64_mac;arm64_mac
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image Architecture",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:x86_64","urn:alm:descriptor:com.tectonic.ui:select:arm64","urn:alm:descriptor:com.tectonic.ui:select:i386","urn:alm:descriptor:com.tectonic.ui:select:x86_64_mac","urn:alm:descriptor:com.tectonic.ui:select:arm64_mac"}
	Architecture string `json:"architecture,omitempty"`

	// tags select images that carry every one of these tags. An empty value matches
	// any value of the key.
	// +optional
	// +kubebuilder:validation:MaxProperties=10
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image Tags"
	Tags map[string]string `json:"tags,omitempty"`
}

// MaintenanceOptions are an instance's maintenance options.
type MaintenanceOptions struct {
	// autoRecovery is default (simplified automatic recovery on) or disabled.
	// +required
	// +kubebuilder:validation:Enum=default;disabled
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Auto Recovery",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:default","urn:alm:descriptor:com.tectonic.ui:select:disabled"}
	AutoRecovery string `json:"autoRecovery"`
}

// PrivateDNSNameOptions are the instance's private hostname options.
type PrivateDNSNameOptions struct {
	// hostnameType is ip-name (ip-10-0-0-1...) or resource-name (the instance ID).
	// +optional
	// +kubebuilder:default=ip-name
	// +kubebuilder:validation:Enum=ip-name;resource-name
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Hostname Type",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:ip-name","urn:alm:descriptor:com.tectonic.ui:select:resource-name"}
	HostnameType string `json:"hostnameType,omitempty"`

	// enableResourceNameDnsARecord answers DNS A queries for the resource name.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Resource Name A Record",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	EnableResourceNameDNSARecord bool `json:"enableResourceNameDnsARecord,omitempty"`

	// enableResourceNameDnsAAAARecord answers DNS AAAA queries for the resource name.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Resource Name AAAA Record",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	EnableResourceNameDNSAAAARecord bool `json:"enableResourceNameDnsAAAARecord,omitempty"`
}

// CreditSpecification is a burstable instance's CPU credit option.
type CreditSpecification struct {
	// cpuCredits is standard or unlimited.
	// +required
	// +kubebuilder:validation:Enum=standard;unlimited
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="CPU Credits",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:standard","urn:alm:descriptor:com.tectonic.ui:select:unlimited"}
	CPUCredits string `json:"cpuCredits"`
}

// CPUOptions sets an instance's CPU cores and threads.
type CPUOptions struct {
	// coreCount is the number of CPU cores.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=448
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Core Count",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	CoreCount *int32 `json:"coreCount,omitempty"`

	// threadsPerCore is 1 (no simultaneous multithreading) or 2.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Threads Per Core",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	ThreadsPerCore *int32 `json:"threadsPerCore,omitempty"`
}

// CapacityReservation says which Capacity Reservation an instance may or must use.
//
// +kubebuilder:validation:XValidation:rule="has(self.preference) != has(self.target)",message="capacityReservation needs exactly one of preference or target"
type CapacityReservation struct {
	// preference is open (run in any open reservation with matching attributes, else
	// On-Demand capacity) or none (never use a reservation).
	// +optional
	// +kubebuilder:validation:Enum=open;none
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Reservation Preference",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:open","urn:alm:descriptor:com.tectonic.ui:select:none"}
	Preference string `json:"preference,omitempty"`

	// target runs the instance in one reservation, or a reservation of a resource
	// group.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Reservation Target"
	Target *CapacityReservationTarget `json:"target,omitempty"`
}

// CapacityReservationTarget names one reservation or a resource group of them.
//
// +kubebuilder:validation:XValidation:rule="has(self.capacityReservationId) != has(self.capacityReservationResourceGroupArn)",message="target needs exactly one of capacityReservationId or capacityReservationResourceGroupArn"
type CapacityReservationTarget struct {
	// capacityReservationId is a reservation (cr-...).
	// +optional
	// +kubebuilder:validation:Pattern=`^cr-([0-9a-f]{8}|[0-9a-f]{17})$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Capacity Reservation ID",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	CapacityReservationID string `json:"capacityReservationId,omitempty"`

	// capacityReservationResourceGroupArn is a resource group of reservations.
	// +optional
	// +kubebuilder:validation:MaxLength=1600
	// +kubebuilder:validation:Pattern=`^arn:aws[a-z-]*:resource-groups:[a-z0-9-]+:[0-9]{12}:group/[a-zA-Z0-9_.-]+$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Reservation Resource Group ARN",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	CapacityReservationResourceGroupARN string `json:"capacityReservationResourceGroupArn,omitempty"`
}

// Placement puts an instance in a placement group or on dedicated hardware.
//
// +kubebuilder:validation:XValidation:rule="!has(self.partitionNumber) || has(self.groupName)",message="partitionNumber needs groupName (a partition placement group)",fieldPath=".partitionNumber"
// +kubebuilder:validation:XValidation:rule="!has(self.hostId) || (has(self.tenancy) && self.tenancy == 'host')",message="hostId needs tenancy: host",fieldPath=".hostId"
// +kubebuilder:validation:XValidation:rule="!has(self.hostResourceGroupArn) || (has(self.tenancy) && self.tenancy == 'host')",message="hostResourceGroupArn needs tenancy: host",fieldPath=".hostResourceGroupArn"
// +kubebuilder:validation:XValidation:rule="!(has(self.hostId) && has(self.hostResourceGroupArn))",message="set hostId or hostResourceGroupArn, not both",fieldPath=".hostResourceGroupArn"
// +kubebuilder:validation:XValidation:rule="!has(self.affinity) || (has(self.tenancy) && self.tenancy == 'host')",message="affinity needs tenancy: host",fieldPath=".affinity"
type Placement struct {
	// groupName is a placement group (cluster, partition or spread).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Placement Group",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	GroupName string `json:"groupName,omitempty"`

	// partitionNumber is the partition of a partition placement group.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=7
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Partition Number",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	PartitionNumber *int32 `json:"partitionNumber,omitempty"`

	// tenancy is default (shared hardware), dedicated or host (a Dedicated Host).
	// +optional
	// +kubebuilder:validation:Enum=default;dedicated;host
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Tenancy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:default","urn:alm:descriptor:com.tectonic.ui:select:dedicated","urn:alm:descriptor:com.tectonic.ui:select:host"}
	Tenancy string `json:"tenancy,omitempty"`

	// hostId is the Dedicated Host (h-...) to run on.
	// +optional
	// +kubebuilder:validation:Pattern=`^h-([0-9a-f]{8}|[0-9a-f]{17})$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Host ID",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	HostID string `json:"hostId,omitempty"`

	// hostResourceGroupArn is a host resource group to run in.
	// +optional
	// +kubebuilder:validation:MaxLength=1600
	// +kubebuilder:validation:Pattern=`^arn:aws[a-z-]*:resource-groups:[a-z0-9-]+:[0-9]{12}:group/[a-zA-Z0-9_.-]+$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Host Resource Group ARN",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	HostResourceGroupARN string `json:"hostResourceGroupArn,omitempty"`

	// affinity is default or host: with host, a stopped instance restarts on the same
	// Dedicated Host.
	// +optional
	// +kubebuilder:validation:Enum=default;host
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Host Affinity",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:default","urn:alm:descriptor:com.tectonic.ui:select:host"}
	Affinity string `json:"affinity,omitempty"`
}
