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

package ec2fake

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// defaultRootSizeGiB is the root volume size of the fake's images.
const defaultRootSizeGiB = 8

// launch checks a request against the seeded resources and creates its instance, its
// root and data volumes and its primary network interface. An unknown image, type,
// subnet or group is refused with EC2's code, as the controller reports those.
func (f *Fake) launch(req ec2.LaunchRequest) (*instance, error) {
	subnet, err := f.launchSubnet(req)
	if err != nil {
		return nil, err
	}
	if err := f.checkLaunch(req); err != nil {
		return nil, err
	}
	groups := req.SecurityGroupIDs
	if len(groups) == 0 {
		groups = []string{DefaultSecurityGroupID}
	}
	id := f.newID("i")
	in := &instance{req: req, protected: req.DisableAPITermination, userData: req.UserData,
		stopProtected:    req.StopProtection != nil && *req.StopProtection,
		shutdownBehavior: valueOr(req.ShutdownBehavior, "stop"), credits: f.defaultCredits(req)}
	in.Instance = ec2.Instance{
		ID: id, State: ec2.StatePending, InstanceType: req.InstanceType, ImageID: req.ImageID,
		SubnetID: subnet.ID, VPCID: subnet.VPCID, AvailabilityZone: subnet.AvailabilityZone,
		KeyName: req.KeyName, LaunchTime: launchEpoch.Add(time.Duration(len(f.order)) * time.Second),
		SecurityGroupIDs: slices.Clone(groups), Tags: launchTags(req), ClientToken: req.ClientToken,
		MetadataOptions: req.MetadataOptions, MetadataOptionsState: "applied",
		DetailedMonitoring: req.DetailedMonitoring, IAMInstanceProfileARN: profileARN(req.IAMInstanceProfile),
		Architecture: f.types[req.InstanceType].Architectures[0], Platform: "Linux/UNIX",
		SourceDestCheck: ptr(true), HibernationConfigured: req.Hibernation,
		AutoRecovery: valueOr(req.AutoRecovery, "default"), Spot: req.Spot != nil,
	}
	setLaunchOptions(&in.Instance, req)
	if in.Spot {
		in.SpotRequestID = f.newID("sir")
	}
	f.addInterface(in, req)
	f.addLaunchVolumes(in, req)
	f.instances[id] = in
	f.order = append(f.order, id)
	if req.ClientToken != "" {
		f.tokens[req.ClientToken] = id
	}
	return in, nil
}

// launchSubnet returns the request's subnet, or the default one when it names none.
func (f *Fake) launchSubnet(req ec2.LaunchRequest) (ec2.Subnet, error) {
	id := valueOr(req.SubnetID, DefaultSubnetID)
	for _, s := range f.subnets {
		if s.ID == id {
			return s, nil
		}
	}
	return ec2.Subnet{}, errorf("RunInstances", "InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist", id)
}

// checkLaunch refuses an unknown image (resolve:ssm: references are taken as they
// are), instance type or security group.
func (f *Fake) checkLaunch(req ec2.LaunchRequest) error {
	if !strings.HasPrefix(req.ImageID, "resolve:ssm:") && !slices.ContainsFunc(f.images, func(i image) bool { return i.ID == req.ImageID }) {
		return errorf("RunInstances", "InvalidAMIID.NotFound", "The image id '[%s]' does not exist", req.ImageID)
	}
	if t, ok := f.types[req.InstanceType]; !ok || len(t.Architectures) == 0 {
		return errorf("RunInstances", "InvalidParameterValue", "Invalid value '%s' for InstanceType.", req.InstanceType)
	}
	for _, g := range req.SecurityGroupIDs {
		if !slices.ContainsFunc(f.groups, func(o securityGroup) bool { return o.ID == g }) {
			return errorf("RunInstances", "InvalidGroup.NotFound", "The security group '%s' does not exist", g)
		}
	}
	return nil
}

