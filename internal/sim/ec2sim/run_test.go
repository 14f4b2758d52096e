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
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

func TestRunInstancesLaunchesPendingInstanceThatTheRunningWaiterSeesRunning(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 1, PendingDuration: 50 * time.Millisecond})
	out, err := c.RunInstances(simtest.Ctx(t), basicRun())
	if err != nil {
		t.Fatal(err)
	}
	inst := out.Instances[0]
	if inst.State.Name != types.InstanceStateNamePending || aws.ToInt32(inst.State.Code) != 0 {
		t.Fatalf("state = %+v, want pending/0", inst.State)
	}
	id := aws.ToString(inst.InstanceId)
	if len(id) != len("i-")+17 {
		t.Errorf("instance id %q is not in the 17-hex-digit form", id)
	}
	w := ec2.NewInstanceRunningWaiter(c, func(o *ec2.InstanceRunningWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	})
	desc, err := w.WaitForOutput(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}}, 5*time.Second)
	if err != nil {
		t.Fatalf("waiter: %v", err)
	}
	got := desc.Reservations[0].Instances[0]
	if got.State.Name != types.InstanceStateNameRunning || aws.ToInt32(got.State.Code) != 16 {
		t.Fatalf("state = %+v, want running/16", got.State)
	}
	if !strings.HasPrefix(aws.ToString(got.PrivateIpAddress), "172.31.") ||
		!strings.HasSuffix(aws.ToString(got.PrivateDnsName), ".ec2.internal") ||
		!strings.HasSuffix(aws.ToString(got.PublicDnsName), ".compute-1.amazonaws.com") ||
		aws.ToString(got.PublicIpAddress) == "" {
		t.Errorf("addresses = %s %s %s %s", aws.ToString(got.PrivateIpAddress), aws.ToString(got.PrivateDnsName),
			aws.ToString(got.PublicIpAddress), aws.ToString(got.PublicDnsName))
	}
	if aws.ToString(got.Placement.AvailabilityZone) != "us-east-1a" || aws.ToString(got.VpcId) != DefaultVPCID {
		t.Errorf("placement = %s vpc = %s", aws.ToString(got.Placement.AvailabilityZone), aws.ToString(got.VpcId))
	}
	if len(got.SecurityGroups) != 1 || aws.ToString(got.SecurityGroups[0].GroupId) != DefaultSecurityGroupID ||
		aws.ToString(got.SecurityGroups[0].GroupName) != "default" {
		t.Errorf("security groups = %+v", got.SecurityGroups)
	}
	if len(got.BlockDeviceMappings) != 1 || aws.ToString(got.BlockDeviceMappings[0].DeviceName) != "/dev/xvda" ||
		!aws.ToBool(got.BlockDeviceMappings[0].Ebs.DeleteOnTermination) {
		t.Errorf("block devices = %+v", got.BlockDeviceMappings)
	}
	// Amazon Linux 2023 AMIs carry ImdsSupport v2.0, so IMDSv2 is required by default.
	if got.MetadataOptions.HttpTokens != types.HttpTokensStateRequired || aws.ToInt32(got.MetadataOptions.HttpPutResponseHopLimit) != 2 {
		t.Errorf("metadata options = %+v", got.MetadataOptions)
	}
	if len(got.NetworkInterfaces) != 1 || aws.ToString(got.NetworkInterfaces[0].Association.PublicIp) != aws.ToString(got.PublicIpAddress) {
		t.Errorf("network interfaces = %+v", got.NetworkInterfaces)
	}
}

func TestRunInstancesWithTheSameClientTokenAndParametersReturnsTheSameInstance(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 2})
	in := basicRun()
	in.ClientToken = aws.String("token-1")
	first := runOne(t, c, in)
	again := runOne(t, c, in)
	if first != again {
		t.Fatalf("retry launched %s, want the original %s", again, first)
	}
	if n := len(sim.Instances()); n != 1 {
		t.Fatalf("%d instances exist, want 1", n)
	}
	out, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{
		Filters: []types.Filter{{Name: aws.String("client-token"), Values: []string{"token-1"}}},
	})
	if err != nil || len(out.Reservations) != 1 {
		t.Fatalf("client-token filter: %v %+v", err, out)
	}
}

func TestRunInstancesWithTheSameClientTokenButDifferentParametersFails(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 3})
	in := basicRun()
	in.ClientToken = aws.String("token-2")
	runOne(t, c, in)
	in.InstanceType = types.InstanceTypeT3Small
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "IdempotentParameterMismatch")
}

