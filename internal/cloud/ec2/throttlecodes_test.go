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

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// EC2's own throttle codes, which the SDK's table lacks, are retried by the SDK as
// RequestLimitExceeded is: a call throttled once with each succeeds.
func TestEC2sOwnThrottleCodesAreRetried(t *testing.T) {
	for _, code := range []string{"RequestThrottled", "EC2ThrottledException", "RequestResourceCountExceeded"} {
		t.Run(code, func(t *testing.T) {
			e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{MaxAttempts: 3})
			inst := e.launch(t, "throttled-"+code)
			e.sim.InjectFault(ec2sim.Fault{Operation: "StopInstances", Code: code, HTTPStatus: 400, Times: 1})
			if err := e.client.StopInstance(context.Background(), inst.ID); err != nil {
				t.Fatalf("StopInstances throttled once with %s: %v", code, err)
			}
		})
	}
}
