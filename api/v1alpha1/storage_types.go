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

// This file holds the EBS storage of an instance: its root volume and its data
// volumes. The per-type limits below are those of the "Amazon EBS volume types" page
// of the EBS User Guide: sizes (gp3 and io2 up to 64 TiB), IOPS ranges and their
// ratios to size, and gp3's throughput range and its ratio to IOPS.

// VolumeType is an EBS volume type.
type VolumeType string

// RootVolume configures the root EBS volume of the instance.
//
// +kubebuilder:validation:XValidation:rule="!has(self.iops) || self.type in ['gp3', 'io1', 'io2']",message="iops can only be set for gp3, io1 and io2 volumes"
// +kubebuilder:validation:XValidation:rule="!(self.type in ['io1', 'io2']) || has(self.iops)",message="iops is required for io1 and io2 volumes"
// +kubebuilder:validation:XValidation:rule="!has(self.throughput) || self.type == 'gp3'",message="throughput can only be set for gp3 volumes"
// +kubebuilder:validation:XValidation:rule="!has(self.kmsKeyId) || (has(self.encrypted) && self.encrypted)",message="kmsKeyId requires encrypted: true"
// +kubebuilder:validation:XValidation:rule="!has(self.sizeGiB) || self.type != 'standard' || self.sizeGiB <= 1024",message="sizeGiB must be at most 1024 for standard (magnetic) volumes"
// +kubebuilder:validation:XValidation:rule="!has(self.sizeGiB) || !(self.type in ['gp2', 'io1', 'st1', 'sc1']) || self.sizeGiB <= 16384",message="sizeGiB must be at most 16384 for gp2, io1, st1 and sc1 volumes (gp3 and io2 allow 65536)"
// +kubebuilder:validation:XValidation:rule="!(self.type in ['st1', 'sc1'])",message="st1 and sc1 volumes cannot be boot volumes; use gp3, gp2, io1, io2 or standard for the root volume"
// +kubebuilder:validation:XValidation:rule="has(self.sizeGiB) == has(oldSelf.sizeGiB) && has(self.iops) == has(oldSelf.iops) && has(self.throughput) == has(oldSelf.throughput) && has(self.encrypted) == has(oldSelf.encrypted) && has(self.kmsKeyId) == has(oldSelf.kmsKeyId)",message="rootVolume fields cannot be added or removed after creation"
type RootVolume struct {
	// sizeGiB is the size of the root volume in GiB. It must be at least the AMI's
	// snapshot size. It can grow after launch (EBS volumes cannot shrink); the operator
	// applies growth in place.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65536
	// +kubebuilder:validation:XValidation:rule="self >= oldSelf",message="sizeGiB can only grow: EBS volumes cannot shrink"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Root Volume Size (GiB)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	SizeGiB *int32 `json:"sizeGiB,omitempty"`

	// type is the EBS volume type. Immutable.
	// +optional
	// +kubebuilder:default=gp3
	// +kubebuilder:validation:Enum=gp2;gp3;io1;io2;st1;sc1;standard
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="rootVolume.type is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Root Volume Type",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:gp3","urn:alm:descriptor:com.tectonic.ui:select:gp2","urn:alm:descriptor:com.tectonic.ui:select:io1","urn:alm:descriptor:com.tectonic.ui:select:io2","urn:alm:descriptor:com.tectonic.ui:select:st1","urn:alm:descriptor:com.tectonic.ui:select:sc1","urn:alm:descriptor:com.tectonic.ui:select:standard"}
	Type VolumeType `json:"type,omitempty"`

	// iops is the provisioned IOPS, for gp3 (3000-80000), io1 and io2 (100-256000)
	// volumes only. Immutable.
	// +optional
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=256000
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="rootVolume.iops is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Provisioned IOPS",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	IOPS *int32 `json:"iops,omitempty"`

	// throughput is the provisioned throughput in MiB/s, for gp3 volumes only
	// (125-2000). Immutable.
	// +optional
	// +kubebuilder:validation:Minimum=125
	// +kubebuilder:validation:Maximum=2000
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="rootVolume.throughput is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Throughput (MiB/s)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Throughput *int32 `json:"throughput,omitempty"`

	// encrypted encrypts the root volume with EBS encryption. Immutable.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="rootVolume.encrypted is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Encrypted",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Encrypted *bool `json:"encrypted,omitempty"`

	// kmsKeyId is the KMS key (ID, alias or ARN) used to encrypt the volume; it requires
	// encrypted: true. When omitted, the account's default EBS key is used. Immutable.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="rootVolume.kmsKeyId is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="KMS Key ID",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	KMSKeyID string `json:"kmsKeyId,omitempty"`

	// deleteOnTermination deletes the volume when the instance terminates. Immutable.
	// +optional
	// +kubebuilder:default=true
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="rootVolume.deleteOnTermination is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Delete On Termination",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch","urn:alm:descriptor:com.tectonic.ui:advanced"}
	DeleteOnTermination *bool `json:"deleteOnTermination,omitempty"`
}