func TestRunInstancesWithTheClientTokenOfATerminatedInstanceFails(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 4})
	in := basicRun()
	in.ClientToken = aws.String("token-3")
	id := runOne(t, c, in)
	if err := sim.TerminateInstance(id); err != nil {
		t.Fatal(err)
	}
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "IdempotentInstanceTerminated")
}

func TestRunInstancesAppliesTagSpecificationsToTheInstanceAndItsVolume(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 5})
	in := basicRun()
	in.TagSpecifications = []types.TagSpecification{
		{ResourceType: types.ResourceTypeInstance, Tags: []types.Tag{{Key: aws.String("Name"), Value: aws.String("web-1")}, {Key: aws.String("owner"), Value: aws.String("ops")}}},
		{ResourceType: types.ResourceTypeVolume, Tags: []types.Tag{{Key: aws.String("backup"), Value: aws.String("daily")}}},
	}
	id := runOne(t, c, in)
	got := describeOne(t, c, id)
	tags := map[string]string{}
	for _, tg := range got.Tags {
		tags[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
	}
	if tags["Name"] != "web-1" || tags["owner"] != "ops" || len(tags) != 2 {
		t.Errorf("instance tags = %v", tags)
	}
	rec, _ := sim.Instance(id)
	vols, err := c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{VolumeIds: []string{rec.RootVolumeID}})
	if err != nil {
		t.Fatal(err)
	}
	v := vols.Volumes[0]
	if len(v.Tags) != 1 || aws.ToString(v.Tags[0].Key) != "backup" || aws.ToString(v.Tags[0].Value) != "daily" {
		t.Errorf("volume tags = %+v", v.Tags)
	}
	if aws.ToInt32(v.Size) != 8 || v.VolumeType != types.VolumeTypeGp3 || v.State != types.VolumeStateInUse ||
		aws.ToString(v.Attachments[0].InstanceId) != id {
		t.Errorf("volume = %+v", v)
	}
}

func TestRunInstancesWithAnInvalidTagLaunchesNothing(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 6})
	in := basicRun()
	in.TagSpecifications = []types.TagSpecification{
		{ResourceType: types.ResourceTypeInstance, Tags: []types.Tag{{Key: aws.String("Name"), Value: aws.String("x")}}},
		{ResourceType: types.ResourceTypeVolume, Tags: []types.Tag{{Key: aws.String("aws:reserved"), Value: aws.String("x")}}},
	}
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidParameterValue")
	if n := len(sim.Instances()); n != 0 {
		t.Fatalf("%d instances exist after a failed launch", n)
	}
}

func TestRunInstancesResolvesSSMParameterImageIDs(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 7})
	in := basicRun()
	in.ImageId = aws.String("resolve:ssm:" + DefaultSSMParameter)
	id := runOne(t, c, in)
	if got := aws.ToString(describeOne(t, c, id).ImageId); got != DefaultImageID {
		t.Fatalf("image = %s, want %s", got, DefaultImageID)
	}
	in.ImageId = aws.String("resolve:ssm:/does/not/exist")
	in.ClientToken = nil // the SDK stored its generated token in the reused input
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidParameterValue")
	if !strings.Contains(simtest.ErrMessage(err), "/does/not/exist") {
		t.Errorf("message %q does not name the parameter", simtest.ErrMessage(err))
	}
}

func TestRunInstancesAcceptsNetworkInterfaceStyleNetworking(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 8})
	in := basicRun()
	in.SubnetId = nil
	in.NetworkInterfaces = []types.InstanceNetworkInterfaceSpecification{{
		DeviceIndex: aws.Int32(0), SubnetId: aws.String(DefaultSubnetIDs[1]),
		Groups: []string{WebSecurityGroupID}, AssociatePublicIpAddress: aws.Bool(false),
	}}
	id := runOne(t, c, in)
	rec, _ := sim.Instance(id)
	if rec.SubnetID != DefaultSubnetIDs[1] || rec.AZ != "us-east-1b" || rec.PublicIP != "" ||
		len(rec.SecurityGroupIDs) != 1 || rec.SecurityGroupIDs[0] != WebSecurityGroupID {
		t.Fatalf("record = %+v", rec)
	}
}

