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

package ec2sim

// writeInstance renders one instancesSet item with the element names the
// SDK's awsEc2query_deserializeDocumentInstance reads.
func (s *Sim) writeInstance(x *xmlBuilder, in *instance) {
	r := &in.InstanceRecord
	x.open("item")
	x.leaf("instanceId", r.ID)
	x.leaf("imageId", r.ImageID)
	writeState(x, "instanceState", r.State)
	x.leaf("privateDnsName", r.PrivateDNSName)
	x.leaf("dnsName", r.PublicDNSName)
	x.leaf("reason", r.StateTransitionReason)
	x.leafIf("keyName", r.KeyName)
	x.intLeaf("amiLaunchIndex", r.AmiLaunchIndex)
	x.open("productCodes")
	x.close("productCodes")
	x.leaf("instanceType", r.InstanceType)
	x.timeLeaf("launchTime", r.LaunchTime)
	writePlacement(x, r)
	x.open("monitoring")
	x.leaf("state", monitoringState(r.Monitoring))
	x.close("monitoring")
	x.leaf("subnetId", r.SubnetID)
	x.leaf("vpcId", r.VPCID)
	x.leaf("privateIpAddress", r.PrivateIP)
	x.leafIf("ipAddress", r.PublicIP)
	x.boolLeaf("sourceDestCheck", s.sourceDestCheck(in))
	s.writeGroupSet(x, r)
	writeStateReason(x, r)
	x.leaf("architecture", r.Architecture)
	x.leaf("rootDeviceType", "ebs")
	x.leaf("rootDeviceName", r.RootDeviceName)
	s.writeBlockDeviceMappings(x, r)
	if r.Spot {
		x.leaf("instanceLifecycle", "spot")
		x.leaf("spotInstanceRequestId", r.SpotRequestID)
	}
	x.leaf("virtualizationType", "hvm")
	x.leaf("clientToken", r.ClientToken)
	if len(r.Tags) > 0 {
		x.tagSet(r.Tags)
	}
	x.leaf("hypervisor", "xen")
	s.writeNetworkInterface(x, r)
	writeInstanceProfile(x, r)
	x.boolLeaf("ebsOptimized", false)
	x.boolLeaf("enaSupport", true)
	writeMetadataOptions(x, "metadataOptions", r.MetadataOptions)
	x.leaf("platformDetails", "Linux/UNIX")
	x.leaf("usageOperation", "RunInstances")
	x.leaf("bootMode", "uefi-preferred")
	x.leaf("currentInstanceBootMode", "legacy-bios")
	writeCapacityReservationInfo(x, r)
	writeInstanceOptions(x, r)
	x.close("item")
}

// writeGroupSet renders the instance's security groups.
func (s *Sim) writeGroupSet(x *xmlBuilder, r *InstanceRecord) {
	x.open("groupSet")
	for _, g := range r.SecurityGroupIDs {
		s.writeGroup(x, g)
	}
	x.close("groupSet")
}

// writeStateReason renders why the instance last changed state, when EC2 says.
func writeStateReason(x *xmlBuilder, r *InstanceRecord) {
	if r.StateReasonCode != "" {
		x.open("stateReason")
		x.leaf("code", r.StateReasonCode)
		x.leaf("message", r.StateReasonMessage)
		x.close("stateReason")
	}
}

// writeBlockDeviceMappings renders the instance's attached EBS volumes, with each
// attachment's current status.
func (s *Sim) writeBlockDeviceMappings(x *xmlBuilder, r *InstanceRecord) {
	x.open("blockDeviceMapping")
	for _, bd := range r.BlockDevices {
		x.open("item")
		x.leaf("deviceName", bd.DeviceName)
		x.open("ebs")
		x.leaf("volumeId", bd.VolumeID)
		x.leaf("status", s.attachmentStatus(bd.VolumeID))
		x.timeLeaf("attachTime", bd.AttachTime)
		x.boolLeaf("deleteOnTermination", bd.DeleteOnTermination)
		x.close("ebs")
		x.close("item")
	}
	x.close("blockDeviceMapping")
}

// writeInstanceProfile renders the instance's IAM instance profile, if it has one.
func writeInstanceProfile(x *xmlBuilder, r *InstanceRecord) {
	if r.IAMInstanceProfileARN != "" {
		x.open("iamInstanceProfile")
		x.leaf("arn", r.IAMInstanceProfileARN)
		x.leaf("id", profileID(profileNameFromARN(r.IAMInstanceProfileARN)))
		x.close("iamInstanceProfile")
	}
}

// writeGroup renders a groupSet item (groupId and groupName).
func (s *Sim) writeGroup(x *xmlBuilder, id string) {
	x.open("item")
	x.leaf("groupId", id)
	if g := s.groups[id]; g != nil {
		x.leaf("groupName", g.Name)
	}
	x.close("item")
}

// writeNetworkInterface renders the primary interface; terminated
// instances have none, as in EC2.
func (s *Sim) writeNetworkInterface(x *xmlBuilder, r *InstanceRecord) {
	x.open("networkInterfaceSet")
	if eni := s.network().enis[r.NetworkInterfaceID]; eni != nil && r.State != StateTerminated {
		s.writeInstanceInterface(x, r, eni)
	}
	x.close("networkInterfaceSet")
}

// writeState renders an InstanceState (code and name) under element name.
func writeState(x *xmlBuilder, name, state string) {
	x.open(name)
	x.intLeaf("code", stateCodes[state])
	x.leaf("name", state)
	x.close(name)
}

// writeMetadataOptions renders an InstanceMetadataOptionsResponse. The
// simulator applies changes instantly, so described state is "applied".
func writeMetadataOptions(x *xmlBuilder, name string, md MetadataOptions) {
	writeMetadataOptionsState(x, name, md, "applied")
}

// writeMetadataOptionsState renders metadata options with an explicit state.
func writeMetadataOptionsState(x *xmlBuilder, name string, md MetadataOptions, state string) {
	x.open(name)
	x.leaf("state", state)
	x.leaf("httpTokens", md.HTTPTokens)
	x.intLeaf("httpPutResponseHopLimit", md.HopLimit)
	x.leaf("httpEndpoint", md.HTTPEndpoint)
	x.leaf("httpProtocolIpv6", ipv6OrDefault(md.HTTPProtocolIPv6))
	x.leaf("instanceMetadataTags", md.InstanceMetadataTags)
	x.close(name)
}

// monitoringState names the detailed-monitoring state.
func monitoringState(on bool) string {
	if on {
		return "enabled"
	}
	return "disabled"
}

// profileNameFromARN extracts the profile name (last path element) from an ARN.
func profileNameFromARN(arn string) string {
	for i := len(arn) - 1; i >= 0; i-- {
		if arn[i] == '/' {
			return arn[i+1:]
		}
	}
	return arn
}
