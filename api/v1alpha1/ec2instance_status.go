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

// EC2InstanceStatus reports the instance as EC2 last described it.
type EC2InstanceStatus struct {
	// instanceId is the ID of the managed instance.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Instance ID",xDescriptors={"urn:alm:descriptor:text"}
	InstanceID string `json:"instanceId,omitempty"`

	// state is the instance's EC2 state: pending, running, stopping, stopped,
	// shutting-down or terminated.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="State",xDescriptors={"urn:alm:descriptor:text"}
	State string `json:"state,omitempty"`

	// stateReason is EC2's explanation of the last state change, when it gives one.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="State Reason",xDescriptors={"urn:alm:descriptor:text"}
	StateReason string `json:"stateReason,omitempty"`

	// privateIp is the primary private IPv4 address.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Private IP",xDescriptors={"urn:alm:descriptor:text"}
	PrivateIP string `json:"privateIp,omitempty"`

	// publicIp is the public IPv4 address, if the instance has one.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Public IP",xDescriptors={"urn:alm:descriptor:text"}
	PublicIP string `json:"publicIp,omitempty"`

	// privateDnsName is the private DNS name.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Private DNS Name",xDescriptors={"urn:alm:descriptor:text"}
	PrivateDNSName string `json:"privateDnsName,omitempty"`

	// publicDnsName is the public DNS name, if the instance has one.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Public DNS Name",xDescriptors={"urn:alm:descriptor:text"}
	PublicDNSName string `json:"publicDnsName,omitempty"`

	// availabilityZone is the zone the instance runs in.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Availability Zone",xDescriptors={"urn:alm:descriptor:text"}
	AvailabilityZone string `json:"availabilityZone,omitempty"`

	// region is the AWS region of the instance.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Region",xDescriptors={"urn:alm:descriptor:text"}
	Region string `json:"region,omitempty"`

	// account is the AWSAccount the instance is managed through, pinned when the
	// first launch is attempted; empty means the operator's own credentials.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="AWS Account",xDescriptors={"urn:alm:descriptor:text"}
	Account string `json:"account,omitempty"`

	// accountId is the 12-digit AWS account the instance lives in, when it is managed
	// through an AWSAccount.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="AWS Account ID",xDescriptors={"urn:alm:descriptor:text"}
	AccountID string `json:"accountId,omitempty"`

	// instanceType is the instance type EC2 reports, which differs from the spec while
	// a type change is in progress.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Observed Instance Type",xDescriptors={"urn:alm:descriptor:text"}
	InstanceType string `json:"instanceType,omitempty"`

	// imageId is the AMI the instance was launched from: resolved from an SSM
	// parameter or chosen by spec.imageSelector when the spec gives no AMI ID.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Resolved Image ID",xDescriptors={"urn:alm:descriptor:text"}
	ImageID string `json:"imageId,omitempty"`

	// imageName is the name of the AMI: the one spec.imageSelector chose at launch, or
	// the one spec.imageId names.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Image Name",xDescriptors={"urn:alm:descriptor:text"}
	ImageName string `json:"imageName,omitempty"`

	// architecture is the instance's CPU architecture (x86_64, arm64).
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Architecture",xDescriptors={"urn:alm:descriptor:text"}
	Architecture string `json:"architecture,omitempty"`

	// platform is the operating system platform EC2 reports, for example Linux/UNIX or
	// Windows.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Platform",xDescriptors={"urn:alm:descriptor:text"}
	Platform string `json:"platform,omitempty"`

	// vpcId is the VPC of the instance.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="VPC ID",xDescriptors={"urn:alm:descriptor:text"}
	VPCID string `json:"vpcId,omitempty"`

	// subnetId is the instance's subnet: the one spec.subnetSelector chose (recorded
	// before the launch, and never changed afterwards), or the one EC2 reports.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Subnet ID",xDescriptors={"urn:alm:descriptor:text"}
	SubnetID string `json:"subnetId,omitempty"`

	// securityGroupIds are the security groups the spec resolves to: securityGroupIds
	// and the groups securityGroupSelector matches.
	// +optional
	// +listType=set
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Security Group IDs"
	SecurityGroupIDs []string `json:"securityGroupIds,omitempty"`

	// networkInterfaces are the instance's network interfaces, the primary first.
	// +optional
	// +listType=atomic
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Network Interfaces"
	NetworkInterfaces []NetworkInterfaceStatus `json:"networkInterfaces,omitempty"`

	// elasticIp is the Elastic IP address of spec.elasticIp: which address, and its
	// association with the instance once made. The ElasticIPAssociated condition says
	// when the association is pending or refused.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Elastic IP"
	ElasticIP *ElasticIPStatus `json:"elasticIp,omitempty"`

	// rootVolumeId is the EBS volume at the root device.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Root Volume ID",xDescriptors={"urn:alm:descriptor:text"}
	RootVolumeID string `json:"rootVolumeId,omitempty"`

	// volumes are the data volumes of spec.volumes, and volumes being removed.
	// +optional
	// +listType=map
	// +listMapKey=deviceName
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Data Volumes"
	Volumes []VolumeStatus `json:"volumes,omitempty"`

	// volumeRemovals counts the data volumes removed from this instance; it is part of
	// the client token of the volumes created afterwards, so that a volume re-added
	// under the same device name is a new volume.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Volume Removals",xDescriptors={"urn:alm:descriptor:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	VolumeRemovals int32 `json:"volumeRemovals,omitempty"`

	// metadataOptionsState is whether the instance metadata options EC2 reports are
	// applied or still pending.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="IMDS Options State",xDescriptors={"urn:alm:descriptor:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	MetadataOptionsState string `json:"metadataOptionsState,omitempty"`

	// httpTokens is the IMDS token setting EC2 reports: required (IMDSv2) or optional.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="IMDS Tokens",xDescriptors={"urn:alm:descriptor:text"}
	HTTPTokens string `json:"httpTokens,omitempty"`

	// spotInstanceRequestId is the Spot Instance request behind a Spot Instance.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Spot Request ID",xDescriptors={"urn:alm:descriptor:text"}
	SpotInstanceRequestID string `json:"spotInstanceRequestId,omitempty"`

	// launchTime is when EC2 launched the instance.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Launch Time",xDescriptors={"urn:alm:descriptor:timestamp"}
	LaunchTime *metav1.Time `json:"launchTime,omitempty"`

	// clientToken is the idempotency token the operator launches with. It is derived
	// from this object's UID and recorded before the launch, so that a launch retried
	// after a crash or a timeout never creates a second instance.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Client Token",xDescriptors={"urn:alm:descriptor:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	ClientToken string `json:"clientToken,omitempty"`

	// lastLaunchAttempt is when the operator last asked EC2 to launch an instance for
	// this object. Until DescribeInstances has had time to show a launch (EC2 is
	// eventually consistent), the operator neither replaces nor releases an instance it
	// cannot see yet.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Last Launch Attempt",xDescriptors={"urn:alm:descriptor:timestamp","urn:alm:descriptor:com.tectonic.ui:advanced"}
	LastLaunchAttempt *metav1.Time `json:"lastLaunchAttempt,omitempty"`

	// recreations counts how many times the operator launched a replacement after the
	// instance was terminated outside Kubernetes; it is part of the client token.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Recreations",xDescriptors={"urn:alm:descriptor:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Recreations int32 `json:"recreations,omitempty"`

	// managedTagKeys are the tag keys the operator applied from the spec (plus Name and
	// its ownership tags). Only these are ever removed from the instance when they leave
	// the spec; tags added outside Kubernetes are never touched.
	// +optional
	// +listType=set
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Managed Tag Keys",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	ManagedTagKeys []string `json:"managedTagKeys,omitempty"`

	// launchVolumeIds are the EBS volumes the instance was launched with. The operator
	// tags only these with the instance's tags; volumes attached later by others (a CSI
	// driver, a user) are never touched.
	// +optional
	// +listType=set
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Launch Volume IDs",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	LaunchVolumeIDs []string `json:"launchVolumeIds,omitempty"`

	// lastRunningInstanceType is the instance type the instance last ran with. A type
	// change EC2 cannot start the instance with is reverted to it.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Last Running Instance Type",xDescriptors={"urn:alm:descriptor:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	LastRunningInstanceType string `json:"lastRunningInstanceType,omitempty"`

	// refusedInstanceType is an instance type EC2 would not run this instance with
	// (no capacity for longer than the operator waits, or not offered in its zone).
	// The operator does not try it again while spec.instanceType names it; any other
	// type is tried.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Refused Instance Type",xDescriptors={"urn:alm:descriptor:text"}
	RefusedInstanceType string `json:"refusedInstanceType,omitempty"`

	// typeChangeStarted is when the operator stopped the instance to change its type,
	// while that change is in progress; it bounds how long a start that EC2 refuses
	// for capacity is retried before the change is reverted.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Type Change Started",xDescriptors={"urn:alm:descriptor:timestamp","urn:alm:descriptor:com.tectonic.ui:advanced"}
	TypeChangeStarted *metav1.Time `json:"typeChangeStarted,omitempty"`

	// startFailures counts the starts in a row after which the instance stopped again
	// on its own (EC2 reports why in stateReason, for example an unusable KMS key);
	// each next start waits longer.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Start Failures",xDescriptors={"urn:alm:descriptor:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	StartFailures int32 `json:"startFailures,omitempty"`

	// lastFailedStart is the start (a lastStartAttempt) that startFailures last
	// counted, so that one failure is counted once however often it is seen.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Last Failed Start",xDescriptors={"urn:alm:descriptor:timestamp","urn:alm:descriptor:com.tectonic.ui:advanced"}
	LastFailedStart *metav1.Time `json:"lastFailedStart,omitempty"`

	// lastStartAttempt is when the operator last started the instance.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Last Start Attempt",xDescriptors={"urn:alm:descriptor:timestamp","urn:alm:descriptor:com.tectonic.ui:advanced"}
	LastStartAttempt *metav1.Time `json:"lastStartAttempt,omitempty"`

	// lastStopRequest is when the operator last stopped (or hibernated) the instance;
	// it is cleared once the instance is seen running again. A stopped instance without
	// it was stopped outside Kubernetes.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Last Stop Request",xDescriptors={"urn:alm:descriptor:timestamp","urn:alm:descriptor:com.tectonic.ui:advanced"}
	LastStopRequest *metav1.Time `json:"lastStopRequest,omitempty"`

	// launchAttempts counts the launches under the current client token that EC2
	// answered without an instance the operator could find (IdempotentParameterMismatch).
	// After a few, the operator stops launching (Stalled) until the spec changes or the
	// compute.ec2-operator.dev/retry annotation does.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Launch Attempts",xDescriptors={"urn:alm:descriptor:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	LaunchAttempts int32 `json:"launchAttempts,omitempty"`

	// observedRetry is the value of the compute.ec2-operator.dev/retry annotation the
	// operator last acted on: setting the annotation to a new value asks it to try a
	// launch it gave up on.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Observed Retry",xDescriptors={"urn:alm:descriptor:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	ObservedRetry string `json:"observedRetry,omitempty"`

	// outputs is the ConfigMap or Secret the instance's coordinates were last written
	// to (spec.outputsTo), so that it is deleted when the spec names another or none.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Outputs"
	Outputs *OutputsStatus `json:"outputs,omitempty"`

	// observedGeneration is the metadata.generation that the status describes; 0
	// until the operator first writes status.
	// +optional
	// +kubebuilder:default=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions describe the instance: Ready is True when the instance exists, is in
	// the desired state and matches every mutable field of the spec; its reason says
	// why not otherwise.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}
