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

// EC2InstanceSpec declares the EC2 instance that the operator keeps in existence.
//
// Fields that EC2 cannot change on a running instance (the image, the subnet or its
// selector, the key pair, the availability zone, the region, the primary interface's
// addresses and public IP association, spot options and an adopted instance ID) are
// immutable: the API server rejects a change to them, because
// honouring it would mean silently replacing the instance.
//
// +kubebuilder:validation:XValidation:rule="has(self.subnetId) == has(oldSelf.subnetId)",message="subnetId is immutable: it cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="has(self.subnetSelector) == has(oldSelf.subnetSelector)",message="subnetSelector is immutable: it cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="!(has(self.subnetId) && has(self.subnetSelector))",message="set subnetId or subnetSelector, not both",fieldPath=".subnetSelector"
// +kubebuilder:validation:XValidation:rule="!has(self.subnetSelector) || !has(self.subnetSelector.availabilityZone) || !has(self.availabilityZone) || self.subnetSelector.availabilityZone == self.availabilityZone",message="subnetSelector.availabilityZone must equal availabilityZone when both are set",fieldPath=".subnetSelector.availabilityZone"
// +kubebuilder:validation:XValidation:rule="has(self.privateIpAddress) == has(oldSelf.privateIpAddress)",message="privateIpAddress is immutable: it cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="has(self.ipv6AddressCount) == has(oldSelf.ipv6AddressCount) && has(self.ipv6Addresses) == has(oldSelf.ipv6Addresses)",message="ipv6AddressCount and ipv6Addresses are immutable: they cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="!(has(self.ipv6AddressCount) && has(self.ipv6Addresses))",message="set ipv6AddressCount or ipv6Addresses, not both",fieldPath=".ipv6Addresses"
// +kubebuilder:validation:XValidation:rule="!(has(self.userData) && has(self.userDataFrom))",message="set userData or userDataFrom, not both",fieldPath=".userDataFrom"
// +kubebuilder:validation:XValidation:rule="has(self.keyName) == has(oldSelf.keyName)",message="keyName is immutable: it cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="has(self.availabilityZone) == has(oldSelf.availabilityZone)",message="availabilityZone is immutable: it cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="has(self.region) == has(oldSelf.region)",message="region is immutable: it cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="has(self.accountRef) == has(oldSelf.accountRef)",message="accountRef is immutable: it cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="has(self.associatePublicIpAddress) == has(oldSelf.associatePublicIpAddress)",message="associatePublicIpAddress is immutable: it cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="has(self.spot) == has(oldSelf.spot)",message="spot is immutable: it cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="has(self.instanceId) == has(oldSelf.instanceId)",message="instanceId is immutable: it can only be set when the EC2Instance is created"
// +kubebuilder:validation:XValidation:rule="!has(self.spot) || !has(oldSelf.instanceType) || (has(self.instanceType) && self.instanceType == oldSelf.instanceType)",message="instanceType of a Spot Instance is immutable: EC2 cannot change the type of a Spot Instance"
// +kubebuilder:validation:XValidation:rule="has(self.instanceType) || has(self.instanceId)",message="instanceType is required, unless instanceId adopts an instance (then it is filled in from the instance)",fieldPath=".instanceType"
// +kubebuilder:validation:XValidation:rule="!has(self.rootVolume) || !has(self.imageId) || self.imageId.startsWith('ami-') || self.imageId.startsWith('resolve:ssm:/aws/service/ami-amazon-linux-latest/')",message="rootVolume needs an AMI ID, an image selector or an Amazon Linux SSM parameter: for other SSM parameters the root device name is unknown before launch"
// +kubebuilder:validation:XValidation:rule="has(self.instanceId) ? !(has(self.imageId) && has(self.imageSelector)) : has(self.imageId) != has(self.imageSelector)",message="set exactly one of imageId and imageSelector (an adopted instance may leave both unset: imageId is then filled in from the instance)"
// +kubebuilder:validation:XValidation:rule="has(self.imageSelector) == has(oldSelf.imageSelector)",message="imageSelector is immutable: it cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="!has(self.hibernation) || !self.hibernation || (has(self.rootVolume) && has(self.rootVolume.encrypted) && self.rootVolume.encrypted)",message="hibernation needs an encrypted root volume (rootVolume.encrypted: true) large enough for the instance's memory",fieldPath=".hibernation"
// +kubebuilder:validation:XValidation:rule="!has(self.hibernation) || !self.hibernation || !has(self.spot)",message="hibernation at launch is for On-Demand instances; a Spot Instance hibernates through spot.interruptionBehavior",fieldPath=".hibernation"
// +kubebuilder:validation:XValidation:rule="!has(self.desiredState) || self.desiredState != 'hibernated' || (has(self.hibernation) && self.hibernation)",message="desiredState hibernated needs hibernation: true",fieldPath=".desiredState"
// +kubebuilder:validation:XValidation:rule="has(self.hibernation) == has(oldSelf.hibernation)",message="hibernation is immutable: it cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="!has(self.creditSpecification) || !has(self.instanceType) || self.instanceType.matches('^t(2|3|3a|4g)[.]')",message="creditSpecification is for burstable instance types (T2, T3, T3a, T4g)",fieldPath=".creditSpecification"
// +kubebuilder:validation:XValidation:rule="!has(self.disableApiStop) || !self.disableApiStop || !has(self.desiredState) || self.desiredState == 'running'",message="stop protection is on: set disableApiStop to false to stop or hibernate the instance",fieldPath=".disableApiStop"
// +kubebuilder:validation:XValidation:rule="(has(self.placement) && has(self.placement.tenancy) ? self.placement.tenancy : 'default') == (has(oldSelf.placement) && has(oldSelf.placement.tenancy) ? oldSelf.placement.tenancy : 'default') || ((has(self.placement) && has(self.placement.tenancy) ? self.placement.tenancy : 'default') != 'default' && (has(oldSelf.placement) && has(oldSelf.placement.tenancy) ? oldSelf.placement.tenancy : 'default') != 'default')",message="placement.tenancy can only change between dedicated and host: EC2 cannot move an instance to or from shared hardware",fieldPath=".placement"
// +kubebuilder:validation:XValidation:rule="!has(self.placement) || !has(self.placement.tenancy) || self.placement.tenancy != 'host' || !has(self.spot)",message="Spot Instances cannot run on Dedicated Hosts",fieldPath=".placement.tenancy"
// +kubebuilder:validation:XValidation:rule="has(self.rootVolume) == has(oldSelf.rootVolume)",message="rootVolume cannot be added or removed after creation"
// +kubebuilder:validation:XValidation:rule="!has(self.metadataOptions) || !has(self.metadataOptions.instanceMetadataTags) || self.metadataOptions.instanceMetadataTags != 'enabled' || !has(self.tags) || self.tags.all(k, k.matches('^[a-zA-Z0-9+=.,_:@-]+$') && !(k in ['.', '..', '_index', '_links']))",message="with metadataOptions.instanceMetadataTags enabled, EC2 refuses instance tag keys with a slash, a space or characters other than letters, digits and + - = . , _ : @, and the keys '.', '..', '_index' and '_links': rename the tag or disable instanceMetadataTags",fieldPath=".tags"
// +kubebuilder:validation:XValidation:rule="!has(self.metadataOptions) || !has(self.metadataOptions.instanceMetadataTags) || self.metadataOptions.instanceMetadataTags != 'enabled' || !has(self.tags) || size(self.tags) <= 43",message="with metadataOptions.instanceMetadataTags enabled, at most 43 tags: the operator keeps room to move its ownership tags to the form instance metadata allows",fieldPath=".tags"
// +kubebuilder:validation:XValidation:rule="!has(self.spot) || !has(self.spot.interruptionBehavior) || self.spot.interruptionBehavior != 'terminate' || !has(self.desiredState) || self.desiredState != 'stopped'",message="a Spot Instance with interruptionBehavior terminate cannot be stopped (EC2 only stops persistent Spot requests): use interruptionBehavior stop, or desiredState running"
type EC2InstanceSpec struct {
	// imageId is the AMI to launch: either an AMI ID (ami-0123456789abcdef0) or an AWS
	// Systems Manager parameter that holds one, written resolve:ssm:/path/to/parameter
	// (for example resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64).
	// Set it or imageSelector. The AMI actually launched is reported in status.imageId.
	// Immutable.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^(ami-([0-9a-f]{8}|[0-9a-f]{17})|resolve:ssm:/[a-zA-Z0-9_.\-/]+(:[0-9]+)?)$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="imageId is immutable; create a new EC2Instance to launch another image"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image ID",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	ImageID string `json:"imageId,omitempty"`

	// imageSelector picks the newest image (by creation date, then ID) matching owners,
	// name, architecture and tags, instead of imageId. It is resolved once, at launch:
	// status.imageId and status.imageName say which image it chose, and a newer image
	// published later does not replace the running instance (delete and re-create the
	// object, or let an out-of-band termination replace it, to pick it up). Immutable.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="imageSelector is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image Selector"
	ImageSelector *ImageSelector `json:"imageSelector,omitempty"`

	// instanceType is the EC2 instance type, for example t3.micro or m7g.large.
	// Changing it on a running instance is disruptive: the operator stops the
	// instance, changes its type and starts it again.
	// Required, except when instanceId adopts an instance: then it is filled in from
	// the instance (late-initialized) and, from then on, converged like any other field.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9-]*\.[a-z0-9-]+$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Instance Type",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	InstanceType string `json:"instanceType,omitempty"`

	// subnetId is the VPC subnet to launch into (subnet-...). When omitted, EC2 uses the
	// default subnet of the default VPC in the chosen (or an automatically chosen)
	// availability zone. Immutable.
	// +optional
	// +kubebuilder:validation:Pattern=`^subnet-([0-9a-f]{8}|[0-9a-f]{17})$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="subnetId is immutable; create a new EC2Instance to move to another subnet"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Subnet ID",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	SubnetID string `json:"subnetId,omitempty"`

	// securityGroupIds are the security groups (sg-...) of the instance's primary network
	// interface. When omitted, EC2 uses the VPC's default security group at launch and
	// the operator leaves the groups alone afterwards. Mutable.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Pattern=`^sg-([0-9a-f]{8}|[0-9a-f]{17})$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Security Group IDs"
	SecurityGroupIDs []string `json:"securityGroupIds,omitempty"`

	// subnetSelector picks the subnet by tags instead of subnetId (set one of them, or
	// neither for the default subnet). The chosen subnet is reported in status.subnetId
	// and never changes for the instance. Immutable.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="subnetSelector is immutable; the chosen subnet never changes for a running instance"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Subnet Selector"
	SubnetSelector *SubnetSelector `json:"subnetSelector,omitempty"`

	// securityGroupSelector adds the security groups that match it (by tags or names,
	// in the subnet's VPC) to securityGroupIds. The resolved groups are reported in
	// status.securityGroupIds and followed when the selection changes. Mutable.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Security Group Selector"
	SecurityGroupSelector *SecurityGroupSelector `json:"securityGroupSelector,omitempty"`

	// keyName is the name of the EC2 key pair whose public key is installed for SSH.
	// Immutable.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="keyName is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Key Pair Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	KeyName string `json:"keyName,omitempty"`

	// userData is the instance's user data as plain text (for example a cloud-init
	// document); the operator base64-encodes it. EC2 limits user data to 16 KB in raw
	// form, before base64 encoding, so at most 16384 bytes are accepted. Changing it on
	// a running instance is applied the next time the instance is stopped. When omitted,
	// the instance's user data is left alone (an adopted instance keeps its own). Do not
	// put secrets here: user data is readable by anyone who can describe the instance.
	// +optional
	// +kubebuilder:validation:MaxLength=16384
	// +kubebuilder:validation:XValidation:rule="size(bytes(self)) <= 16384",message="userData must be at most 16384 bytes (EC2's 16 KB limit on raw user data)"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="User Data",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	UserData string `json:"userData,omitempty"`

	// userDataFrom reads the user data from a key of a Secret or ConfigMap in this
	// object's namespace, instead of userData (set at most one of them). An edit of the
	// referenced value is applied like an edit of userData: at the next stop. The value
	// is never logged or put in an event.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="User Data From",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	UserDataFrom *UserDataSource `json:"userDataFrom,omitempty"`

	// iamInstanceProfile is the IAM instance profile to attach, by name or by ARN
	// (arn:aws:iam::123456789012:instance-profile/name). Mutable: the operator replaces
	// the association in place. When omitted, the operator leaves any association alone
	// (so adopting an instance never strips its role).
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^(arn:aws[a-z-]*:iam::[0-9]{12}:instance-profile/[a-zA-Z0-9+=,.@_/-]+|[a-zA-Z0-9+=,.@_-]{1,128})$`
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="IAM Instance Profile",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	IAMInstanceProfile string `json:"iamInstanceProfile,omitempty"`

	// rootVolume configures the root EBS volume. When omitted, the AMI's block device
	// mapping is used unchanged.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Root Volume"
	RootVolume *RootVolume `json:"rootVolume,omitempty"`

	// volumes are EBS data volumes besides the root volume, keyed by deviceName.
	// Volumes listed at creation are launched with the instance; volumes added later
	// are created in its availability zone and attached; volumes removed are detached
	// and deleted (or released, when deleteOnTermination is false). Size, type, IOPS,
	// throughput and deleteOnTermination are changed in place. Mutable.
	// +optional
	// +listType=map
	// +listMapKey=deviceName
	// +kubebuilder:validation:MaxItems=24
	// +kubebuilder:validation:XValidation:rule="self.all(v, !(v.deviceName in ['/dev/sda', '/dev/sda1', '/dev/xvda', 'xvda']))",message="volumes[].deviceName may not be a root device name (/dev/sda1, /dev/xvda): configure the root volume with rootVolume"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Data Volumes"
	Volumes []DataVolume `json:"volumes,omitempty"`

	// tags are added to the instance and its volumes at launch and kept in place
	// afterwards. The operator also sets Name (to the EC2Instance's name, unless you set
	// it) and its own ownership tags under ec2-operator.dev/. Tags added to the instance
	// outside Kubernetes are left alone. Keys may not start with aws:, ec2-operator.dev/
	// or ec2-operator.dev: (the ownership tags' form on an instance with
	// metadataOptions.instanceMetadataTags enabled, where EC2 refuses keys with a slash
	// or a space, and so does the API for your keys; that mode allows 43 tags);
	// EC2 allows 50 tags a resource and the operator uses up to 6 of them (Name, the
	// owner's UID, namespace and name, the cluster, and on data volumes the device).
	// +optional
	// +kubebuilder:validation:MaxProperties=44
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.lowerAscii().startsWith('aws:'))",message="tag keys may not start with aws: in any case (reserved by AWS)"
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('ec2-operator.dev/') && !k.startsWith('ec2-operator.dev:'))",message="tag keys may not start with ec2-operator.dev/ or ec2-operator.dev: (reserved for the operator's ownership tags)"
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) >= 1 && size(k) <= 128)",message="tag keys must be 1 to 128 characters long"
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(self[k]) <= 256)",message="tag values must be at most 256 characters long"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Tags"
	Tags map[string]string `json:"tags,omitempty"`

	// metadataOptions configures the instance metadata service (IMDS). IMDSv2
	// (httpTokens: required) is the default because IMDSv1 exposes credentials to SSRF:
	// when omitted, an instance the operator launches gets IMDSv2 only, and an adopted
	// instance keeps its own options (they are filled in here from the instance).
	// Mutable.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Metadata Options"
	MetadataOptions *MetadataOptions `json:"metadataOptions,omitempty"`

	// monitoring enables CloudWatch detailed (one-minute) monitoring. When omitted, an
	// instance the operator launches has it off, and an adopted instance keeps its own
	// setting (filled in here from the instance). Mutable.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Detailed Monitoring",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Monitoring *bool `json:"monitoring,omitempty"`

	// disableApiTermination turns on EC2 termination protection. The operator lifts it
	// itself when the EC2Instance is deleted with deletionPolicy Delete. When omitted,
	// an instance the operator launches has it off, and an adopted instance keeps its
	// own setting (filled in here from the instance). Mutable.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Termination Protection",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	DisableAPITermination *bool `json:"disableApiTermination,omitempty"`

	// associatePublicIpAddress asks for a public IPv4 address on the primary network
	// interface. When omitted, the subnet's setting applies. Immutable.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="associatePublicIpAddress is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Associate Public IP Address",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	AssociatePublicIPAddress *bool `json:"associatePublicIpAddress,omitempty"`

	// privateIpAddress is the primary private IPv4 address of the primary network
	// interface. It must lie in the subnet's range and be free. When omitted, EC2
	// picks one. Immutable.
	// +optional
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:Pattern=`^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="privateIpAddress is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Private IP Address",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	PrivateIPAddress string `json:"privateIpAddress,omitempty"`

	// secondaryPrivateIpAddressCount asks EC2 for this many secondary private IPv4
	// addresses on the primary network interface (the instance type bounds how many
	// it allows). Mutable, in place: addresses are added from the subnet or the last
	// ones released. When omitted, the interface's addresses are left alone.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=49
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Secondary Private IP Count",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	SecondaryPrivateIPAddressCount *int32 `json:"secondaryPrivateIpAddressCount,omitempty"`

	// ipv6AddressCount asks EC2 for this many IPv6 addresses from the subnet's IPv6
	// range (the subnet must have one). Immutable.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=50
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="ipv6AddressCount is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="IPv6 Address Count",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:number","urn:alm:descriptor:com.tectonic.ui:advanced"}
	IPv6AddressCount *int32 `json:"ipv6AddressCount,omitempty"`

	// ipv6Addresses are explicit IPv6 addresses from the subnet's IPv6 range, instead of
	// ipv6AddressCount. Immutable.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MaxLength=45
	// +kubebuilder:validation:items:Pattern=`^[0-9a-fA-F:]+$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="ipv6Addresses are immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="IPv6 Addresses",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	IPv6Addresses []string `json:"ipv6Addresses,omitempty"`

	// sourceDestCheck turns the primary interface's source/destination check on or
	// off; turn it off for NAT instances and routers. When omitted, the instance's
	// setting is left alone (EC2 launches with it on). Mutable.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Source/Destination Check",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch","urn:alm:descriptor:com.tectonic.ui:advanced"}
	SourceDestCheck *bool `json:"sourceDestCheck,omitempty"`

	// elasticIp associates an Elastic IP address with the instance: an existing one
	// (allocationId) or one the operator allocates and owns (allocate: true). Mutable.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Elastic IP"
	ElasticIP *ElasticIP `json:"elasticIp,omitempty"`

	// availabilityZone places the instance in this zone (for example us-east-1a). It must
	// match the subnet's zone when both are set. Immutable.
	// +optional
	// +kubebuilder:validation:Pattern=`^[a-z]{2}(-[a-z0-9]+)+[a-z]$`
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="availabilityZone is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Availability Zone",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	AvailabilityZone string `json:"availabilityZone,omitempty"`

	// hibernation enables hibernation at launch, which EC2 allows only then (so it is
	// immutable): the instance type must support it and the root volume must be
	// encrypted and large enough for the instance's memory. Then desiredState
	// hibernated stops it with hibernation.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="hibernation is immutable: EC2 enables it only at launch"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Hibernation",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch"}
	Hibernation *bool `json:"hibernation,omitempty"`

	// disableApiStop turns on stop protection: EC2 refuses StopInstances until it is
	// turned off. The operator lifts it itself only when the spec asks for a stop that
	// also turns it off. Mutable.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Stop Protection",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:booleanSwitch","urn:alm:descriptor:com.tectonic.ui:advanced"}
	DisableAPIStop *bool `json:"disableApiStop,omitempty"`

	// instanceInitiatedShutdownBehavior is what a shutdown from inside the instance
	// does: stop (EC2's default) or terminate. With terminate, such a shutdown is handled
	// like a termination outside Kubernetes (a replacement is launched). When omitted,
	// the instance's setting is left alone. Mutable.
	// +optional
	// +kubebuilder:validation:Enum=stop;terminate
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Shutdown Behavior",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:stop","urn:alm:descriptor:com.tectonic.ui:select:terminate","urn:alm:descriptor:com.tectonic.ui:advanced"}
	InstanceInitiatedShutdownBehavior string `json:"instanceInitiatedShutdownBehavior,omitempty"`

	// maintenanceOptions configures simplified automatic recovery. Mutable.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Maintenance Options",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	MaintenanceOptions *MaintenanceOptions `json:"maintenanceOptions,omitempty"`

	// privateDnsNameOptions chooses the instance's private hostname type and its DNS
	// records. EC2 changes the hostname type only while the instance is stopped, so a
	// change waits for the next stop, like userData. Mutable.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Private DNS Name Options",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	PrivateDNSNameOptions *PrivateDNSNameOptions `json:"privateDnsNameOptions,omitempty"`

	// creditSpecification sets the CPU credit option of a burstable instance (T2, T3,
	// T3a, T4g). Mutable, in place.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Credit Specification",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	CreditSpecification *CreditSpecification `json:"creditSpecification,omitempty"`

	// cpuOptions sets the number of CPU cores and threads per core, within what the
	// instance type allows (checked before launch against DescribeInstanceTypes). EC2
	// changes them only while the instance is stopped, so a change waits for the next
	// stop, like userData. Mutable.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="CPU Options",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	CPUOptions *CPUOptions `json:"cpuOptions,omitempty"`

	// capacityReservation says which On-Demand Capacity Reservation the instance runs
	// in. EC2 changes it only while the instance is stopped, so a change waits for the
	// next stop. Mutable.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Capacity Reservation",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	CapacityReservation *CapacityReservation `json:"capacityReservation,omitempty"`

	// placement puts the instance in a placement group, on dedicated hardware or on a
	// Dedicated Host. EC2 moves an instance (another group or partition, between
	// dedicated and host tenancy, another host) only while it is stopped, so a change
	// waits for the next stop; affinity changes at once. Tenancy never changes to or
	// from default. Mutable.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Placement",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	Placement *Placement `json:"placement,omitempty"`

	// spot launches a Spot Instance instead of an On-Demand one. Immutable.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spot is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Spot Options"
	Spot *SpotOptions `json:"spot,omitempty"`

	// desiredState is the power state the operator keeps the instance in: running,
	// stopped, or hibernated (stopped with its memory saved to the root volume; needs
	// hibernation: true). When omitted, an instance the operator launches is kept
	// running, and an adopted instance's state (running or stopped) is filled in here.
	// Mutable.
	// +optional
	// +kubebuilder:validation:Enum=running;stopped;hibernated
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Desired State",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:running","urn:alm:descriptor:com.tectonic.ui:select:stopped","urn:alm:descriptor:com.tectonic.ui:select:hibernated"}
	DesiredState DesiredState `json:"desiredState,omitempty"`

	// managementPolicy says how far the operator acts. Full (the default) launches or
	// adopts the instance and keeps it matching the spec. Observe never makes a
	// changing EC2 call: it needs instanceId (or an instance launched earlier in
	// Full), fills status from the instance, reports what differs from the fields the
	// spec sets as Synced=False (reason DriftDetected) without correcting it, and
	// deleting the object only releases it, whatever deletionPolicy says. Switching
	// to Full manages the instance from that pass on; switching back stops at once.
	// +optional
	// +kubebuilder:default=Full
	// +kubebuilder:validation:Enum=Full;Observe
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Management Policy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Full","urn:alm:descriptor:com.tectonic.ui:select:Observe"}
	ManagementPolicy ManagementPolicy `json:"managementPolicy,omitempty"`

	// outputsTo names a ConfigMap or Secret of the object's namespace that the operator
	// keeps the instance's coordinates in (its ID, addresses, DNS names, Elastic IP,
	// Availability Zone and region: the same values as status), for workloads that
	// need them. It is written in Observe too, since it changes nothing in AWS. The
	// namespace must grant the operator the ec2-operator-outputs-writer ClusterRole
	// (docs/behaviour.md, "Outputs"). Mutable: a rename or removal deletes the old object.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Outputs To"
	OutputsTo *OutputsTarget `json:"outputsTo,omitempty"`

	// deletionPolicy says what happens to the instance when the EC2Instance is deleted:
	// Delete terminates it (lifting termination protection first); Retain leaves it as it
	// is (running or stopped) and removes the operator's ownership tags so that another
	// EC2Instance can adopt it. Mutable.
	// +optional
	// +kubebuilder:default=Delete
	// +kubebuilder:validation:Enum=Delete;Retain
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Deletion Policy",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Delete","urn:alm:descriptor:com.tectonic.ui:select:Retain"}
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// region is the AWS region of the instance, for example eu-west-1. When omitted, the
	// operator's default region is used (its --aws-region flag or AWS_REGION). Immutable.
	// +optional
	// +kubebuilder:validation:Pattern=`^[a-z]{2}(-[a-z]+)+-[0-9]+$`
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="region is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Region",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	Region string `json:"region,omitempty"`

	// accountRef names the AWSAccount whose assumed role the operator acts through
	// for this instance. When omitted, the namespace's
	// compute.ec2-operator.dev/default-account annotation names it, and without that
	// the operator's own credentials are used. The account must allow this
	// namespace; otherwise nothing is called in AWS and Ready is False with reason
	// AccountNotAllowed. Immutable.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="accountRef is immutable"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="AWS Account",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:advanced"}
	AccountRef *AccountReference `json:"accountRef,omitempty"`

	// instanceId adopts an existing instance (i-...) instead of launching one. The
	// operator refuses an instance that another EC2Instance owns, tags the instance as
	// its own, reports immutable fields that differ from this spec, and manages the
	// mutable ones. Every late-initialized field left unset (instanceType, imageId,
	// metadataOptions, monitoring, disableApiTermination, desiredState, tags,
	// securityGroupIds, iamInstanceProfile, sourceDestCheck) is filled in from the
	// instance before anything is changed, so that adopting changes nothing that the
	// spec does not ask for. Immutable once set.
	// +optional
	// +kubebuilder:validation:Pattern=`^i-([0-9a-f]{8}|[0-9a-f]{17})$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="instanceId is immutable once set"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Adopt Instance ID",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	InstanceID string `json:"instanceId,omitempty"`
}
