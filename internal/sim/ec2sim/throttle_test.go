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

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// The EC2 Developer Guide ("Request throttling for the Amazon EC2 API"): each API has
// its own token bucket per account and Region; an empty bucket fails the call with
// RequestLimitExceeded while other APIs are unaffected; buckets refill at a fixed
// rate up to their capacity; RunInstances, StartInstances, StopInstances and
// TerminateInstances also spend one resource token per instance.

// throttledEnv is an emulator enforcing the documented limits on a fake clock, and a
// client that does not retry, so that every refusal is seen.
func throttledEnv(t *testing.T) (*Sim, *ec2.Client, *simtest.Clock) {
	t.Helper()
	clock := newFakeClock()
	limits := ec2limits.Documented()
	sim := New(Config{Now: clock.Now, Throttle: &limits})
	client := newClient(t, sim)
	return sim, ec2.New(client.Options(), func(o *ec2.Options) { o.RetryMaxAttempts = 1 }), clock
}

func TestThrottleRunInstancesHasABucketOfFiveRefilledTwoPerSecond(t *testing.T) {
	sim, c, clock := throttledEnv(t)
	for i := range 5 {
		if _, err := c.RunInstances(simtest.Ctx(t), basicRun()); err != nil {
			t.Fatalf("launch %d of a full bucket: %v", i+1, err)
		}
	}
	_, err := c.RunInstances(simtest.Ctx(t), basicRun())
	simtest.WantCode(t, err, "RequestLimitExceeded")
	// Other APIs have their own buckets.
	if _, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{}); err != nil {
		t.Fatalf("DescribeInstances was throttled by RunInstances' bucket: %v", err)
	}
	clock.Advance(500 * time.Millisecond)
	if _, err := c.RunInstances(simtest.Ctx(t), basicRun()); err != nil {
		t.Fatalf("one token refills in half a second at 2/s: %v", err)
	}
	_, err = c.RunInstances(simtest.Ctx(t), basicRun())
	simtest.WantCode(t, err, "RequestLimitExceeded")
	if got := sim.ThrottledCalls()["RunInstances"]; got != 2 {
		t.Errorf("ThrottledCalls counts %d RunInstances refusals, want 2", got)
	}
	if n := len(sim.Instances()); n != 6 {
		t.Errorf("%d instances exist; refused calls must launch nothing", n)
	}
}

func TestThrottleUnfilteredDescribeInstancesHasTheSmallerBucket(t *testing.T) {
	_, c, clock := throttledEnv(t)
	for i := range 50 {
		if _, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{}); err != nil {
			t.Fatalf("unfiltered describe %d: %v", i+1, err)
		}
	}
	_, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{})
	simtest.WantCode(t, err, "RequestLimitExceeded")
	// A filtered describe draws from the non-mutating bucket of 100.
	filtered := &ec2.DescribeInstancesInput{Filters: []types.Filter{{Name: aws.String("instance-state-name"), Values: []string{"running"}}}}
	for i := range 100 {
		if _, err := c.DescribeInstances(simtest.Ctx(t), filtered); err != nil {
			t.Fatalf("filtered describe %d: %v", i+1, err)
		}
	}
	_, err = c.DescribeInstances(simtest.Ctx(t), filtered)
	simtest.WantCode(t, err, "RequestLimitExceeded")
	clock.Advance(time.Second)
	for i := range 10 {
		if _, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{}); err != nil {
			t.Fatalf("unfiltered describe %d after a second at 10/s: %v", i+1, err)
		}
	}
	_, err = c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{})
	simtest.WantCode(t, err, "RequestLimitExceeded")
}

func TestThrottleTerminateInstancesSpendsOneResourceTokenPerInstance(t *testing.T) {
	sim, c, clock := throttledEnv(t)
	var ids []string
	// Launch 1000 instances in batches the RunInstances buckets allow.
	for len(ids) < 1000 {
		in := basicRun()
		in.MinCount, in.MaxCount = aws.Int32(200), aws.Int32(200)
		clock.Advance(200 * time.Second) // refill both RunInstances buckets
		out, err := c.RunInstances(simtest.Ctx(t), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range out.Instances {
			ids = append(ids, *i.InstanceId)
		}
	}
	// 1000 instances in one call empty the resource bucket (1000, refilled 20/s)...
	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: ids[:1000]}); err != nil {
		t.Fatalf("terminating 1000 instances in one call: %v", err)
	}
	// ...so a second call for one more instance must wait for a refill, although the
	// request bucket (100) has plenty left.
	more, err := c.RunInstances(simtest.Ctx(t), basicRun())
	if err != nil {
		t.Fatal(err)
	}
	one := []string{*more.Instances[0].InstanceId}
	_, err = c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: one})
	simtest.WantCode(t, err, "RequestLimitExceeded")
	if s, _ := sim.Instance(one[0]); s.State != StateRunning && s.State != StatePending {
		t.Fatalf("a refused termination changed the instance: %s", s.State)
	}
	clock.Advance(100 * time.Millisecond) // 2 resource tokens at 20/s
	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: one}); err != nil {
		t.Fatalf("after a refill: %v", err)
	}
}

func TestWithoutThrottleConfigNothingIsRefused(t *testing.T) {
	sim, c := newEnv(t, Config{})
	for range 20 {
		if _, err := c.RunInstances(simtest.Ctx(t), basicRun()); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(sim.ThrottledCalls()); n != 0 {
		t.Errorf("refusals without a throttle config: %v", sim.ThrottledCalls())
	}
}
