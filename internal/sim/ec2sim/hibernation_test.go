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
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// hibernatable launches the type with hibernation on and an encrypted root
// volume of sizeGiB.
func hibernatable(it types.InstanceType, sizeGiB int32) *ec2.RunInstancesInput {
	in := runType(it)
	in.HibernationOptions = &types.HibernationOptionsRequest{Configured: aws.Bool(true)}
	in.BlockDeviceMappings = []types.BlockDeviceMapping{{DeviceName: aws.String("/dev/xvda"),
		Ebs: &types.EbsBlockDevice{Encrypted: aws.Bool(true), VolumeSize: aws.Int32(sizeGiB)}}}
	return in
}

// RunInstances enforces the hibernation prerequisites: a supported type, an
// encrypted root volume, room for the RAM on it, and for Spot the hibernate
// interruption behaviour.
func TestRunInstancesHibernationPrerequisites(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 30})
	id := runOne(t, c, hibernatable("m5.large", 8))
	if h := describeOne(t, c, id).HibernationOptions; h == nil || !aws.ToBool(h.Configured) {
		t.Fatalf("hibernationOptions = %+v", h)
	}
	if h := describeOne(t, c, runOne(t, c, basicRun())).HibernationOptions; h == nil || aws.ToBool(h.Configured) {
		t.Fatalf("default hibernationOptions = %+v", h)
	}

	unencrypted := hibernatable("m5.large", 8)
	unencrypted.BlockDeviceMappings[0].Ebs.Encrypted = nil
	_, err := c.RunInstances(simtest.Ctx(t), unencrypted)
	simtest.WantCode(t, err, "UnsupportedHibernationConfiguration")
	if simtest.ErrMessage(err) != "For hibernation, the root device volume must be encrypted." {
		t.Fatalf("message = %q", simtest.ErrMessage(err))
	}
	_, err = c.RunInstances(simtest.Ctx(t), hibernatable("m1.small", 8))
	simtest.WantCode(t, err, "UnsupportedHibernationConfiguration")
	_, err = c.RunInstances(simtest.Ctx(t), hibernatable("m5.4xlarge", 8)) // 64 GiB of RAM on an 8 GiB root
	simtest.WantCode(t, err, "UnsupportedHibernationConfiguration")
	runOne(t, c, hibernatable("m5.4xlarge", 80))

	spot := hibernatable("m5.large", 8)
	spot.InstanceMarketOptions = &types.InstanceMarketOptionsRequest{MarketType: types.MarketTypeSpot,
		SpotOptions: &types.SpotMarketOptions{SpotInstanceType: types.SpotInstanceTypePersistent, InstanceInterruptionBehavior: types.InstanceInterruptionBehaviorStop}}
	_, err = c.RunInstances(simtest.Ctx(t), spot)
	simtest.WantCode(t, err, "InvalidParameterCombination")
	spot.InstanceMarketOptions.SpotOptions.InstanceInterruptionBehavior = ""
	runOne(t, c, spot)
}

// StopInstances with Hibernate refuses an instance not configured for it
// with EC2's error, and otherwise stops it with the hibernate state reason.
func TestStopInstancesHibernate(t *testing.T) {
	clock := newFakeClock()
	_, c := newEnv(t, Config{Seed: 31, Now: clock.Now, StoppingDuration: 30 * time.Second})
	plain := runOne(t, c, basicRun())
	_, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{plain}, Hibernate: aws.Bool(true)})
	simtest.WantCode(t, err, "UnsupportedHibernationConfiguration")
	if simtest.ErrMessage(err) != "The instance can't be hibernated because it was not configured at launch for hibernation: "+plain {
		t.Fatalf("message = %q", simtest.ErrMessage(err))
	}

	id := runOne(t, c, hibernatable("t3.large", 8))
	describeOne(t, c, id) // running
	out, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{id}, Hibernate: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if out.StoppingInstances[0].CurrentState.Name != types.InstanceStateNameStopping {
		t.Fatalf("StopInstances answered %+v", out.StoppingInstances[0])
	}
	inst := describeOne(t, c, id)
	if inst.State.Name != types.InstanceStateNameStopping || aws.ToString(inst.StateReason.Code) != "Client.UserInitiatedHibernate" {
		t.Fatalf("while stopping: %s %+v", inst.State.Name, inst.StateReason)
	}
	clock.Advance(30 * time.Second)
	inst = describeOne(t, c, id)
	if inst.State.Name != types.InstanceStateNameStopped || aws.ToString(inst.StateReason.Code) != "Client.UserInitiatedHibernate" ||
		aws.ToString(inst.StateReason.Message) != "Client.UserInitiatedHibernate: User initiated hibernate" ||
		!strings.HasPrefix(aws.ToString(inst.StateTransitionReason), "User initiated (") {
		t.Fatalf("after hibernating: %s %+v %q", inst.State.Name, inst.StateReason, aws.ToString(inst.StateTransitionReason))
	}
	// A plain stop of the same instance later reads as a user-initiated shutdown.
	if _, err := c.StartInstances(simtest.Ctx(t), &ec2.StartInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatal(err)
	}
	describeOne(t, c, id)
	if _, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(30 * time.Second)
	if inst := describeOne(t, c, id); aws.ToString(inst.StateReason.Code) != "Client.UserInitiatedShutdown" {
		t.Fatalf("after a plain stop: %+v", inst.StateReason)
	}
}