// DataVolume is an EBS volume attached to the instance besides its root volume. At
// launch it is part of the instance's block device mapping; added later it is created
// in the instance's availability zone and attached; removed, it is detached and then
// deleted (deleteOnTermination true) or left as a released volume (false).
//
// +kubebuilder:validation:XValidation:rule="has(self.sizeGiB) || has(self.snapshotId)",message="sizeGiB is required unless snapshotId is set (the snapshot's size is used then)",fieldPath=".sizeGiB"
// +kubebuilder:validation:XValidation:rule="!has(self.sizeGiB) || self.type != 'standard' || self.sizeGiB <= 1024",message="sizeGiB must be at most 1024 for standard (magnetic) volumes",fieldPath=".sizeGiB"
// +kubebuilder:validation:XValidation:rule="!has(self.sizeGiB) || !(self.type in ['gp2', 'io1', 'st1', 'sc1']) || self.sizeGiB <= 16384",message="sizeGiB must be at most 16384 for gp2, io1, st1 and sc1 volumes (gp3 and io2 allow 65536)",fieldPath=".sizeGiB"
// +kubebuilder:validation:XValidation:rule="!has(self.sizeGiB) || !(self.type in ['io1', 'io2']) || self.sizeGiB >= 4",message="sizeGiB must be at least 4 for io1 and io2 volumes",fieldPath=".sizeGiB"
// +kubebuilder:validation:XValidation:rule="!has(self.sizeGiB) || !(self.type in ['st1', 'sc1']) || self.sizeGiB >= 125",message="sizeGiB must be at least 125 for st1 and sc1 volumes",fieldPath=".sizeGiB"
// +kubebuilder:validation:XValidation:rule="!has(self.iops) || self.type in ['gp3', 'io1', 'io2']",message="iops can only be set for gp3, io1 and io2 volumes",fieldPath=".iops"
// +kubebuilder:validation:XValidation:rule="!(self.type in ['io1', 'io2']) || has(self.iops)",message="iops is required for io1 and io2 volumes",fieldPath=".iops"
// +kubebuilder:validation:XValidation:rule="!has(self.iops) || self.type != 'gp3' || (self.iops >= 3000 && self.iops <= 80000)",message="iops must be 3000 to 80000 for gp3 volumes",fieldPath=".iops"
// +kubebuilder:validation:XValidation:rule="!has(self.iops) || self.type != 'io1' || self.iops <= 64000",message="iops must be 100 to 64000 for io1 volumes",fieldPath=".iops"
// +kubebuilder:validation:XValidation:rule="!has(self.iops) || !has(self.sizeGiB) || self.type != 'gp3' || self.iops <= 3000 || self.iops <= self.sizeGiB * 500",message="gp3 volumes allow at most 500 IOPS per GiB above the 3000 baseline: grow sizeGiB or lower iops",fieldPath=".iops"
// +kubebuilder:validation:XValidation:rule="!has(self.iops) || !has(self.sizeGiB) || self.type != 'io1' || self.iops <= self.sizeGiB * 50",message="io1 volumes allow at most 50 IOPS per GiB: grow sizeGiB or lower iops",fieldPath=".iops"
// +kubebuilder:validation:XValidation:rule="!has(self.iops) || !has(self.sizeGiB) || self.type != 'io2' || self.iops <= self.sizeGiB * 1000",message="io2 volumes allow at most 1000 IOPS per GiB: grow sizeGiB or lower iops",fieldPath=".iops"
// +kubebuilder:validation:XValidation:rule="!has(self.throughput) || self.type == 'gp3'",message="throughput can only be set for gp3 volumes",fieldPath=".throughput"
// +kubebuilder:validation:XValidation:rule="!has(self.throughput) || self.throughput * 4 <= (has(self.iops) ? self.iops : 3000)",message="gp3 volumes allow at most 0.25 MiB/s of throughput per IOPS (750 MiB/s at the 3000 IOPS baseline): raise iops or lower throughput",fieldPath=".throughput"
// +kubebuilder:validation:XValidation:rule="!has(self.kmsKeyId) || (has(self.encrypted) && self.encrypted)",message="kmsKeyId requires encrypted: true",fieldPath=".kmsKeyId"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.sizeGiB) || has(self.sizeGiB)",message="sizeGiB cannot be removed once set",fieldPath=".sizeGiB"
// +kubebuilder:validation:XValidation:rule="has(self.snapshotId) == has(oldSelf.snapshotId) && has(self.encrypted) == has(oldSelf.encrypted) && has(self.kmsKeyId) == has(oldSelf.kmsKeyId)",message="snapshotId, encrypted and kmsKeyId of a volume cannot be added or removed after creation: add a volume under another deviceName instead"
type DataVolume struct {
	// deviceName is where the volume is attached, for example /dev/sdf on Linux or
	// xvdf on Windows. It identifies the volume in the list: each name appears once,
	// and the root device (/dev/xvda, /dev/sda1) is configured with rootVolume instead.
	// +required
	// +kubebuilder:validation:MinLength=4
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^(/dev/(sd|xvd)[a-z]{1,2}|xvd[a-z]{1,2})$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Device Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	DeviceName string `json:"deviceName"`

	// sizeGiB is the size in GiB: 1-16384 for gp2, 1-65536 for gp3, 4-16384 for io1,
	// 4-65536 for io2, 125-16384 for st1 and sc1, 1-1024 for standard. Required unless
	// snapshotId is set. It can grow (applied in place with ModifyVolume) but never
	// shrink.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65536
	// +kubebuilder:validation:XValidation:rule="self >= oldSelf",message="sizeGiB can only grow: EBS volumes cannot shrink"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Size (GiB)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number"}
	SizeGiB *int32 `json:"sizeGiB,omitempty"`

	// type is the EBS volume type. Mutable: a change is applied in place with
	// ModifyVolume.
	// +optional
	// +kubebuilder:default=gp3
	// +kubebuilder:validation:Enum=gp2;gp3;io1;io2;st1;sc1;standard
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Volume Type",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:gp3","urn:alm:descriptor:com.tectonic.ui:select:gp2","urn:alm:descriptor:com.tectonic.ui:select:io1","urn:alm:descriptor:com.tectonic.ui:select:io2","urn:alm:descriptor:com.tectonic.ui:select:st1","urn:alm:descriptor:com.tectonic.ui:select:sc1","urn:alm:descriptor:com.tectonic.ui:select:standard"}
	Type VolumeType `json:"type,omitempty"`

	// iops is the provisioned IOPS: 3000-80000 for gp3 (at most 500 per GiB above
	// 3000), 100-64000 for io1 (at most 50 per GiB), 100-256000 for io2 (at most 1000
	// per GiB). Required for io1 and io2. Mutable.
	// +optional
	// +kubebuilder:validation:Minimum=100
	// +kubebuilder:validation:Maximum=256000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Provisioned IOPS",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	IOPS *int32 `json:"iops,omitempty"`

	// throughput is the provisioned throughput in MiB/s, for gp3 only: 125-2000, and at
	// most a quarter of the IOPS. Mutable.
	// +optional
	// +kubebuilder:validation:Minimum=125
	// +kubebuilder:validation:Maximum=2000
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Throughput (MiB/s)",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Throughput *int32 `json:"throughput,omitempty"`

	// encrypted encrypts the volume with EBS encryption (a volume from an encrypted
	// snapshot is always encrypted). Immutable.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="encrypted is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Encrypted",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Encrypted *bool `json:"encrypted,omitempty"`

	// kmsKeyId is the KMS key (ID, alias or ARN) that encrypts the volume; it requires
	// encrypted: true. When omitted, the account's default EBS key is used. Immutable.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="kmsKeyId is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="KMS Key ID",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	KMSKeyID string `json:"kmsKeyId,omitempty"`

	// snapshotId creates the volume from this EBS snapshot (snap-...), which must be in
	// the instance's region. Immutable.
	// +optional
	// +kubebuilder:validation:Pattern=`^snap-([0-9a-f]{8}|[0-9a-f]{17})$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="snapshotId is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Snapshot ID",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	SnapshotID string `json:"snapshotId,omitempty"`

	// deleteOnTermination deletes the volume when the instance terminates and when the
	// volume is removed from the spec; false keeps it (tagged as released) in both
	// cases. Mutable.
	// +optional
	// +kubebuilder:default=true
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Delete On Termination",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	DeleteOnTermination *bool `json:"deleteOnTermination,omitempty"`
}