// launchTags are the instance's tags: the request's, with the ownership keys in their
// IMDS-safe form when instance metadata exposes tags, as the real client sends them.
func launchTags(req ec2.LaunchRequest) map[string]string {
	if req.MetadataOptions.InstanceMetadataTags == "enabled" {
		return ec2.IMDSSafeTags(req.Tags)
	}
	tags := maps.Clone(req.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	return tags
}

// setLaunchOptions copies the optional settings of the request that the instance
// reports back.
func setLaunchOptions(in *ec2.Instance, req ec2.LaunchRequest) {
	if o := req.PrivateDNSNameOptions; o != nil {
		in.PrivateDNSNameOptions = *o
	} else {
		in.PrivateDNSNameOptions = ec2.PrivateDNSNameOptions{HostnameType: "ip-name"}
	}
	if o := req.CPUOptions; o != nil {
		in.CPUOptions = *o
	}
	in.CapacityReservation = ec2.CapacityReservationSpec{Preference: "open"}
	if o := req.CapacityReservation; o != nil {
		in.CapacityReservation = *o
	}
	in.Placement = ec2.PlacementSpec{Tenancy: "default"}
	if o := req.Placement; o != nil {
		in.Placement = *o
	}
}

// addInterface attaches the primary network interface with deterministic addresses.
func (f *Fake) addInterface(in *instance, req ec2.LaunchRequest) {
	n := len(f.order) + 4
	nic := ec2.NetworkInterface{ID: f.newID("eni"), PrivateIPs: []string{valueOr(req.PrivateIPAddress, fmt.Sprintf("10.0.0.%d", n))}}
	for i := range req.SecondaryPrivateIPAddressCount {
		nic.PrivateIPs = append(nic.PrivateIPs, fmt.Sprintf("10.0.%d.%d", i+1, n))
	}
	nic.IPv6s = slices.Clone(req.IPv6Addresses)
	for i := int32(len(nic.IPv6s)); i < req.IPv6AddressCount; i++ {
		nic.IPv6s = append(nic.IPv6s, fmt.Sprintf("2600:1f18::%x:%x", n, i))
	}
	if req.AssociatePublicIPAddress != nil && *req.AssociatePublicIPAddress {
		nic.PublicIP, nic.PublicIPOwner = fmt.Sprintf("198.51.100.%d", n), "amazon"
		in.PublicIP = nic.PublicIP
	}
	in.PrivateIP = nic.PrivateIPs[0]
	in.PrivateDNSName = "ip-" + strings.ReplaceAll(in.PrivateIP, ".", "-") + ".ec2.internal"
	in.NetworkInterfaces = []ec2.NetworkInterface{nic}
}

// addLaunchVolumes creates and attaches the root volume and the data volumes, tagged
// like the instance's volumes are at launch.
func (f *Fake) addLaunchVolumes(in *instance, req ec2.LaunchRequest) {
	root := ec2.VolumeRequest{Device: "/dev/xvda", SizeGiB: defaultRootSizeGiB, Type: "gp3", DeleteOnTermination: true}
	if rv := req.RootVolume; rv != nil {
		root.SizeGiB = valueOr(rv.SizeGiB, root.SizeGiB)
		root.Type, root.IOPS, root.Throughput = valueOr(rv.Type, root.Type), rv.IOPS, rv.Throughput
		if rv.DeleteOnTermination != nil {
			root.DeleteOnTermination = *rv.DeleteOnTermination
		}
	}
	for i, r := range append([]ec2.VolumeRequest{root}, req.Volumes...) {
		v := f.newVolume(in.AvailabilityZone, r, req.Tags)
		f.attach(v, in, r.Device, r.DeleteOnTermination)
		if i == 0 {
			in.RootVolumeID = v.ID
		}
	}
}

// defaultCredits is the CPU credit option of a new instance: the request's, or EC2's
// default for a burstable type.
func (f *Fake) defaultCredits(req ec2.LaunchRequest) string {
	if req.CreditSpecification != "" {
		return req.CreditSpecification
	}
	if f.types[req.InstanceType].Burstable {
		return "unlimited"
	}
	return ""
}

// profileARN is the ARN of an instance profile named by name or ARN.
func profileARN(profile string) string {
	if profile == "" || strings.HasPrefix(profile, "arn:") {
		return profile
	}
	return "arn:aws:iam::" + AccountID + ":instance-profile/" + profile
}

func valueOr[T comparable](v, fallback T) T {
	var zero T
	if v == zero {
		return fallback
	}
	return v
}

func ptr[T any](v T) *T { return &v }
