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
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

func TestIAMInstanceProfileAssociationCanBeAddedAndReplaced(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 60})
	sim.AddInstanceProfile("other")
	id := runOne(t, c, basicRun())
	assoc, err := c.AssociateIamInstanceProfile(simtest.Ctx(t), &ec2.AssociateIamInstanceProfileInput{
		InstanceId: aws.String(id), IamInstanceProfile: &types.IamInstanceProfileSpecification{Name: aws.String(DefaultInstanceProfile)},
	})
	if err != nil {
		t.Fatal(err)
	}
	first := assoc.IamInstanceProfileAssociation
	if first.State != types.IamInstanceProfileAssociationStateAssociating || aws.ToString(first.InstanceId) != id {
		t.Fatalf("association = %+v", first)
	}
	_, err = c.AssociateIamInstanceProfile(simtest.Ctx(t), &ec2.AssociateIamInstanceProfileInput{
		InstanceId: aws.String(id), IamInstanceProfile: &types.IamInstanceProfileSpecification{Name: aws.String("other")},
	})
	simtest.WantCode(t, err, "IncorrectState")

	list, err := c.DescribeIamInstanceProfileAssociations(simtest.Ctx(t), &ec2.DescribeIamInstanceProfileAssociationsInput{
		Filters: []types.Filter{{Name: aws.String("instance-id"), Values: []string{id}}, {Name: aws.String("state"), Values: []string{"associated"}}},
	})
	if err != nil || len(list.IamInstanceProfileAssociations) != 1 {
		t.Fatalf("describe associations: %v %+v", err, list)
	}
	rep, err := c.ReplaceIamInstanceProfileAssociation(simtest.Ctx(t), &ec2.ReplaceIamInstanceProfileAssociationInput{
		AssociationId: first.AssociationId, IamInstanceProfile: &types.IamInstanceProfileSpecification{Name: aws.String("other")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(rep.IamInstanceProfileAssociation.AssociationId) == aws.ToString(first.AssociationId) {
		t.Error("replacement kept the old association id")
	}
	if got := describeOne(t, c, id); aws.ToString(got.IamInstanceProfile.Arn) != "arn:aws:iam::123456789012:instance-profile/other" {
		t.Fatalf("profile = %+v", got.IamInstanceProfile)
	}
	if _, err := c.DisassociateIamInstanceProfile(simtest.Ctx(t), &ec2.DisassociateIamInstanceProfileInput{AssociationId: rep.IamInstanceProfileAssociation.AssociationId}); err != nil {
		t.Fatal(err)
	}
	if got := describeOne(t, c, id); got.IamInstanceProfile != nil {
		t.Fatalf("profile still attached: %+v", got.IamInstanceProfile)
	}
	_, err = c.AssociateIamInstanceProfile(simtest.Ctx(t), &ec2.AssociateIamInstanceProfileInput{
		InstanceId: aws.String(id), IamInstanceProfile: &types.IamInstanceProfileSpecification{Name: aws.String("missing")},
	})
	simtest.WantCode(t, err, "InvalidParameterValue")
}

func TestModifyVolumeGrowsButNeverShrinks(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 61})
	id := runOne(t, c, basicRun())
	rec, _ := sim.Instance(id)
	out, err := c.ModifyVolume(simtest.Ctx(t), &ec2.ModifyVolumeInput{VolumeId: aws.String(rec.RootVolumeID), Size: aws.Int32(30)})
	if err != nil || aws.ToInt32(out.VolumeModification.TargetSize) != 30 || aws.ToInt32(out.VolumeModification.OriginalSize) != 8 {
		t.Fatalf("grow: %v %+v", err, out)
	}
	vols, err := c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{VolumeIds: []string{rec.RootVolumeID}})
	if err != nil || aws.ToInt32(vols.Volumes[0].Size) != 30 {
		t.Fatalf("described size: %v %+v", err, vols)
	}
	_, err = c.ModifyVolume(simtest.Ctx(t), &ec2.ModifyVolumeInput{VolumeId: aws.String(rec.RootVolumeID), Size: aws.Int32(10)})
	simtest.WantCode(t, err, "InvalidParameterValue")
	_, err = c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{VolumeIds: []string{"vol-0000000000000dead"}})
	simtest.WantCode(t, err, "InvalidVolume.NotFound")
}

