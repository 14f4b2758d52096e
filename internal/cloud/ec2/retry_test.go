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
	"net/http"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func TestThrottlingStormIsRetriedToSuccess(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{MaxAttempts: 5})
	defer e.sim.InjectFault(ec2sim.Fault{Operation: "RunInstances", Code: "RequestLimitExceeded", HTTPStatus: 503, Times: 3})()

	inst, err := e.client.RunInstance(context.Background(), basicLaunch("storm-0"))
	if err != nil {
		t.Fatalf("RunInstance after 3 throttles: %v", err)
	}
	if inst.ID == "" {
		t.Fatal("no instance")
	}
	if n := e.sim.Calls("RunInstances"); n != 4 {
		t.Errorf("RunInstances sent %d times, want 4", n)
	}
	if n := e.recorder.Retries("RunInstances", "RequestLimitExceeded"); n != 3 {
		t.Errorf("recorded %d throttle retries, want 3", n)
	}
	if n, ok := e.recorder.Calls("RunInstances", "RequestLimitExceeded"), e.recorder.Calls("RunInstances", ""); n != 3 || ok != 1 {
		t.Errorf("recorded %d throttled and %d successful attempts, want 3 and 1", n, ok)
	}
	if n := len(e.sim.Instances()); n != 1 {
		t.Errorf("%d instances exist, want 1", n)
	}
}

// TestRunInstanceRetriedAfterTimeoutCreatesNoDuplicate loses the response of a
// RunInstances call that took effect, then launches again with the same token, as
// the controller does after a timeout or a crash.
func TestRunInstanceRetriedAfterTimeoutCreatesNoDuplicate(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{MaxAttempts: 1})
	gate := e.sim.BlockResponse("RunInstances")

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := e.client.RunInstance(ctx, basicLaunch("lost-0"))
	if err == nil {
		t.Fatal("the first launch returned although its response was withheld")
	}
	if n := len(e.sim.Instances()); n != 1 {
		t.Fatalf("the first launch created %d instances, want 1 (it took effect)", n)
	}
	gate.Release()

	inst := e.launch(t, "lost-0")
	all := e.sim.Instances()
	if len(all) != 1 || all[0].ID != inst.ID {
		t.Errorf("instances after the retry: %d (first %s), want exactly %s", len(all), all[0].ID, inst.ID)
	}
}

// TestSDKRetryAfterHTTPTimeoutCreatesNoDuplicate lets the SDK itself retry a
// RunInstances attempt whose response was lost to the HTTP client's timeout: the
// retry carries the same client token, so EC2 answers with the first instance.
func TestSDKRetryAfterHTTPTimeoutCreatesNoDuplicate(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{
		MaxAttempts: 3,
		HTTPClient:  &http.Client{Timeout: 200 * time.Millisecond},
	})
	gate := e.sim.BlockResponse("RunInstances")
	go func() {
		// Let the first attempt go through once the client has given up on it.
		<-gate.Arrived()
		for {
			for _, r := range e.sim.Requests() {
				if r.Operation == "RunInstances" {
					gate.Release()
					return
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()

	inst := e.launch(t, "lost-1")
	if n := e.sim.Calls("RunInstances"); n != 2 {
		t.Errorf("RunInstances sent %d times, want 2 (one lost, one retried)", n)
	}
	all := e.sim.Instances()
	if len(all) != 1 || all[0].ID != inst.ID {
		t.Errorf("%d instances exist, want exactly %s", len(all), inst.ID)
	}
	if n := e.recorder.Retries("RunInstances", awserrors.CodeTransport); n != 1 {
		t.Errorf("recorded %d transport retries, want 1", n)
	}
}
