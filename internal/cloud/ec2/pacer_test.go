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

package ec2

import (
	"context"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// pacedEnv is an emulator that enforces limits like EC2 and a client pacing itself to
// the same limits.
func pacedEnv(t *testing.T, spec string) *simEnv {
	t.Helper()
	limits, err := ec2limits.Documented().Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return newSimEnv(t, ec2sim.Config{Seed: 1, Throttle: &limits}, Options{Limits: &limits, MaxAttempts: 1, MaxPacingWait: 5 * time.Second})
}

func TestThePacedClientStaysUnderEC2sDocumentedBuckets(t *testing.T) {
	e := pacedEnv(t, "")
	ctx := context.Background()
	// Twelve launches: the five-token bucket, then one every half second.
	var ids []string
	for i := range 12 {
		inst, err := e.client.RunInstance(ctx, basicLaunch("paced-"+string(rune('a'+i))))
		if err != nil {
			t.Fatalf("launch %d: %v", i+1, err)
		}
		ids = append(ids, inst.ID)
	}
	// Sixty unfiltered describes: the fifty-token bucket, then ten a second.
	for range 60 {
		if _, err := e.client.describeInstanceNow(ctx, ids[0]); err != nil {
			t.Fatal(err)
		}
	}
	if refused := e.sim.ThrottledCalls(); len(refused) != 0 {
		t.Errorf("EC2 refused calls the client should have paced: %v", refused)
	}
}

func TestACallThatWouldWaitLongerThanAllowedIsNotSentAndSaysWhen(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{Limits: mustLimits(t, "RunInstances=1/0.1"), MaxAttempts: 1})
	ctx := context.Background()
	if _, err := e.client.RunInstance(ctx, basicLaunch("first")); err != nil {
		t.Fatal(err)
	}
	if d := e.client.LaunchTurn("second", "ns"); d < 9*time.Second {
		t.Errorf("LaunchTurn %s, want about the 10 s one token takes", d)
	}
	_, err := e.client.RunInstance(ctx, basicLaunch("second"))
	if awserrors.CodeOf(err) != awserrors.CodeClientRateLimited || awserrors.KindOf(err) != awserrors.KindThrottled || awserrors.RetryAfterOf(err) < 9*time.Second {
		t.Fatalf("got %v (retry after %s), want ClientRateLimited with the wait", err, awserrors.RetryAfterOf(err))
	}
	if n := e.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("the paced call reached EC2 (%d RunInstances)", n)
	}
	// Another API has its own budget.
	if _, err := e.client.FindInstances(ctx, InstanceFilter{ClientToken: "first"}); err != nil {
		t.Errorf("DescribeInstances waited for RunInstances' budget: %v", err)
	}
}

func TestTerminationsSpendResourceTokensPerInstance(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{Limits: mustLimits(t, "TerminateInstances.resources=2/0.1"), MaxAttempts: 1})
	ctx := context.Background()
	a, b, c := e.launch(t, "t-a"), e.launch(t, "t-b"), e.launch(t, "t-c")
	if _, err := e.client.TerminateInstance(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.TerminateInstance(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.TerminateInstance(ctx, c.ID); awserrors.CodeOf(err) != awserrors.CodeClientRateLimited {
		t.Errorf("a third instance with two resource tokens: %v, want ClientRateLimited", err)
	}
}

func mustLimits(t *testing.T, spec string) *ec2limits.Limits {
	t.Helper()
	l, err := ec2limits.Documented().Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return &l
}
