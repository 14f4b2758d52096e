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
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

func TestThrottlingBurstIsRetriedByTheSDK(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 50})
	sim.InjectFault(Fault{Operation: "DescribeInstances", Code: "RequestLimitExceeded", Times: 2})
	if _, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{}); err != nil {
		t.Fatalf("describe after throttling: %v", err)
	}
	if n := sim.Calls("DescribeInstances"); n != 3 {
		t.Fatalf("DescribeInstances calls = %d, want 3 (two throttled, one success)", n)
	}
	var codes []string
	for _, r := range sim.Requests() {
		codes = append(codes, r.ErrorCode)
	}
	if len(codes) != 3 || codes[0] != "RequestLimitExceeded" || codes[1] != "RequestLimitExceeded" || codes[2] != "" {
		t.Fatalf("logged codes = %q", codes)
	}
	if r := sim.Requests()[0]; r.HTTPStatus != 503 || r.Operation != "DescribeInstances" {
		t.Fatalf("first request = %+v", r)
	}
}

func TestInjectedCapacityErrorsFailUntilRemoved(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 51})
	remove := sim.InjectFault(Fault{Operation: "RunInstances", Code: "InsufficientInstanceCapacity"})
	c2 := ec2.NewFromConfig(aws.Config{}, func(o *ec2.Options) { *o = c.Options(); o.RetryMaxAttempts = 1 })
	_, err := c2.RunInstances(simtest.Ctx(t), basicRun())
	simtest.WantCode(t, err, "InsufficientInstanceCapacity")
	remove()
	runOne(t, c2, basicRun())
}

func TestProbabilisticFaultsAreReproducibleForASeed(t *testing.T) {
	pattern := func() []bool {
		sim, c := newEnv(t, Config{Seed: 52})
		// A client error is not retried, so each call shows one roll of the dice.
		sim.InjectFault(Fault{Operation: "DescribeInstances", Code: "InvalidParameterValue", Probability: 0.5})
		var out []bool
		for i := 0; i < 20; i++ {
			_, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{})
			out = append(out, simtest.ErrCode(err) == "InvalidParameterValue")
		}
		return out
	}
	a, b := pattern(), pattern()
	fired := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("patterns differ: %v vs %v", a, b)
		}
		if a[i] {
			fired++
		}
	}
	if fired == 0 || fired == 20 {
		t.Fatalf("probability 0.5 fired %d/20 times", fired)
	}
}

func TestBlockHoldsCallsUnprocessedUntilRelease(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 53})
	gate := sim.Block("RunInstances")
	done := make(chan error, 1)
	go func() {
		_, err := c.RunInstances(simtest.Ctx(t), basicRun())
		done <- err
	}()
	select {
	case <-gate.Arrived():
	case <-time.After(5 * time.Second):
		t.Fatal("call never reached the gate")
	}
	if n := len(sim.Instances()); n != 0 {
		t.Fatalf("%d instances exist while the call is held", n)
	}
	gate.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(sim.Instances()); n != 1 {
		t.Fatalf("%d instances after release, want 1", n)
	}
	runOne(t, c, basicRun()) // later calls pass straight through
}

func TestBlockResponseSimulatesASuccessfulLaunchWhoseResponseIsLost(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 54})
	gate := sim.BlockResponse("RunInstances")
	in := basicRun()
	in.ClientToken = aws.String("lost-response")
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := c.RunInstances(short, in)
	if err == nil {
		t.Fatal("RunInstances answered although its response was withheld")
	}
	if n := len(sim.Instances()); n != 1 {
		t.Fatalf("%d instances exist, want the 1 launched by the timed-out call", n)
	}
	gate.Release()
	// The operator's retry with the same token finds the existing instance.
	id := runOne(t, c, in)
	if recs := sim.Instances(); len(recs) != 1 || recs[0].ID != id {
		t.Fatalf("retry launched a second instance: %+v", recs)
	}
}

func TestLatencyFaultsDelayResponses(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 55})
	sim.InjectFault(Fault{Operation: "DescribeInstances", Latency: 100 * time.Millisecond, Times: 1})
	start := time.Now()
	if _, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Fatalf("answered after %v, want at least 100ms", d)
	}
}

func TestAnAfterEffectFaultCarriesTheCallOutAndAnswersTheError(t *testing.T) {
	sim, c := newEnv(t, Config{})
	sim.InjectFault(Fault{Operation: "RunInstances", Code: "InternalError", HTTPStatus: 500, AfterEffect: true, Times: 1})
	client := ec2.New(c.Options(), func(o *ec2.Options) { o.RetryMaxAttempts = 1 })
	in := basicRun()
	in.ClientToken = aws.String("lost-answer")
	_, err := client.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InternalError")
	if n := len(sim.Instances()); n != 1 {
		t.Fatalf("%d instances after a launch whose answer was lost, want the one launched", n)
	}
	// The retry with the same token is answered with the same instance (idempotency).
	out, err := client.RunInstances(simtest.Ctx(t), in)
	if err != nil || len(sim.Instances()) != 1 || *out.Instances[0].InstanceId != sim.Instances()[0].ID {
		t.Fatalf("the retry launched again or failed: %v, %d instances", err, len(sim.Instances()))
	}
}

func TestJitterAddsARandomDelayBoundedByIt(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 5})
	sim.InjectFault(Fault{Operation: "DescribeInstances", Jitter: 200 * time.Millisecond})
	for range 3 {
		start := time.Now()
		if _, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("a call with up to 200ms of jitter took %s", d)
		}
	}
}

// TestFaultsApplyInOrderOneCallAfterAnother: a fault limited to one call decides that
// call, and the next fault decides the next one, so a test can build the sequence a
// client sees when a launch's answer is lost and its retry is refused.
func TestFaultsApplyInOrderOneCallAfterAnother(t *testing.T) {
	sim, c := newEnv(t, Config{})
	sim.InjectFault(Fault{Operation: "RunInstances", Code: "InternalError", HTTPStatus: 500, AfterEffect: true, Times: 1})
	sim.InjectFault(Fault{Operation: "RunInstances", Code: "AuthFailure", HTTPStatus: 401, Times: 1})
	client := ec2.New(c.Options(), func(o *ec2.Options) { o.RetryMaxAttempts = 1 })
	in := basicRun()
	in.ClientToken = aws.String("in-order")
	_, err := client.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InternalError")
	_, err = client.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "AuthFailure")
	out, err := client.RunInstances(simtest.Ctx(t), in)
	if err != nil || len(sim.Instances()) != 1 || *out.Instances[0].InstanceId != sim.Instances()[0].ID {
		t.Fatalf("the third call, with both faults spent: %v, %d instances", err, len(sim.Instances()))
	}
}
