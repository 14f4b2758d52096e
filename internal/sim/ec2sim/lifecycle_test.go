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

// fastLifecycle keeps every transition short enough for waiters in tests.
func fastLifecycle(seed int64) Config {
	return Config{
		Seed: seed, PendingDuration: 30 * time.Millisecond, StoppingDuration: 30 * time.Millisecond,
		ShuttingDownDuration: 30 * time.Millisecond,
	}
}

func TestStopModifyStartCycleChangesTheInstanceType(t *testing.T) {
	_, c := newEnv(t, fastLifecycle(40))
	id := runOne(t, c, basicRun())
	ids := &ec2.DescribeInstancesInput{InstanceIds: []string{id}}
	running := ec2.NewInstanceRunningWaiter(c, func(o *ec2.InstanceRunningWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 40*time.Millisecond
	})
	stopped := ec2.NewInstanceStoppedWaiter(c, func(o *ec2.InstanceStoppedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 40*time.Millisecond
	})
	if err := running.Wait(simtest.Ctx(t), ids, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	// Stopping a pending instance is refused, but a running one stops.
	out, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{id}})
	if err != nil {
		t.Fatal(err)
	}
	if out.StoppingInstances[0].CurrentState.Name != types.InstanceStateNameStopping {
		t.Fatalf("current state = %s", out.StoppingInstances[0].CurrentState.Name)
	}
	if err := stopped.Wait(simtest.Ctx(t), ids, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := describeOne(t, c, id); got.PublicIpAddress != nil {
		t.Errorf("stopped instance kept public IP %s", aws.ToString(got.PublicIpAddress))
	}
	// Stopping again is a no-op success.
	if _, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id), InstanceType: &types.AttributeValue{Value: aws.String("t3.large")},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id), UserData: &types.SecureBlobAttributeValue{Value: []byte("#cloud-config\n")},
	}); err != nil {
		t.Fatal(err)
	}
	attr, err := c.DescribeInstanceAttribute(simtest.Ctx(t), &ec2.DescribeInstanceAttributeInput{InstanceId: aws.String(id), Attribute: types.InstanceAttributeNameUserData})
	if err != nil || aws.ToString(attr.UserData.Value) != "I2Nsb3VkLWNvbmZpZwo=" {
		t.Fatalf("userData attribute = %+v (%v)", attr.UserData, err)
	}
	if _, err := c.StartInstances(simtest.Ctx(t), &ec2.StartInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatal(err)
	}
	if err := running.Wait(simtest.Ctx(t), ids, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	got := describeOne(t, c, id)
	if got.InstanceType != types.InstanceTypeT3Large || got.PublicIpAddress == nil {
		t.Fatalf("type %s public IP %v", got.InstanceType, got.PublicIpAddress)
	}
	attr, err = c.DescribeInstanceAttribute(simtest.Ctx(t), &ec2.DescribeInstanceAttributeInput{InstanceId: aws.String(id), Attribute: types.InstanceAttributeNameInstanceType})
	if err != nil || aws.ToString(attr.InstanceType.Value) != "t3.large" {
		t.Fatalf("instanceType attribute = %+v (%v)", attr.InstanceType, err)
	}
}

func TestStopInstancesRefusesPendingInstances(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 41, PendingDuration: time.Hour})
	id := runOne(t, c, basicRun())
	_, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{id}})
	simtest.WantCode(t, err, "IncorrectInstanceState")
}

func TestOutOfBandStopAndTerminateAreSeenByWaiters(t *testing.T) {
	sim, c := newEnv(t, fastLifecycle(42))
	id := runOne(t, c, basicRun())
	ids := &ec2.DescribeInstancesInput{InstanceIds: []string{id}}
	time.Sleep(40 * time.Millisecond)
	if err := sim.StopInstance(id); err != nil {
		t.Fatal(err)
	}
	stopped := ec2.NewInstanceStoppedWaiter(c, func(o *ec2.InstanceStoppedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 40*time.Millisecond
	})
	if err := stopped.Wait(simtest.Ctx(t), ids, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := sim.StartInstance(id); err != nil {
		t.Fatal(err)
	}
	// Terminating a pending instance out of band is allowed.
	if err := sim.TerminateInstance(id); err != nil {
		t.Fatal(err)
	}
	terminated := ec2.NewInstanceTerminatedWaiter(c, func(o *ec2.InstanceTerminatedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 40*time.Millisecond
	})
	if err := terminated.Wait(simtest.Ctx(t), ids, 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestOutOfBandEditsShowUpInDescribeInstances(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 43})
	id := runOne(t, c, basicRun())
	if err := sim.SetTags(id, map[string]string{"drift": "yes"}); err != nil {
		t.Fatal(err)
	}
	if err := sim.ModifyInstance(id, func(r *InstanceRecord) {
		r.SecurityGroupIDs = []string{WebSecurityGroupID}
		r.MetadataOptions.HTTPTokens = "optional"
		r.Monitoring = true
	}); err != nil {
		t.Fatal(err)
	}
	got := describeOne(t, c, id)
	if len(got.Tags) != 1 || aws.ToString(got.Tags[0].Key) != "drift" ||
		aws.ToString(got.SecurityGroups[0].GroupId) != WebSecurityGroupID ||
		got.MetadataOptions.HttpTokens != types.HttpTokensStateOptional ||
		got.Monitoring.State != types.MonitoringStateEnabled {
		t.Fatalf("described = %+v", got)
	}
}

func TestModifyInstanceMetadataOptionsAndMonitoring(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 44})
	id := runOne(t, c, basicRun())
	out, err := c.ModifyInstanceMetadataOptions(simtest.Ctx(t), &ec2.ModifyInstanceMetadataOptionsInput{
		InstanceId: aws.String(id), HttpTokens: types.HttpTokensStateOptional, HttpPutResponseHopLimit: aws.Int32(4),
	})
	if err != nil || out.InstanceMetadataOptions.HttpTokens != types.HttpTokensStateOptional {
		t.Fatalf("modify metadata: %v %+v", err, out)
	}
	mon, err := c.MonitorInstances(simtest.Ctx(t), &ec2.MonitorInstancesInput{InstanceIds: []string{id}})
	if err != nil || mon.InstanceMonitorings[0].Monitoring.State != types.MonitoringStatePending {
		t.Fatalf("monitor: %v %+v", err, mon)
	}
	if rec, _ := sim.Instance(id); !rec.Monitoring || rec.MetadataOptions.HopLimit != 4 {
		t.Fatalf("record = %+v", rec)
	}
	if _, err := c.UnmonitorInstances(simtest.Ctx(t), &ec2.UnmonitorInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatal(err)
	}
	if got := describeOne(t, c, id); got.Monitoring.State != types.MonitoringStateDisabled {
		t.Fatalf("monitoring = %s", got.Monitoring.State)
	}
}

func TestModifyInstanceAttributeReplacesSecurityGroups(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 45})
	id := runOne(t, c, basicRun())
	if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id), Groups: []string{WebSecurityGroupID, DefaultSecurityGroupID},
	}); err != nil {
		t.Fatal(err)
	}
	attr, err := c.DescribeInstanceAttribute(simtest.Ctx(t), &ec2.DescribeInstanceAttributeInput{InstanceId: aws.String(id), Attribute: types.InstanceAttributeNameGroupSet})
	if err != nil || len(attr.Groups) != 2 || aws.ToString(attr.Groups[0].GroupId) != WebSecurityGroupID {
		t.Fatalf("groups = %+v (%v)", attr.Groups, err)
	}
}
