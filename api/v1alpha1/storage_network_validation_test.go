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

package v1alpha1_test

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// These cases cover spec.volumes, the subnet and security-group selectors, the
// primary interface's addressing and spec.elasticIp. The EBS limits are those of the
// EBS User Guide's "Amazon EBS volume types" page; each rejection must name the field.

// dataVolume returns a valid gp3 volume at device.
func dataVolume(device string, size int32) v1alpha1.DataVolume {
	return v1alpha1.DataVolume{DeviceName: device, SizeGiB: ptr.To(size)}
}

func TestCreateRejectsInvalidStorageAndNetworkSpecs(t *testing.T) {
	withVolume := func(v v1alpha1.DataVolume) func(*v1alpha1.EC2Instance) {
		return func(o *v1alpha1.EC2Instance) { o.Spec.Volumes = []v1alpha1.DataVolume{v} }
	}
	testCases := []struct {
		name      string
		mutate    func(*v1alpha1.EC2Instance)
		wantField string
		wantText  string
	}{
		{"volume without size or snapshot", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf"}), "spec.volumes[0].sizeGiB", "required unless snapshotId"},
		{"volume on the root device", withVolume(dataVolume("/dev/xvda", 10)), "spec.volumes", "root device"},
		{"volume on a malformed device", withVolume(dataVolume("dev/sdf", 10)), "spec.volumes[0].deviceName", "should match"},
		{"two volumes on one device", func(o *v1alpha1.EC2Instance) {
			o.Spec.Volumes = []v1alpha1.DataVolume{dataVolume("/dev/sdf", 10), dataVolume("/dev/sdf", 20)}
		}, "spec.volumes[1]", "Duplicate value"},
		{"gp2 volume over 16 TiB", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](16385), Type: "gp2"}), "spec.volumes[0].sizeGiB", "16384"},
		{"gp3 volume over 64 TiB", withVolume(dataVolume("/dev/sdf", 65537)), "spec.volumes[0].sizeGiB", "65536"},
		{"st1 volume under 125 GiB", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](100), Type: "st1"}), "spec.volumes[0].sizeGiB", "125"},
		{"io1 volume under 4 GiB", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](2), Type: "io1", IOPS: ptr.To[int32](100)}), "spec.volumes[0].sizeGiB", "at least 4"},
		{"magnetic volume over 1 TiB", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](2000), Type: "standard"}), "spec.volumes[0].sizeGiB", "1024"},
		{"iops on gp2", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](100), Type: "gp2", IOPS: ptr.To[int32](3000)}), "spec.volumes[0].iops", "can only be set"},
		{"io2 without iops", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](100), Type: "io2"}), "spec.volumes[0].iops", "required"},
		{"gp3 iops under the baseline", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](100), IOPS: ptr.To[int32](2000)}), "spec.volumes[0].iops", "3000 to 80000"},
		{"gp3 iops over 500 per GiB", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10), IOPS: ptr.To[int32](6000)}), "spec.volumes[0].iops", "500 IOPS per GiB"},
		{"io1 iops over 50 per GiB", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10), Type: "io1", IOPS: ptr.To[int32](1000)}), "spec.volumes[0].iops", "50 IOPS per GiB"},
		{"io1 iops over 64000", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](16000), Type: "io1", IOPS: ptr.To[int32](70000)}), "spec.volumes[0].iops", "64000"},
		{"io2 iops over 1000 per GiB", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10), Type: "io2", IOPS: ptr.To[int32](20000)}), "spec.volumes[0].iops", "1000 IOPS per GiB"},
		{"throughput on io2", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](100), Type: "io2", IOPS: ptr.To[int32](1000), Throughput: ptr.To[int32](250)}), "spec.volumes[0].throughput", "only be set for gp3"},
		{"gp3 throughput over a quarter of the IOPS", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](100), Throughput: ptr.To[int32](1000)}), "spec.volumes[0].throughput", "0.25 MiB/s"},
		{"volume KMS key without encryption", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10), KMSKeyID: "alias/ebs"}), "spec.volumes[0].kmsKeyId", "encrypted"},
		{"malformed snapshot", withVolume(v1alpha1.DataVolume{DeviceName: "/dev/sdf", SnapshotID: "snap-1"}), "spec.volumes[0].snapshotId", "should match"},
		{"subnet ID and selector together", func(o *v1alpha1.EC2Instance) {
			o.Spec.SubnetID = "subnet-0a1b2c3d4e5f60001"
			o.Spec.SubnetSelector = &v1alpha1.SubnetSelector{Tags: map[string]string{"tier": "private"}}
		}, "spec.subnetSelector", "not both"},
		{"subnet selector without tags", func(o *v1alpha1.EC2Instance) {
			o.Spec.SubnetSelector = &v1alpha1.SubnetSelector{Tags: map[string]string{}}
		}, "spec.subnetSelector.tags", ""},
		{"subnet selector in another zone than the instance", func(o *v1alpha1.EC2Instance) {
			o.Spec.AvailabilityZone = "us-east-1a"
			o.Spec.SubnetSelector = &v1alpha1.SubnetSelector{Tags: map[string]string{"tier": "private"}, AvailabilityZone: "us-east-1b"}
		}, "spec.subnetSelector.availabilityZone", "must equal"},
		{"empty security group selector", func(o *v1alpha1.EC2Instance) {
			o.Spec.SecurityGroupSelector = &v1alpha1.SecurityGroupSelector{}
		}, "spec.securityGroupSelector", "tags or names"},
		{"malformed private IP", func(o *v1alpha1.EC2Instance) { o.Spec.PrivateIPAddress = "10.0.0.300" }, "spec.privateIpAddress", "should match"},
		{"IPv6 count and addresses together", func(o *v1alpha1.EC2Instance) {
			o.Spec.IPv6AddressCount = ptr.To[int32](1)
			o.Spec.IPv6Addresses = []string{"2600:1f18::10"}
		}, "spec.ipv6Addresses", "not both"},
		{"too many secondary addresses", func(o *v1alpha1.EC2Instance) { o.Spec.SecondaryPrivateIPAddressCount = ptr.To[int32](50) }, "spec.secondaryPrivateIpAddressCount", ""},
		{"Elastic IP with neither allocation nor allocate", func(o *v1alpha1.EC2Instance) { o.Spec.ElasticIP = &v1alpha1.ElasticIP{} }, "spec.elasticIp", "exactly one"},
		{"Elastic IP with both allocation and allocate", func(o *v1alpha1.EC2Instance) {
			o.Spec.ElasticIP = &v1alpha1.ElasticIP{AllocationID: "eipalloc-0123456789abcdef0", Allocate: true}
		}, "spec.elasticIp", "exactly one"},
		{"Elastic IP pool without allocate", func(o *v1alpha1.EC2Instance) {
			o.Spec.ElasticIP = &v1alpha1.ElasticIP{AllocationID: "eipalloc-0123456789abcdef0", PublicIPv4Pool: "amazon"}
		}, "spec.elasticIp.publicIpv4Pool", "allocate: true"},
		{"malformed allocation ID", func(o *v1alpha1.EC2Instance) { o.Spec.ElasticIP = &v1alpha1.ElasticIP{AllocationID: "eip-1"} }, "spec.elasticIp.allocationId", "should match"},
	}
	for i, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			obj := validInstance(fmt.Sprintf("storage-net-invalid-%d", i))
			tc.mutate(obj)
			expectCreateRejected(t, obj, tc.wantField, tc.wantText)
		})
	}
}

