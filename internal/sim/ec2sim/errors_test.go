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
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

func TestInvalidRunInstancesRequestsFailWithEC2ErrorCodes(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*ec2.RunInstancesInput)
		code   string
	}{
		{"malformed AMI", func(in *ec2.RunInstancesInput) { in.ImageId = aws.String("ami-xyz") }, "InvalidAMIID.Malformed"},
		{"unknown AMI", func(in *ec2.RunInstancesInput) { in.ImageId = aws.String("ami-0123456789abcdef0") }, "InvalidAMIID.NotFound"},
		{"unknown subnet", func(in *ec2.RunInstancesInput) { in.SubnetId = aws.String("subnet-0000000000000dead") }, "InvalidSubnetID.NotFound"},
		{"unknown security group", func(in *ec2.RunInstancesInput) { in.SecurityGroupIds = []string{"sg-0000000000000dead"} }, "InvalidGroup.NotFound"},
		{"unknown instance type", func(in *ec2.RunInstancesInput) { in.InstanceType = "t3.gigantic" }, "InvalidParameterValue"},
		{"arch mismatch", func(in *ec2.RunInstancesInput) { in.InstanceType = types.InstanceTypeT4gMicro }, "InvalidParameterValue"},
		{"unknown key pair", func(in *ec2.RunInstancesInput) { in.KeyName = aws.String("nope") }, "InvalidKeyPair.NotFound"},
		{"unknown instance profile", func(in *ec2.RunInstancesInput) {
			in.IamInstanceProfile = &types.IamInstanceProfileSpecification{Name: aws.String("nope")}
		}, "InvalidParameterValue"},
		{"reserved tag prefix", func(in *ec2.RunInstancesInput) {
			in.TagSpecifications = []types.TagSpecification{{ResourceType: types.ResourceTypeInstance, Tags: []types.Tag{{Key: aws.String("aws:x"), Value: aws.String("y")}}}}
		}, "InvalidParameterValue"},
		{"user data too large", func(in *ec2.RunInstancesInput) {
			in.UserData = aws.String(base64.StdEncoding.EncodeToString(make([]byte, 16385)))
		}, "InvalidParameterValue"},
		{"root volume smaller than snapshot", func(in *ec2.RunInstancesInput) {
			in.BlockDeviceMappings = []types.BlockDeviceMapping{{DeviceName: aws.String("/dev/xvda"), Ebs: &types.EbsBlockDevice{VolumeSize: aws.Int32(4)}}}
		}, "InvalidBlockDeviceMapping"},
		{"iops on gp2", func(in *ec2.RunInstancesInput) {
			in.BlockDeviceMappings = []types.BlockDeviceMapping{{DeviceName: aws.String("/dev/xvda"), Ebs: &types.EbsBlockDevice{VolumeType: types.VolumeTypeGp2, Iops: aws.Int32(3000)}}}
		}, "InvalidParameterCombination"},
		{"AZ differs from subnet", func(in *ec2.RunInstancesInput) {
			in.Placement = &types.Placement{AvailabilityZone: aws.String("us-east-1c")}
		}, "InvalidParameterValue"},
		{"subnet at both levels", func(in *ec2.RunInstancesInput) {
			in.NetworkInterfaces = []types.InstanceNetworkInterfaceSpecification{{DeviceIndex: aws.Int32(0), SubnetId: aws.String(DefaultSubnetIDs[0])}}
		}, "InvalidParameterCombination"},
		{"termination protection on spot", func(in *ec2.RunInstancesInput) {
			in.DisableApiTermination = aws.Bool(true)
			in.InstanceMarketOptions = &types.InstanceMarketOptionsRequest{MarketType: types.MarketTypeSpot}
		}, "InvalidParameterCombination"},
		{"missing image", func(in *ec2.RunInstancesInput) { in.ImageId = nil }, "MissingParameter"},
	}
	sim, c := newEnv(t, Config{Seed: 20})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := basicRun()
			tt.mutate(in)
			_, err := c.RunInstances(simtest.Ctx(t), in)
			simtest.WantCode(t, err, tt.code)
		})
	}
	if n := len(sim.Instances()); n != 0 {
		t.Fatalf("%d instances launched by failing requests", n)
	}
}

func TestInstanceActionsReportMalformedAndUnknownIDs(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 21})
	id := runOne(t, c, basicRun())
	_, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{"i-123"}})
	simtest.WantCode(t, err, "InvalidInstanceID.Malformed")
	_, err = c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id, "i-0000000000000dead", "i-0000000000000beef"}})
	simtest.WantCode(t, err, "InvalidInstanceID.NotFound")
	if msg := simtest.ErrMessage(err); msg != "The instance IDs 'i-0000000000000dead, i-0000000000000beef' do not exist" {
		t.Errorf("message = %q", msg)
	}
	_, err = c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{"i-0000000000000dead"}})
	simtest.WantCode(t, err, "InvalidInstanceID.NotFound")
	_, err = c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}, MaxResults: aws.Int32(5)})
	simtest.WantCode(t, err, "InvalidParameterCombination")
}

func TestTerminationProtectionBlocksTerminateInstances(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 22})
	in := basicRun()
	in.DisableApiTermination = aws.Bool(true)
	id := runOne(t, c, in)
	_, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{id}})
	simtest.WantCode(t, err, "OperationNotPermitted")
	want := "The instance '" + id + "' may not be terminated. Modify its 'disableApiTermination' instance attribute and try again."
	if simtest.ErrMessage(err) != want {
		t.Errorf("message = %q", simtest.ErrMessage(err))
	}
	if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id), DisableApiTermination: &types.AttributeBooleanValue{Value: aws.Bool(false)},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatalf("terminate after disabling protection: %v", err)
	}
}

func TestModifyingInstanceTypeWhileRunningFails(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 23})
	id := runOne(t, c, basicRun())
	_, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id), InstanceType: &types.AttributeValue{Value: aws.String("t3.large")},
	})
	simtest.WantCode(t, err, "IncorrectInstanceState")
	_, err = c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id), UserData: &types.SecureBlobAttributeValue{Value: []byte("x")},
	})
	simtest.WantCode(t, err, "IncorrectInstanceState")
	_, err = c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
		InstanceId:            aws.String(id),
		InstanceType:          &types.AttributeValue{Value: aws.String("t3.large")},
		DisableApiTermination: &types.AttributeBooleanValue{Value: aws.Bool(true)},
	})
	simtest.WantCode(t, err, "InvalidParameterCombination")
	_, err = c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id), Groups: []string{"sg-0000000000000dead"},
	})
	simtest.WantCode(t, err, "InvalidGroup.NotFound")
}

func TestUnknownActionsAndDryRunsAnswerLikeEC2(t *testing.T) {
	sim := New(Config{Seed: 24})
	srv := newClient(t, sim) // exercise the SDK path for DryRun below
	_, err := srv.RunInstances(simtest.Ctx(t), func() *ec2.RunInstancesInput { in := basicRun(); in.DryRun = aws.Bool(true); return in }())
	simtest.WantCode(t, err, "DryRunOperation")

	rec := httpPost(t, sim, url.Values{"Action": {"LaunchRockets"}, "Version": {apiVersion}})
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "<Code>InvalidAction</Code>") {
		t.Fatalf("status %d body %s", rec.Code, rec.Body.String())
	}
}
