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

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// CreateVolume's API reference: SnapshotId names a snapshot of the region; an
// unknown one (including one that exists only in another region, since snapshots
// are regional) is InvalidSnapshot.NotFound.
func TestCreateVolumeFromAnUnknownSnapshotIsNotFound(t *testing.T) {
	other := New(Config{Region: "eu-west-1"})
	other.AddSnapshot("snap-0123456789abcdef0", 10)
	_, c := newEnv(t, Config{Seed: 90})
	_, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), SnapshotId: aws.String("snap-0123456789abcdef0")})
	simtest.WantCode(t, err, "InvalidSnapshot.NotFound")
	_, err = c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), SnapshotId: aws.String("snap-bad")})
	simtest.WantCode(t, err, "InvalidSnapshotID.Malformed")
}

// CreateVolume's API reference on Size: "If you specify a snapshot, the default
// is the snapshot size, and you can specify a volume size that is equal to or
// larger than the snapshot size." The seeded images' root snapshots exist.
func TestCreateVolumeFromASnapshotDefaultsToAndMayNotShrinkBelowItsSize(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 91})
	sim.AddSnapshot("snap-0123456789abcdef0", 50)
	out, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), SnapshotId: aws.String("snap-0123456789abcdef0")})
	if err != nil || aws.ToInt32(out.Size) != 50 || aws.ToString(out.SnapshotId) != "snap-0123456789abcdef0" {
		t.Fatalf("default size: %v %+v", err, out)
	}
	_, err = c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), SnapshotId: aws.String("snap-0123456789abcdef0"), Size: aws.Int32(49)})
	simtest.WantCode(t, err, "InvalidParameterValue")
	if _, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), SnapshotId: aws.String("snap-0123456789abcdef0"), Size: aws.Int32(60)}); err != nil {
		t.Fatalf("larger than the snapshot: %v", err)
	}
	img := describeImage(t, c, DefaultImageID)
	snap := aws.ToString(img.BlockDeviceMappings[0].Ebs.SnapshotId)
	out, err = c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), SnapshotId: aws.String(snap)})
	if err != nil || aws.ToInt32(out.Size) != aws.ToInt32(img.BlockDeviceMappings[0].Ebs.VolumeSize) {
		t.Fatalf("from the seeded image's snapshot: %v %+v", err, out)
	}
	_, err = c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA)})
	simtest.WantCode(t, err, "MissingParameter")
}

// describeImage returns one image.
func describeImage(t *testing.T, c *ec2.Client, id string) types.Image {
	t.Helper()
	out, err := c.DescribeImages(simtest.Ctx(t), &ec2.DescribeImagesInput{ImageIds: []string{id}})
	if err != nil || len(out.Images) != 1 {
		t.Fatalf("DescribeImages(%s): %v %+v", id, err, out)
	}
	return out.Images[0]
}

// CreateVolume's API reference: AvailabilityZone is required and must exist
// (EC2 answers InvalidZone.NotFound "The zone '...' does not exist."); VolumeType
// defaults to gp2, whose IOPS are 3 per GiB with a floor of 100.
func TestCreateVolumeNeedsAKnownZoneAndDefaultsToGp2(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 92})
	_, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String("us-east-1z"), Size: aws.Int32(1)})
	simtest.WantCode(t, err, "InvalidZone.NotFound")
	if want := "The zone 'us-east-1z' does not exist."; simtest.ErrMessage(err) != want {
		t.Errorf("message = %q, want %q", simtest.ErrMessage(err), want)
	}
	_, err = c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{Size: aws.Int32(1)})
	simtest.WantCode(t, err, "MissingParameter")
	out, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(100)})
	if err != nil || out.VolumeType != types.VolumeTypeGp2 || aws.ToInt32(out.Iops) != 300 || out.Throughput != nil {
		t.Fatalf("defaults: %v %+v", err, out)
	}
	gp3, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1), VolumeType: types.VolumeTypeGp3})
	if err != nil || aws.ToInt32(gp3.Iops) != 3000 || aws.ToInt32(gp3.Throughput) != 125 {
		t.Fatalf("gp3 baseline: %v %+v", err, gp3)
	}
}

