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

// Conformance tests for the capacity model. EC2's error-code reference
// lists Unsupported as a client error ("The specified request includes an
// unsupported operation", which RunInstances and StartInstances send for an
// instance type the Availability Zone does not offer) and
// InsufficientInstanceCapacity as a server error ("There is not enough
// capacity to fulfill your request"), which the SDK retries.

// noRetry is a client that sends each call once, so a test sees EC2's answer.
func noRetry(c *ec2.Client) *ec2.Client {
	return ec2.NewFromConfig(aws.Config{}, func(o *ec2.Options) { *o = c.Options(); o.RetryMaxAttempts = 1 })
}

func TestRunInstancesOfATypeTheZoneDoesNotOfferIsUnsupported(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 90})
	az := DefaultRegion + "a"
	sim.SetOffered(az, "t3.micro", false)
	_, err := c.RunInstances(simtest.Ctx(t), basicRun())
	simtest.WantCode(t, err, "Unsupported")
	msg := simtest.ErrMessage(err)
	for _, want := range []string{"(t3.micro)", "(" + az + ")", DefaultRegion + "b, " + DefaultRegion + "c"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not contain %q", msg, want)
		}
	}
	if n := sim.Calls("RunInstances"); n != 1 {
		t.Errorf("RunInstances calls = %d, want 1: a client error is not retried", n)
	}
	if got := len(sim.Instances()); got != 0 {
		t.Fatalf("%d instances launched by a refused call", got)
	}
	// Another zone still serves the type, and so does this one once offered.
	other := basicRun()
	other.SubnetId = aws.String(DefaultSubnetIDs[1])
	runOne(t, c, other)
	sim.SetOffered(az, "t3.micro", true)
	runOne(t, c, basicRun())
}

func TestRunInstancesWithoutCapacityIsAServerErrorUntilCapacityReturns(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 91})
	az := DefaultRegion + "a"
	sim.SetCapacity(az, "t3.micro", false)
	_, err := noRetry(c).RunInstances(simtest.Ctx(t), basicRun())
	simtest.WantCode(t, err, "InsufficientInstanceCapacity")
	if r := sim.Requests()[0]; r.HTTPStatus != 500 {
		t.Errorf("HTTP status = %d, want 500", r.HTTPStatus)
	}
	if msg := simtest.ErrMessage(err); !strings.Contains(msg, "sufficient t3.micro capacity") || !strings.Contains(msg, "("+az+")") {
		t.Errorf("message = %q", msg)
	}
	// The SDK's standard retryer retries server errors.
	sim.ResetCalls()
	_, err = c.RunInstances(simtest.Ctx(t), basicRun())
	simtest.WantCode(t, err, "InsufficientInstanceCapacity")
	if n := sim.Calls("RunInstances"); n < 2 {
		t.Errorf("RunInstances calls = %d, want the SDK to retry a 500", n)
	}
	if got := len(sim.Instances()); got != 0 {
		t.Fatalf("%d instances launched without capacity", got)
	}
	sim.SetCapacity(az, "t3.micro", true)
	runOne(t, c, basicRun())
}

func TestStartInstancesOfATypeThatCannotRunLeavesTheInstanceStopped(t *testing.T) {
	sim, c := newEnv(t, fastLifecycle(92))
	id := runOne(t, c, basicRun())
	ids := &ec2.DescribeInstancesInput{InstanceIds: []string{id}}
	waitOpts := func(o *ec2.InstanceStoppedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 40*time.Millisecond
	}
	runOpts := func(o *ec2.InstanceRunningWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 40*time.Millisecond
	}
	if err := ec2.NewInstanceRunningWaiter(c, runOpts).Wait(simtest.Ctx(t), ids, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatal(err)
	}
	if err := ec2.NewInstanceStoppedWaiter(c, waitOpts).Wait(simtest.Ctx(t), ids, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	az := DefaultRegion + "a"
	sim.SetOffered(az, "m5.large", false)
	sim.SetCapacity(az, "t3.large", false)

	// Changing the type of a stopped instance succeeds whatever the zone
	// offers; the start is what fails.
	for _, tc := range []struct{ instanceType, code string }{
		{"m5.large", "Unsupported"},
		{"t3.large", "InsufficientInstanceCapacity"},
	} {
		if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
			InstanceId: aws.String(id), InstanceType: &types.AttributeValue{Value: aws.String(tc.instanceType)},
		}); err != nil {
			t.Fatalf("modify to %s: %v", tc.instanceType, err)
		}
		_, err := noRetry(c).StartInstances(simtest.Ctx(t), &ec2.StartInstancesInput{InstanceIds: []string{id}})
		simtest.WantCode(t, err, tc.code)
		if got := describeOne(t, c, id); got.State.Name != types.InstanceStateNameStopped {
			t.Fatalf("after a refused start of %s the instance is %s", tc.instanceType, got.State.Name)
		}
	}
	// Back to a type the zone can run: the start succeeds.
	if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id), InstanceType: &types.AttributeValue{Value: aws.String("t3.micro")},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StartInstances(simtest.Ctx(t), &ec2.StartInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatalf("start of t3.micro: %v", err)
	}
	if err := ec2.NewInstanceRunningWaiter(c, runOpts).Wait(simtest.Ctx(t), ids, 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

// TestRunInstancesLaunchesWhatCapacityAllowsBetweenMinCountAndMaxCount: EC2 launches
// the largest number it can from MinCount up to MaxCount, each with its launch
// index, and nothing (InsufficientInstanceCapacity) when it cannot launch MinCount.
func TestRunInstancesLaunchesWhatCapacityAllowsBetweenMinCountAndMaxCount(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 92})
	sim.SetLaunchCapacity(3)
	in := basicRun()
	in.MinCount, in.MaxCount = aws.Int32(1), aws.Int32(5)
	out, err := noRetry(c).RunInstances(simtest.Ctx(t), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Instances) != 3 || aws.ToInt32(out.Instances[2].AmiLaunchIndex) != 2 {
		t.Fatalf("%d instances launched of 5 asked with capacity for 3, want 3 with indexes 0 to 2", len(out.Instances))
	}
	in.MinCount, in.MaxCount = aws.Int32(4), aws.Int32(5)
	in.ClientToken = aws.String("another")
	_, err = noRetry(c).RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InsufficientInstanceCapacity")
	if got := len(sim.Instances()); got != 3 {
		t.Errorf("%d instances after a refused launch, want the first 3", got)
	}
}