func TestRunInstancesStoresLaunchOptions(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 9})
	in := basicRun()
	in.KeyName = aws.String(DefaultKeyName)
	in.UserData = aws.String(base64.StdEncoding.EncodeToString([]byte("#!/bin/sh\necho hi\n")))
	in.DisableApiTermination = aws.Bool(true)
	in.Monitoring = &types.RunInstancesMonitoringEnabled{Enabled: aws.Bool(true)}
	in.IamInstanceProfile = &types.IamInstanceProfileSpecification{Name: aws.String(DefaultInstanceProfile)}
	in.MetadataOptions = &types.InstanceMetadataOptionsRequest{HttpTokens: types.HttpTokensStateOptional, HttpPutResponseHopLimit: aws.Int32(3)}
	in.BlockDeviceMappings = []types.BlockDeviceMapping{{DeviceName: aws.String("/dev/xvda"), Ebs: &types.EbsBlockDevice{VolumeSize: aws.Int32(20), VolumeType: types.VolumeTypeGp3}}}
	id := runOne(t, c, in)
	rec, _ := sim.Instance(id)
	if rec.KeyName != DefaultKeyName || string(rec.UserData) != "#!/bin/sh\necho hi\n" || !rec.DisableAPITermination ||
		!rec.Monitoring || rec.IAMInstanceProfileARN != "arn:aws:iam::123456789012:instance-profile/ec2-operator-demo" ||
		rec.MetadataOptions.HTTPTokens != "optional" || rec.MetadataOptions.HopLimit != 3 {
		t.Fatalf("record = %+v", rec)
	}
	if v, _ := sim.Volume(rec.RootVolumeID); v.SizeGiB != 20 {
		t.Errorf("root volume size = %d, want 20", v.SizeGiB)
	}
	got := describeOne(t, c, id)
	if got.Monitoring.State != types.MonitoringStateEnabled || aws.ToString(got.IamInstanceProfile.Arn) != rec.IAMInstanceProfileARN ||
		aws.ToString(got.KeyName) != DefaultKeyName {
		t.Errorf("described = %+v", got)
	}
}

func TestRunInstancesLaunchesSpotInstances(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 10})
	in := basicRun()
	in.InstanceMarketOptions = &types.InstanceMarketOptionsRequest{
		MarketType:  types.MarketTypeSpot,
		SpotOptions: &types.SpotMarketOptions{MaxPrice: aws.String("0.05")},
	}
	id := runOne(t, c, in)
	if got := describeOne(t, c, id); got.InstanceLifecycle != types.InstanceLifecycleTypeSpot {
		t.Fatalf("lifecycle = %q, want spot", got.InstanceLifecycle)
	}
	// With a zero PendingDuration the instance is running by the next call.
	_, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{id}})
	simtest.WantCode(t, err, "UnsupportedOperation")
	if rec, _ := sim.Instance(id); !rec.Spot || rec.SpotInstanceType != "one-time" || rec.SpotMaxPrice != "0.05" {
		t.Errorf("record = %+v", rec)
	}

	in.InstanceMarketOptions.SpotOptions.InstanceInterruptionBehavior = types.InstanceInterruptionBehaviorStop
	in.ClientToken = nil // the SDK stored its generated token in the reused input
	_, err = c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidParameterCombination")
}

func TestRunInstancesHonoursMaxCount(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 11})
	in := basicRun()
	in.MinCount, in.MaxCount = aws.Int32(1), aws.Int32(3)
	out, err := c.RunInstances(simtest.Ctx(t), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Instances) != 3 || len(sim.Instances()) != 3 {
		t.Fatalf("launched %d instances, want 3", len(out.Instances))
	}
	for i, inst := range out.Instances {
		if aws.ToInt32(inst.AmiLaunchIndex) != int32(i) || aws.ToString(out.ReservationId) == "" {
			t.Errorf("instance %d: launch index %d", i, aws.ToInt32(inst.AmiLaunchIndex))
		}
	}
}

func TestTheSameSeedProducesTheSameIDs(t *testing.T) {
	launch := func() []string {
		sim, c := newEnv(t, Config{Seed: 12})
		a := runOne(t, c, basicRun())
		b := runOne(t, c, basicRun())
		rec, _ := sim.Instance(a)
		return []string{a, b, rec.RootVolumeID, rec.ReservationID}
	}
	first, second := launch(), launch()
	for i := range first {
		if first[i] != second[i] {
			t.Fatalf("ids differ between runs: %v vs %v", first, second)
		}
	}
}
