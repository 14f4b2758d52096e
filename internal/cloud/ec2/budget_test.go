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

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func TestEC2ThrottlingOneAPISlowsOnlyThatAPI(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{Limits: mustLimits(t, ""), MaxAttempts: 3})
	ctx := context.Background()
	inst := e.launch(t, "throttled-describes")
	e.sim.InjectFault(ec2sim.Fault{Operation: "DescribeInstances", Code: "RequestLimitExceeded", Times: 1})
	if _, err := e.client.describeInstanceNow(ctx, inst.ID); err != nil {
		t.Fatalf("a describe throttled once was not retried to success: %v", err)
	}
	current, full, ok := e.client.pacer.RequestRate(ec2limits.RequestKey("DescribeInstances", false))
	if !ok {
		t.Fatal("no DescribeInstances bucket")
	}
	if current >= full {
		t.Errorf("DescribeInstances refills at %v after EC2 throttled it, want less than %v", current, full)
	}
	if current, full, ok := e.client.pacer.RequestRate("RunInstances"); !ok || current != full {
		t.Errorf("RunInstances' budget changed when only DescribeInstances was throttled: %v of %v (%v)", current, full, ok)
	}
}
