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

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// TestARefusalAfterALostAnswerIsNotARefusalOutright drives RunInstances through the
// SDK's retries against the emulator's faults, applied in order: what the last attempt
// was told decides the error's kind, but only answers at every attempt make it proof
// that nothing was launched.
func TestARefusalAfterALostAnswerIsNotARefusalOutright(t *testing.T) {
	authFailure := ec2sim.Fault{Operation: "RunInstances", Code: "AuthFailure", HTTPStatus: 401,
		Message: "AWS was not able to validate the provided access credentials"}
	for _, tc := range []struct {
		name      string
		first     *ec2sim.Fault
		instances int
		outright  bool
	}{
		{"refused at once", nil, 0, true},
		{"refused after a throttle", &ec2sim.Fault{Operation: "RunInstances", Code: "RequestLimitExceeded", Times: 1}, 0, true},
		{"refused after a lost answer", &ec2sim.Fault{Operation: "RunInstances", Code: "InternalError", HTTPStatus: 500, AfterEffect: true, Times: 1}, 1, false},
		{"refused after a server error", &ec2sim.Fault{Operation: "RunInstances", Code: "InternalError", HTTPStatus: 500, Times: 1}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{MaxAttempts: 3})
			if tc.first != nil {
				e.sim.InjectFault(*tc.first)
			}
			e.sim.InjectFault(authFailure)
			_, err := e.client.RunInstance(context.Background(), basicLaunch("refused-"+tc.name[:5]))
			if awserrors.KindOf(err) != awserrors.KindAuth {
				t.Fatalf("error %v of kind %v, want the last attempt's AuthFailure", err, awserrors.KindOf(err))
			}
			if got := awserrors.RefusedOutright(err); got != tc.outright {
				t.Errorf("RefusedOutright = %v, want %v", got, tc.outright)
			}
			if n := len(e.sim.Instances()); n != tc.instances {
				t.Errorf("%d instances, want %d", n, tc.instances)
			}
		})
	}
}
