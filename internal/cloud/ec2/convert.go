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
	"maps"
	"slices"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// fromSDKInstance converts the SDK's view of an instance into the package's Instance.
func fromSDKInstance(in types.Instance) Instance {
	out := Instance{
		ID:               aws.ToString(in.InstanceId),
		InstanceType:     string(in.InstanceType),
		ImageID:          aws.ToString(in.ImageId),
		SubnetID:         aws.ToString(in.SubnetId),
		VPCID:            aws.ToString(in.VpcId),
		PrivateIP:        aws.ToString(in.PrivateIpAddress),
		PublicIP:         aws.ToString(in.PublicIpAddress),
		PrivateDNSName:   aws.ToString(in.PrivateDnsName),
		PublicDNSName:    aws.ToString(in.PublicDnsName),
		KeyName:          aws.ToString(in.KeyName),
		LaunchTime:       aws.ToTime(in.LaunchTime),
		ClientToken:      aws.ToString(in.ClientToken),
		LaunchIndex:      aws.ToInt32(in.AmiLaunchIndex),
		Spot:             in.InstanceLifecycle == types.InstanceLifecycleTypeSpot,
		SpotRequestID:    aws.ToString(in.SpotInstanceRequestId),
		Architecture:     string(in.Architecture),
		Platform:         aws.ToString(in.PlatformDetails),
		SourceDestCheck:  in.SourceDestCheck,
		SecurityGroupIDs: []string{},
		Tags:             map[string]string{},
	}
	fromSDKState(in, &out)
	if in.Placement != nil {
		out.AvailabilityZone = aws.ToString(in.Placement.AvailabilityZone)
	}
	for _, g := range in.SecurityGroups {
		out.SecurityGroupIDs = append(out.SecurityGroupIDs, aws.ToString(g.GroupId))
	}
	for _, t := range in.Tags {
		out.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	fromSDKMetadataOptions(in.MetadataOptions, &out)
	out.NetworkInterfaces = fromSDKInterfaces(in.NetworkInterfaces)
	fromSDKComputeOptions(in, &out)
	if in.Monitoring != nil {
		s := in.Monitoring.State
		out.DetailedMonitoring = s == types.MonitoringStateEnabled || s == types.MonitoringStatePending
	}
	if in.IamInstanceProfile != nil {
		out.IAMInstanceProfileARN = aws.ToString(in.IamInstanceProfile.Arn)
	}
	fromSDKBlockDevices(in, &out)
	return out
}

// fromSDKState sets the state and the reason for the last change of state.
func fromSDKState(in types.Instance, out *Instance) {
	if in.State != nil {
		out.State = string(in.State.Name)
	}
	// StateReason carries the precise cause (for example
	// Server.InsufficientInstanceCapacity); StateTransitionReason is the older,
	// free-form text, used only when there is nothing better.
	if in.StateReason != nil && aws.ToString(in.StateReason.Message) != "" {
		out.StateReason = aws.ToString(in.StateReason.Message)
		out.StateReasonCode = aws.ToString(in.StateReason.Code)
	} else {
		out.StateReason = aws.ToString(in.StateTransitionReason)
	}
}

// fromSDKMetadataOptions sets the metadata service options and whether EC2 has
// applied them yet; an answer without options leaves them empty.
func fromSDKMetadataOptions(m *types.InstanceMetadataOptionsResponse, out *Instance) {
	if m == nil {
		return
	}
	out.MetadataOptions = MetadataOptions{
		HTTPTokens:              string(m.HttpTokens),
		HTTPPutResponseHopLimit: aws.ToInt32(m.HttpPutResponseHopLimit),
		HTTPEndpoint:            string(m.HttpEndpoint),
		InstanceMetadataTags:    string(m.InstanceMetadataTags),
		HTTPProtocolIPv6:        string(m.HttpProtocolIpv6),
	}
	out.MetadataOptionsState = string(m.State)
}

// fromSDKBlockDevices lists the attached EBS volumes and picks out the root one by the
// instance's root device name. Mappings that name no EBS volume are skipped, as there
// is no volume to report.
func fromSDKBlockDevices(in types.Instance, out *Instance) {
	root := aws.ToString(in.RootDeviceName)
	for _, bdm := range in.BlockDeviceMappings {
		if bdm.Ebs == nil || bdm.Ebs.VolumeId == nil {
			continue
		}
		id := aws.ToString(bdm.Ebs.VolumeId)
		out.VolumeIDs = append(out.VolumeIDs, id)
		out.BlockDevices = append(out.BlockDevices, BlockDevice{
			Device: aws.ToString(bdm.DeviceName), VolumeID: id, Status: string(bdm.Ebs.Status),
			DeleteOnTermination: aws.ToBool(bdm.Ebs.DeleteOnTermination),
		})
		if root != "" && aws.ToString(bdm.DeviceName) == root {
			out.RootVolumeID = id
		}
	}
}

// toSDKTags turns a tag map into the SDK's tag list.
func toSDKTags(tags map[string]string) []types.Tag {
	out := make([]types.Tag, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		out = append(out, types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	return out
}

// fromSDKInterfaces converts the attached interfaces, ordered by device index.
func fromSDKInterfaces(nics []types.InstanceNetworkInterface) []NetworkInterface {
	var out []NetworkInterface
	for _, n := range nics {
		nic := NetworkInterface{ID: aws.ToString(n.NetworkInterfaceId)}
		if n.Attachment != nil {
			nic.DeviceIndex = aws.ToInt32(n.Attachment.DeviceIndex)
		}
		if a := n.Association; a != nil {
			nic.PublicIP, nic.PublicIPOwner = aws.ToString(a.PublicIp), aws.ToString(a.IpOwnerId)
		}
		primary := aws.ToString(n.PrivateIpAddress)
		if primary != "" {
			nic.PrivateIPs = append(nic.PrivateIPs, primary)
		}
		for _, p := range n.PrivateIpAddresses {
			if ip := aws.ToString(p.PrivateIpAddress); ip != "" && ip != primary {
				nic.PrivateIPs = append(nic.PrivateIPs, ip)
			}
		}
		for _, v6 := range n.Ipv6Addresses {
			nic.IPv6s = append(nic.IPv6s, aws.ToString(v6.Ipv6Address))
		}
		out = append(out, nic)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].DeviceIndex < out[j].DeviceIndex })
	return out
}

// fromSDKComputeOptions converts the lifecycle, CPU, capacity and placement options.
func fromSDKComputeOptions(in types.Instance, out *Instance) {
	if h := in.HibernationOptions; h != nil {
		out.HibernationConfigured = aws.ToBool(h.Configured)
	}
	if m := in.MaintenanceOptions; m != nil {
		out.AutoRecovery = string(m.AutoRecovery)
	}
	if p := in.PrivateDnsNameOptions; p != nil {
		out.PrivateDNSNameOptions = PrivateDNSNameOptions{
			HostnameType:     string(p.HostnameType),
			EnableARecord:    aws.ToBool(p.EnableResourceNameDnsARecord),
			EnableAAAARecord: aws.ToBool(p.EnableResourceNameDnsAAAARecord),
		}
	}
	if c := in.CpuOptions; c != nil {
		out.CPUOptions = CPUOptions{CoreCount: aws.ToInt32(c.CoreCount), ThreadsPerCore: aws.ToInt32(c.ThreadsPerCore)}
	}
	if c := in.CapacityReservationSpecification; c != nil {
		out.CapacityReservation.Preference = string(c.CapacityReservationPreference)
		if t := c.CapacityReservationTarget; t != nil {
			out.CapacityReservation.ReservationID = aws.ToString(t.CapacityReservationId)
			out.CapacityReservation.ResourceGroupARN = aws.ToString(t.CapacityReservationResourceGroupArn)
		}
	}
	out.CapacityReservationID = aws.ToString(in.CapacityReservationId)
	if p := in.Placement; p != nil {
		out.Placement = PlacementSpec{
			GroupName: aws.ToString(p.GroupName), PartitionNumber: aws.ToInt32(p.PartitionNumber), Tenancy: string(p.Tenancy),
			HostID: aws.ToString(p.HostId), HostResourceGroupARN: aws.ToString(p.HostResourceGroupArn), Affinity: aws.ToString(p.Affinity),
		}
	}
}
