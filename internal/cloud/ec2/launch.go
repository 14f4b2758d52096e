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

package ec2

import (
	"encoding/base64"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// ssmImagePrefix marks an ImageID that EC2 resolves from an SSM parameter at launch.
const ssmImagePrefix = "resolve:ssm:"

// defaultSSMRootDevice is the root device name assumed for resolve:ssm: images. EC2
// resolves the parameter only inside RunInstances, so the image cannot be described
// beforehand without an SSM client. The public parameters the operator documents
// (Amazon Linux 2 and 2023, under /aws/service/ami-amazon-linux-latest/) all resolve
// to images whose root device is /dev/xvda; an image with another root device (such
// as Ubuntu's /dev/sda1) must be named by AMI ID when its root volume is customised,
// or the mapping would add a second volume instead of resizing the root one.
const defaultSSMRootDevice = "/dev/xvda"

// isSSMImage reports whether imageID is a resolve:ssm: reference.
func isSSMImage(imageID string) bool { return strings.HasPrefix(imageID, ssmImagePrefix) }

// buildRunInstancesInput translates a LaunchRequest into RunInstances parameters.
// rootDevice is the image's root device name; it is used only when req.RootVolume is
// set. The output is deterministic for a given request (sorted tags), because EC2
// compares the parameters of a retried call with the same client token and answers
// IdempotentParameterMismatch when they differ.
func buildRunInstancesInput(req LaunchRequest, rootDevice string) *awsec2.RunInstancesInput {
	in := &awsec2.RunInstancesInput{
		MinCount:     aws.Int32(1),
		MaxCount:     aws.Int32(max(1, req.Count)),
		ClientToken:  aws.String(req.ClientToken),
		ImageId:      aws.String(req.ImageID),
		InstanceType: types.InstanceType(req.InstanceType),
		Monitoring:   &types.RunInstancesMonitoringEnabled{Enabled: aws.Bool(req.DetailedMonitoring)},
	}
	if req.DisableAPITermination {
		in.DisableApiTermination = aws.Bool(true)
	}
	if req.KeyName != "" {
		in.KeyName = aws.String(req.KeyName)
	}
	if req.UserData != "" {
		// RunInstances takes user data as a base64 string; the SDK does not encode it.
		in.UserData = aws.String(base64.StdEncoding.EncodeToString([]byte(req.UserData)))
	}
	in.IamInstanceProfile = iamProfileRequest(req.IAMInstanceProfile)
	in.TagSpecifications = launchTagSpecifications(req)
	if mo := metadataOptionsRequest(req.MetadataOptions); mo != nil {
		in.MetadataOptions = mo
	}
	if req.AvailabilityZone != "" || req.Placement != nil {
		in.Placement = placementRequest(req.AvailabilityZone, req.Placement)
	}
	addNetworkRequest(in, req)
	in.BlockDeviceMappings = launchBlockDevices(req, rootDevice)
	if s := req.Spot; s != nil {
		in.InstanceMarketOptions = spotMarketOptions(s)
	}
	addComputeOptions(in, req)
	return in
}

// iamProfileRequest names the instance profile by ARN or by name, as the user wrote
// it, because EC2 accepts either but in different fields. It returns nil for none.
func iamProfileRequest(p string) *types.IamInstanceProfileSpecification {
	switch {
	case p == "":
		return nil
	case strings.HasPrefix(p, "arn:"):
		return &types.IamInstanceProfileSpecification{Arn: aws.String(p)}
	default:
		return &types.IamInstanceProfileSpecification{Name: aws.String(p)}
	}
}

// launchTagSpecifications tags the instance, its volumes and its network interface at
// launch, so that nothing the launch creates is ever untagged (and so unowned). It
// returns nil when the request has no tags.
func launchTagSpecifications(req LaunchRequest) []types.TagSpecification {
	if len(req.Tags) == 0 {
		return nil
	}
	tags := toSDKTags(req.Tags)
	return []types.TagSpecification{
		{ResourceType: types.ResourceTypeInstance, Tags: toSDKTags(instanceLaunchTags(req))},
		{ResourceType: types.ResourceTypeVolume, Tags: tags},
		{ResourceType: types.ResourceTypeNetworkInterface, Tags: tags},
	}
}

// addNetworkRequest sets the subnet, security groups and addresses of the primary
// network interface, either at the top level of the request or, when they can only be
// expressed there, on an explicit network interface.
func addNetworkRequest(in *awsec2.RunInstancesInput, req LaunchRequest) {
	if req.AssociatePublicIPAddress == nil && req.SecondaryPrivateIPAddressCount == 0 {
		in.SubnetId = optString(req.SubnetID)
		in.SecurityGroupIds = req.SecurityGroupIDs
		in.PrivateIpAddress = optString(req.PrivateIPAddress)
		if n := req.IPv6AddressCount; n > 0 {
			in.Ipv6AddressCount = aws.Int32(n)
		}
		in.Ipv6Addresses = ipv6AddressRequests(req.IPv6Addresses)
		return
	}
	// A public-IP choice and secondary addresses can only be expressed on a network
	// interface, and EC2 rejects top-level SubnetId/SecurityGroupIds (and addresses)
	// together with NetworkInterfaces (InvalidParameterCombination), so they all move
	// into the primary interface.
	nic := types.InstanceNetworkInterfaceSpecification{
		DeviceIndex:         aws.Int32(0),
		DeleteOnTermination: aws.Bool(true),
		SubnetId:            optString(req.SubnetID),
		Groups:              req.SecurityGroupIDs,
		PrivateIpAddress:    optString(req.PrivateIPAddress),
		Ipv6Addresses:       ipv6AddressRequests(req.IPv6Addresses),
	}
	if req.AssociatePublicIPAddress != nil {
		nic.AssociatePublicIpAddress = aws.Bool(*req.AssociatePublicIPAddress)
	}
	if n := req.SecondaryPrivateIPAddressCount; n > 0 {
		nic.SecondaryPrivateIpAddressCount = aws.Int32(n)
	}
	if n := req.IPv6AddressCount; n > 0 {
		nic.Ipv6AddressCount = aws.Int32(n)
	}
	in.NetworkInterfaces = []types.InstanceNetworkInterfaceSpecification{nic}
}

// ipv6AddressRequests lists explicit IPv6 addresses in the SDK's form; it returns nil
// for none, so that an unset field stays unset in the request.
func ipv6AddressRequests(addrs []string) []types.InstanceIpv6Address {
	var out []types.InstanceIpv6Address
	for _, a := range addrs {
		out = append(out, types.InstanceIpv6Address{Ipv6Address: aws.String(a)})
	}
	return out
}

// launchBlockDevices maps the root volume override (at the image's root device, so
// that it resizes the root volume instead of adding one) and the data volumes.
func launchBlockDevices(req LaunchRequest, rootDevice string) []types.BlockDeviceMapping {
	var out []types.BlockDeviceMapping
	if rv := req.RootVolume; rv != nil {
		out = append(out, types.BlockDeviceMapping{
			DeviceName: aws.String(rootDevice),
			Ebs:        ebsBlockDevice(rv),
		})
	}
	for _, v := range req.Volumes {
		out = append(out, types.BlockDeviceMapping{
			DeviceName: aws.String(v.Device),
			Ebs:        dataVolumeBlockDevice(v),
		})
	}
	return out
}

// instanceLaunchTags are the tags the instance itself is launched with: req.Tags,
// with the ownership keys in the IMDS-safe form when the instance exposes its tags in
// instance metadata, where EC2 refuses keys with a slash. Its volumes and interface
// keep req.Tags, since the rule covers instance tags only.
func instanceLaunchTags(req LaunchRequest) map[string]string {
	if req.MetadataOptions.InstanceMetadataTags == "enabled" {
		return IMDSSafeTags(req.Tags)
	}
	return req.Tags
}

// metadataOptionsRequest returns nil when no option is set, so that EC2's account
// defaults apply.
func metadataOptionsRequest(m MetadataOptions) *types.InstanceMetadataOptionsRequest {
	if m == (MetadataOptions{}) {
		return nil
	}
	out := &types.InstanceMetadataOptionsRequest{
		HttpTokens:           types.HttpTokensState(m.HTTPTokens),
		HttpEndpoint:         types.InstanceMetadataEndpointState(m.HTTPEndpoint),
		InstanceMetadataTags: types.InstanceMetadataTagsState(m.InstanceMetadataTags),
		HttpProtocolIpv6:     types.InstanceMetadataProtocolState(m.HTTPProtocolIPv6),
	}
	if m.HTTPPutResponseHopLimit > 0 {
		out.HttpPutResponseHopLimit = aws.Int32(m.HTTPPutResponseHopLimit)
	}
	return out
}

// ebsBlockDevice converts a RootVolume; zero fields keep the image's values.
func ebsBlockDevice(rv *RootVolume) *types.EbsBlockDevice {
	ebs := &types.EbsBlockDevice{
		VolumeType:          types.VolumeType(rv.Type),
		Encrypted:           rv.Encrypted,
		KmsKeyId:            optString(rv.KMSKeyID),
		DeleteOnTermination: rv.DeleteOnTermination,
	}
	if rv.SizeGiB > 0 {
		ebs.VolumeSize = aws.Int32(rv.SizeGiB)
	}
	if rv.IOPS > 0 {
		ebs.Iops = aws.Int32(rv.IOPS)
	}
	if rv.Throughput > 0 {
		ebs.Throughput = aws.Int32(rv.Throughput)
	}
	return ebs
}

// spotMarketOptions picks the Spot request type from the interruption behaviour:
// EC2 accepts stop and hibernate only for persistent requests, and a persistent
// request with terminate would relaunch an instance the operator does not know about.
func spotMarketOptions(s *SpotOptions) *types.InstanceMarketOptionsRequest {
	opts := &types.SpotMarketOptions{MaxPrice: optString(s.MaxPrice)}
	switch b := types.InstanceInterruptionBehavior(s.InterruptionBehavior); b {
	case types.InstanceInterruptionBehaviorStop, types.InstanceInterruptionBehaviorHibernate:
		opts.SpotInstanceType = types.SpotInstanceTypePersistent
		opts.InstanceInterruptionBehavior = b
	default:
		opts.SpotInstanceType = types.SpotInstanceTypeOneTime
		opts.InstanceInterruptionBehavior = types.InstanceInterruptionBehaviorTerminate
	}
	return &types.InstanceMarketOptionsRequest{MarketType: types.MarketTypeSpot, SpotOptions: opts}
}

// optString returns nil for "", so that empty fields are left out of the request.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}

// dataVolumeBlockDevice converts a data volume for the launch's block device mapping.
func dataVolumeBlockDevice(v VolumeRequest) *types.EbsBlockDevice {
	ebs := &types.EbsBlockDevice{
		VolumeType:          types.VolumeType(v.Type),
		Encrypted:           v.Encrypted,
		KmsKeyId:            optString(v.KMSKeyID),
		SnapshotId:          optString(v.SnapshotID),
		DeleteOnTermination: aws.Bool(v.DeleteOnTermination),
	}
	if v.SizeGiB > 0 {
		ebs.VolumeSize = aws.Int32(v.SizeGiB)
	}
	if v.IOPS > 0 {
		ebs.Iops = aws.Int32(v.IOPS)
	}
	if v.Throughput > 0 {
		ebs.Throughput = aws.Int32(v.Throughput)
	}
	return ebs
}

// placementRequest converts the zone and the placement options.
func placementRequest(zone string, p *PlacementSpec) *types.Placement {
	out := &types.Placement{AvailabilityZone: optString(zone)}
	if p == nil {
		return out
	}
	out.GroupName = optString(p.GroupName)
	if p.PartitionNumber > 0 {
		out.PartitionNumber = aws.Int32(p.PartitionNumber)
	}
	out.Tenancy = types.Tenancy(p.Tenancy)
	out.HostId = optString(p.HostID)
	out.HostResourceGroupArn = optString(p.HostResourceGroupARN)
	out.Affinity = optString(p.Affinity)
	return out
}

// addComputeOptions adds hibernation, lifecycle, CPU, credit, capacity and DNS options;
// unset options are left out, so that EC2's defaults apply.
func addComputeOptions(in *awsec2.RunInstancesInput, req LaunchRequest) {
	if req.Hibernation {
		in.HibernationOptions = &types.HibernationOptionsRequest{Configured: aws.Bool(true)}
	}
	in.DisableApiStop = req.StopProtection
	if req.ShutdownBehavior != "" {
		in.InstanceInitiatedShutdownBehavior = types.ShutdownBehavior(req.ShutdownBehavior)
	}
	if req.AutoRecovery != "" {
		in.MaintenanceOptions = &types.InstanceMaintenanceOptionsRequest{AutoRecovery: types.InstanceAutoRecoveryState(req.AutoRecovery)}
	}
	if o := req.PrivateDNSNameOptions; o != nil {
		in.PrivateDnsNameOptions = &types.PrivateDnsNameOptionsRequest{
			HostnameType:                    types.HostnameType(o.HostnameType),
			EnableResourceNameDnsARecord:    aws.Bool(o.EnableARecord),
			EnableResourceNameDnsAAAARecord: aws.Bool(o.EnableAAAARecord),
		}
	}
	if req.CreditSpecification != "" {
		in.CreditSpecification = &types.CreditSpecificationRequest{CpuCredits: aws.String(req.CreditSpecification)}
	}
	if o := req.CPUOptions; o != nil {
		in.CpuOptions = &types.CpuOptionsRequest{}
		if o.CoreCount > 0 {
			in.CpuOptions.CoreCount = aws.Int32(o.CoreCount)
		}
		if o.ThreadsPerCore > 0 {
			in.CpuOptions.ThreadsPerCore = aws.Int32(o.ThreadsPerCore)
		}
	}
	if c := req.CapacityReservation; c != nil {
		in.CapacityReservationSpecification = capacityReservationRequest(*c)
	}
}