func TestCreateAndDeleteTagsFollowEC2Rules(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 62})
	id := runOne(t, c, basicRun())
	rec, _ := sim.Instance(id)
	tag := func(k, v string) types.Tag { return types.Tag{Key: aws.String(k), Value: aws.String(v)} }
	if _, err := c.CreateTags(simtest.Ctx(t), &ec2.CreateTagsInput{
		Resources: []string{id, rec.RootVolumeID}, Tags: []types.Tag{tag("a", "1"), tag("b", "2"), tag("c", "3")},
	}); err != nil {
		t.Fatal(err)
	}
	// Key only deletes whatever the value; a value must match to delete.
	if _, err := c.DeleteTags(simtest.Ctx(t), &ec2.DeleteTagsInput{
		Resources: []string{id}, Tags: []types.Tag{{Key: aws.String("a")}, tag("b", "wrong"), tag("c", "3")},
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := sim.Instance(id); len(got.Tags) != 1 || got.Tags["b"] != "2" {
		t.Fatalf("instance tags = %v", got.Tags)
	}
	if v, _ := sim.Volume(rec.RootVolumeID); len(v.Tags) != 3 {
		t.Fatalf("volume tags = %v", v.Tags)
	}
	_, err := c.CreateTags(simtest.Ctx(t), &ec2.CreateTagsInput{Resources: []string{id}, Tags: []types.Tag{tag("aws:cloudformation:stack-name", "x")}})
	simtest.WantCode(t, err, "InvalidParameterValue")
	var many []types.Tag
	for i := 0; i < 50; i++ {
		many = append(many, tag("k"+string(rune('A'+i%26))+string(rune('a'+i/26)), "v"))
	}
	_, err = c.CreateTags(simtest.Ctx(t), &ec2.CreateTagsInput{Resources: []string{id}, Tags: many})
	simtest.WantCode(t, err, "TagLimitExceeded")
	_, err = c.CreateTags(simtest.Ctx(t), &ec2.CreateTagsInput{Resources: []string{"i-0000000000000dead"}, Tags: []types.Tag{tag("x", "y")}})
	simtest.WantCode(t, err, "InvalidInstanceID.NotFound")
}

func TestSeededImagesSubnetsAndSecurityGroupsAreDescribable(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 63})
	sim.AddImage("ami-00000000000000001", "custom-image", "arm64")
	imgs, err := c.DescribeImages(simtest.Ctx(t), &ec2.DescribeImagesInput{ImageIds: []string{DefaultImageID, ArmImageID}})
	if err != nil || len(imgs.Images) != 2 || imgs.Images[0].Architecture != types.ArchitectureValuesX8664 ||
		aws.ToString(imgs.Images[0].RootDeviceName) != "/dev/xvda" ||
		aws.ToInt32(imgs.Images[0].BlockDeviceMappings[0].Ebs.VolumeSize) != 8 {
		t.Fatalf("images: %v %+v", err, imgs)
	}
	own, err := c.DescribeImages(simtest.Ctx(t), &ec2.DescribeImagesInput{Owners: []string{"self"}})
	if err != nil || len(own.Images) != 1 || aws.ToString(own.Images[0].ImageId) != "ami-00000000000000001" {
		t.Fatalf("owner self: %v %+v", err, own)
	}
	named, err := c.DescribeImages(simtest.Ctx(t), &ec2.DescribeImagesInput{Owners: []string{"amazon"},
		Filters: []types.Filter{{Name: aws.String("name"), Values: []string{"al2023-ami-*-x86_64"}}}})
	if err != nil || len(named.Images) != 1 || aws.ToString(named.Images[0].ImageId) != DefaultImageID {
		t.Fatalf("name filter: %v %+v", err, named)
	}
	_, err = c.DescribeImages(simtest.Ctx(t), &ec2.DescribeImagesInput{ImageIds: []string{"ami-0000000000000dead"}})
	simtest.WantCode(t, err, "InvalidAMIID.NotFound")

	subs, err := c.DescribeSubnets(simtest.Ctx(t), &ec2.DescribeSubnetsInput{SubnetIds: DefaultSubnetIDs})
	if err != nil || len(subs.Subnets) != 3 || aws.ToString(subs.Subnets[2].AvailabilityZone) != "us-east-1c" ||
		!aws.ToBool(subs.Subnets[0].MapPublicIpOnLaunch) || !aws.ToBool(subs.Subnets[0].DefaultForAz) {
		t.Fatalf("subnets: %v %+v", err, subs)
	}
	_, err = c.DescribeSubnets(simtest.Ctx(t), &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-0000000000000dead"}})
	simtest.WantCode(t, err, "InvalidSubnetID.NotFound")

	sgs, err := c.DescribeSecurityGroups(simtest.Ctx(t), &ec2.DescribeSecurityGroupsInput{GroupIds: []string{WebSecurityGroupID}})
	if err != nil || len(sgs.SecurityGroups) != 1 || aws.ToString(sgs.SecurityGroups[0].GroupName) != "web" {
		t.Fatalf("security groups: %v %+v", err, sgs)
	}
	_, err = c.DescribeSecurityGroups(simtest.Ctx(t), &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-0000000000000dead"}})
	simtest.WantCode(t, err, "InvalidGroup.NotFound")
}

func TestModifyVolumeAllowsFourModificationsPerVolumeIn24Hours(t *testing.T) {
	clock := newFakeClock()
	sim, c := newEnv(t, Config{Seed: 63, Now: clock.Now})
	id := runOne(t, c, basicRun())
	rec, _ := sim.Instance(id)
	grow := func(size int32) error {
		_, err := c.ModifyVolume(simtest.Ctx(t), &ec2.ModifyVolumeInput{VolumeId: aws.String(rec.RootVolumeID), Size: aws.Int32(size)})
		return err
	}
	for i, size := range []int32{10, 12, 14, 16} {
		if err := grow(size); err != nil {
			t.Fatalf("modification %d: %v", i+1, err)
		}
		clock.Advance(time.Hour)
	}
	simtest.WantCode(t, grow(18), "VolumeModificationRateExceeded")
	clock.Advance(21 * time.Hour) // the first modification leaves the 24-hour window
	if err := grow(18); err != nil {
		t.Fatalf("after the window moved on: %v", err)
	}
}