// CreateVolume's API reference on KmsKeyId: "If KmsKeyId is specified, the
// encrypted state must be true"; without a key an encrypted volume uses the KMS key
// for EBS, and DescribeVolumes reports the key's ARN.
func TestCreateVolumeEncryptionAndKMSKey(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 93})
	_, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1), KmsKeyId: aws.String("1234abcd-12ab-34cd-56ef-1234567890ab")})
	simtest.WantCode(t, err, "InvalidParameterDependency")
	id := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1), Encrypted: aws.Bool(true),
		KmsKeyId: aws.String("1234abcd-12ab-34cd-56ef-1234567890ab")})
	v := describeVol(t, c, id)
	if !aws.ToBool(v.Encrypted) || aws.ToString(v.KmsKeyId) != "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab" {
		t.Fatalf("encrypted volume = %+v", v)
	}
	plain := describeVol(t, c, createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)}))
	if aws.ToBool(plain.Encrypted) || plain.KmsKeyId != nil {
		t.Fatalf("unencrypted volume = %+v", plain)
	}
	def := describeVol(t, c, createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1), Encrypted: aws.Bool(true)}))
	if aws.ToString(def.KmsKeyId) == "" {
		t.Fatalf("encrypted volume without a key reports no key: %+v", def)
	}
}

// CreateVolume's TagSpecification.N tags the volume at creation, with RunInstances'
// tag rules (reserved aws: prefix, only the volume resource type), and the tags are
// visible to DescribeVolumes' tag:<key> and tag-key filters.
func TestCreateVolumeTagsAreVisibleToDescribeVolumesFilters(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 94})
	spec := func(rt types.ResourceType, k, v string) []types.TagSpecification {
		return []types.TagSpecification{{ResourceType: rt, Tags: []types.Tag{{Key: aws.String(k), Value: aws.String(v)}}}}
	}
	tagged := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1), TagSpecifications: spec(types.ResourceTypeVolume, "team", "storage")})
	createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1), TagSpecifications: spec(types.ResourceTypeVolume, "team", "web")})
	createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)})
	find := func(filters ...types.Filter) []types.Volume {
		t.Helper()
		out, err := c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{Filters: filters})
		if err != nil {
			t.Fatal(err)
		}
		return out.Volumes
	}
	byTag := find(types.Filter{Name: aws.String("tag:team"), Values: []string{"stor*"}})
	if len(byTag) != 1 || aws.ToString(byTag[0].VolumeId) != tagged || aws.ToString(byTag[0].Tags[0].Value) != "storage" {
		t.Fatalf("tag:team=stor* found %+v", byTag)
	}
	if n := len(find(types.Filter{Name: aws.String("tag-key"), Values: []string{"team"}})); n != 2 {
		t.Fatalf("tag-key=team found %d volumes, want 2", n)
	}
	_, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1), TagSpecifications: spec(types.ResourceTypeVolume, "aws:reserved", "x")})
	simtest.WantCode(t, err, "InvalidParameterValue")
	_, err = c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1), TagSpecifications: spec(types.ResourceTypeInstance, "a", "b")})
	simtest.WantCode(t, err, "InvalidParameterValue")
}

// RunInstances' block device mapping restores a snapshot as CreateVolume does (EC2
// API reference, EbsBlockDevice.SnapshotId and VolumeSize): the snapshot must exist in
// the region, and the volume defaults to the snapshot's size and may not be smaller.
func TestLaunchMappingRestoresSnapshotsOfThisRegionOnly(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 1})
	sim.AddSnapshot("snap-0123456789abcdef0", 30)
	in := basicRun()
	in.BlockDeviceMappings = []types.BlockDeviceMapping{{
		DeviceName: aws.String("/dev/sdf"),
		Ebs:        &types.EbsBlockDevice{SnapshotId: aws.String("snap-0123456789abcdef0")},
	}}
	id := runOne(t, c, in)
	var found bool
	for _, bd := range describeOne(t, c, id).BlockDeviceMappings {
		if aws.ToString(bd.DeviceName) == "/dev/sdf" {
			v, ok := sim.Volume(aws.ToString(bd.Ebs.VolumeId))
			found = ok && v.SizeGiB == 30 && v.SnapshotID == "snap-0123456789abcdef0"
		}
	}
	if !found {
		t.Error("the mapped volume was not restored from the snapshot at its size")
	}

	// The SDK filled in a client token for the first call; each next launch is new.
	in.ClientToken = aws.String("snap-too-small")
	in.BlockDeviceMappings[0].Ebs.VolumeSize = aws.Int32(10)
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidBlockDeviceMapping")

	in.ClientToken = aws.String("snap-unknown")
	in.BlockDeviceMappings[0].Ebs = &types.EbsBlockDevice{SnapshotId: aws.String("snap-0fedcba9876543210")}
	_, err = c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidSnapshot.NotFound")
}