// storageNetworkBase is an object using every new field, as a user moving from ACK or
// CAPA would write it.
func storageNetworkBase(name string) *v1alpha1.EC2Instance {
	o := validInstance(name)
	o.Spec.SubnetSelector = &v1alpha1.SubnetSelector{Tags: map[string]string{"tier": "private"}, AvailabilityZone: "us-east-1a"}
	o.Spec.SecurityGroupSelector = &v1alpha1.SecurityGroupSelector{Tags: map[string]string{"role": "web"}}
	o.Spec.PrivateIPAddress = "10.0.1.20"
	o.Spec.SecondaryPrivateIPAddressCount = ptr.To[int32](2)
	o.Spec.IPv6AddressCount = ptr.To[int32](1)
	o.Spec.SourceDestCheck = ptr.To(true)
	o.Spec.ElasticIP = &v1alpha1.ElasticIP{Allocate: true}
	o.Spec.Volumes = []v1alpha1.DataVolume{
		{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](100), IOPS: ptr.To[int32](6000), Throughput: ptr.To[int32](500)},
		{DeviceName: "/dev/sdg", SnapshotID: "snap-0123456789abcdef0", Encrypted: ptr.To(true), KMSKeyID: "alias/ebs", DeleteOnTermination: ptr.To(false)},
	}
	return o
}