// VolumeStatus reports one data volume as EC2 last described it.
type VolumeStatus struct {
	// deviceName is where the volume is attached, as in spec.volumes.
	DeviceName string `json:"deviceName"`
	// volumeId is the EBS volume's ID, once it exists.
	// +optional
	VolumeID string `json:"volumeId,omitempty"`
	// sizeGiB is the volume's size (the target size while a modification runs).
	// +optional
	SizeGiB int32 `json:"sizeGiB,omitempty"`
	// type is the volume type.
	// +optional
	Type string `json:"type,omitempty"`
	// iops is the volume's IOPS, for types that have them.
	// +optional
	IOPS int32 `json:"iops,omitempty"`
	// throughput is the volume's throughput in MiB/s, for gp3.
	// +optional
	Throughput int32 `json:"throughput,omitempty"`
	// state is the volume's EBS state: creating, available, in-use, deleting.
	// +optional
	State string `json:"state,omitempty"`
	// attachmentState is attaching, attached, detaching or detached.
	// +optional
	AttachmentState string `json:"attachmentState,omitempty"`
	// deleteOnTermination is the attachment's setting as EC2 reports it.
	// +optional
	DeleteOnTermination bool `json:"deleteOnTermination,omitempty"`
	// clientToken is the idempotency token of the CreateVolume call for a volume added
	// after launch. It is recorded before the call, so a volume whose creation answer
	// was lost (a crash, a timeout) is found again instead of created twice.
	// +optional
	ClientToken string `json:"clientToken,omitempty"`
	// removing is set while the volume is detached and deleted (or released) because it
	// left the spec.
	// +optional
	Removing bool `json:"removing,omitempty"`
}