func TestUpdateRejectsStorageAndNetworkChangesEC2CannotMake(t *testing.T) {
	testCases := []struct {
		name      string
		mutate    func(*v1alpha1.EC2Instance)
		wantField string
		wantText  string
	}{
		{"shrinking a volume", func(o *v1alpha1.EC2Instance) { o.Spec.Volumes[0].SizeGiB = ptr.To[int32](50) }, "spec.volumes[0].sizeGiB", "only grow"},
		{"removing a volume's size", func(o *v1alpha1.EC2Instance) {
			o.Spec.Volumes[0].SizeGiB = nil
			o.Spec.Volumes[0].SnapshotID = ""
		}, "spec.volumes[0]", ""},
		{"changing a volume's snapshot", func(o *v1alpha1.EC2Instance) { o.Spec.Volumes[1].SnapshotID = "snap-0fedcba9876543210" }, "spec.volumes[1].snapshotId", "immutable"},
		{"changing a volume's KMS key", func(o *v1alpha1.EC2Instance) { o.Spec.Volumes[1].KMSKeyID = "alias/other" }, "spec.volumes[1].kmsKeyId", "immutable"},
		{"changing the subnet selector", func(o *v1alpha1.EC2Instance) { o.Spec.SubnetSelector.Tags["tier"] = "public" }, "spec.subnetSelector", "immutable"},
		{"removing the subnet selector", func(o *v1alpha1.EC2Instance) { o.Spec.SubnetSelector = nil }, "spec", "subnetSelector is immutable"},
		{"changing the private IP", func(o *v1alpha1.EC2Instance) { o.Spec.PrivateIPAddress = "10.0.1.21" }, "spec.privateIpAddress", "immutable"},
		{"removing the IPv6 count", func(o *v1alpha1.EC2Instance) { o.Spec.IPv6AddressCount = nil }, "spec", "ipv6AddressCount and ipv6Addresses are immutable"},
	}
	for i, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			expectUpdateRejected(t, storageNetworkBase(fmt.Sprintf("storage-net-immutable-%d", i)), tc.mutate, tc.wantField, tc.wantText)
		})
	}
}

func TestUpdateAcceptsStorageAndNetworkChangesAppliedInPlace(t *testing.T) {
	ctx := context.Background()
	obj := storageNetworkBase("storage-net-mutable")
	if err := k8sClient.Create(ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, obj) })
	if got := obj.Spec.Volumes[0].Type; got != "gp3" {
		t.Errorf("volume type defaults to %q, want gp3", got)
	}
	if got := obj.Spec.Volumes[0].DeleteOnTermination; got == nil || !*got {
		t.Errorf("volume deleteOnTermination defaults to %v, want true", got)
	}

	obj.Spec.Volumes[0].SizeGiB = ptr.To[int32](200)
	obj.Spec.Volumes[0].Type = "io2"
	obj.Spec.Volumes[0].Throughput = nil
	obj.Spec.Volumes[0].IOPS = ptr.To[int32](20000)
	obj.Spec.Volumes[1].DeleteOnTermination = ptr.To(true)
	obj.Spec.Volumes = append(obj.Spec.Volumes, dataVolume("/dev/sdh", 10))
	obj.Spec.SecurityGroupSelector = &v1alpha1.SecurityGroupSelector{Names: []string{"web", "ssh"}}
	obj.Spec.SourceDestCheck = ptr.To(false)
	obj.Spec.SecondaryPrivateIPAddressCount = ptr.To[int32](3)
	obj.Spec.ElasticIP = &v1alpha1.ElasticIP{AllocationID: "eipalloc-0123456789abcdef0"}
	if err := k8sClient.Update(ctx, obj); err != nil {
		t.Fatalf("the API server rejected changes the operator can apply: %v", err)
	}
	obj.Spec.Volumes = obj.Spec.Volumes[:1]
	obj.Spec.ElasticIP = nil
	if err := k8sClient.Update(ctx, obj); err != nil {
		t.Fatalf("the API server rejected removing volumes and the Elastic IP: %v", err)
	}
}
