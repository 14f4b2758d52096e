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

// TestEmulatedErrorsAreClassified drives real error responses through the SDK and
// checks the kind each one gets, so the classifier is tested on what the SDK really
// returns rather than on hand-built errors.
func TestEmulatedErrorsAreClassified(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(e *simEnv) (remove func())
		call     func(ctx context.Context, e *simEnv) error
		wantKind awserrors.Kind
		wantCode string
	}{
		{
			name:     "a malformed AMI is invalid input",
			call:     launchWith(func(r *LaunchRequest) { r.ImageID = "ami-nothex!" }),
			wantKind: awserrors.KindInvalidInput, wantCode: "InvalidAMIID.Malformed",
		},
		{
			name:     "an unknown AMI is invalid input",
			call:     launchWith(func(r *LaunchRequest) { r.ImageID = "ami-0000000000000dead" }),
			wantKind: awserrors.KindInvalidInput, wantCode: "InvalidAMIID.NotFound",
		},
		{
			name:     "an unknown subnet is invalid input",
			call:     launchWith(func(r *LaunchRequest) { r.SubnetID = "subnet-0000000000000dead" }),
			wantKind: awserrors.KindInvalidInput, wantCode: "InvalidSubnetID.NotFound",
		},
		{
			name:     "an unknown security group is invalid input",
			call:     launchWith(func(r *LaunchRequest) { r.SecurityGroupIDs = []string{"sg-0000000000000dead"} }),
			wantKind: awserrors.KindInvalidInput, wantCode: "InvalidGroup.NotFound",
		},
		{
			name:     "an unknown instance type is invalid input",
			call:     launchWith(func(r *LaunchRequest) { r.InstanceType = "t3.gigantic" }),
			wantKind: awserrors.KindInvalidInput,
		},
		{
			name:     "an unknown instance ID is not found",
			call:     func(ctx context.Context, e *simEnv) error { return e.client.StopInstance(ctx, "i-0000000000000dead") },
			wantKind: awserrors.KindNotFound, wantCode: "InvalidInstanceID.NotFound",
		},
		{
			name: "changing the type of a running instance is an incorrect state",
			call: func(ctx context.Context, e *simEnv) error {
				inst := e.launch(t, "state-0")
				e.waitState(t, inst.ID, StateRunning)
				return e.client.ModifyInstanceType(ctx, inst.ID, "t3.small")
			},
			wantKind: awserrors.KindIncorrectState, wantCode: "IncorrectInstanceState",
		},
		{
			name: "terminating a protected instance is terminal",
			call: func(ctx context.Context, e *simEnv) error {
				req := basicLaunch("protected-0")
				req.DisableAPITermination = true
				inst, err := e.client.RunInstance(ctx, req)
				if err != nil {
					return err
				}
				_, err = e.client.TerminateInstance(ctx, inst.ID)
				return err
			},
			wantKind: awserrors.KindTerminal, wantCode: "OperationNotPermitted",
		},
		{
			name: "reusing a token with other parameters is an idempotency conflict",
			call: func(ctx context.Context, e *simEnv) error {
				e.launch(t, "reused-0")
				req := basicLaunch("reused-0")
				req.InstanceType = "t3.large"
				_, err := e.client.RunInstance(ctx, req)
				return err
			},
			wantKind: awserrors.KindIdempotencyConflict, wantCode: "IdempotentParameterMismatch",
		},
		{
			name:     "AuthFailure is an auth error",
			setup:    fault(ec2sim.Fault{Operation: "RunInstances", Code: "AuthFailure", HTTPStatus: 401}),
			call:     launchWith(nil),
			wantKind: awserrors.KindAuth, wantCode: "AuthFailure",
		},
		{
			name:     "UnauthorizedOperation is an auth error",
			setup:    fault(ec2sim.Fault{Operation: "RunInstances", Code: "UnauthorizedOperation", HTTPStatus: 403}),
			call:     launchWith(nil),
			wantKind: awserrors.KindAuth, wantCode: "UnauthorizedOperation",
		},
		{
			name:     "InsufficientInstanceCapacity is a capacity error",
			setup:    fault(ec2sim.Fault{Operation: "RunInstances", Code: "InsufficientInstanceCapacity"}),
			call:     launchWith(nil),
			wantKind: awserrors.KindCapacity, wantCode: "InsufficientInstanceCapacity",
		},
		{
			name:     "a lasting 500 is throttled once the retries are spent",
			setup:    fault(ec2sim.Fault{Operation: "RunInstances", HTTPStatus: 500}),
			call:     launchWith(nil),
			wantKind: awserrors.KindThrottled, wantCode: "InternalError",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{MaxAttempts: 3})
			if tt.setup != nil {
				defer tt.setup(e)()
			}
			err := tt.call(context.Background(), e)
			t.Logf("%s: %s", awserrors.CodeOf(err), errMessage(err))
			if awserrors.KindOf(err) != tt.wantKind {
				t.Fatalf("got %v (kind %v), want kind %v", err, awserrors.KindOf(err), tt.wantKind)
			}
			if tt.wantCode != "" && awserrors.CodeOf(err) != tt.wantCode {
				t.Errorf("code = %q, want %q", awserrors.CodeOf(err), tt.wantCode)
			}
			var e2 *awserrors.Error
			if asError(err, &e2); e2.Message == "" || e2.Operation == "" {
				t.Errorf("AWS's message or operation was lost: %+v", e2)
			}
		})
	}
}

func TestCapacityErrorsAreNotRetriedByTheSDK(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{MaxAttempts: 5})
	defer e.sim.InjectFault(ec2sim.Fault{Operation: "RunInstances", Code: "InsufficientInstanceCapacity"})()
	_, err := e.client.RunInstance(context.Background(), basicLaunch("ice-0"))
	if awserrors.KindOf(err) != awserrors.KindCapacity {
		t.Fatalf("got %v", err)
	}
	if n := e.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("RunInstances sent %d times, want 1", n)
	}
}

func TestServerErrorsAreRetriedUpToMaxAttempts(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{MaxAttempts: 3})
	defer e.sim.InjectFault(ec2sim.Fault{Operation: "RunInstances", HTTPStatus: 500})()
	_, _ = e.client.RunInstance(context.Background(), basicLaunch("retry-0"))
	if n := e.sim.Calls("RunInstances"); n != 3 {
		t.Errorf("RunInstances sent %d times, want 3", n)
	}
	if n := e.recorder.Retries("RunInstances", "InternalError"); n != 2 {
		t.Errorf("recorded %d retries, want 2", n)
	}
}

func TestUserDataNeverAppearsInErrors(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{MaxAttempts: 1})
	const secret = "password=hunter2"
	defer e.sim.InjectFault(ec2sim.Fault{Operation: "RunInstances", Code: "InvalidParameterValue",
		Message: "Invalid user data: " + secret})()
	req := basicLaunch("secret-0")
	req.UserData = secret
	_, err := e.client.RunInstance(context.Background(), req)
	if err == nil || contains(err.Error(), secret) {
		t.Errorf("error leaks user data: %v", err)
	}
}

// launchWith returns a call that launches basicLaunch modified by mod.
func launchWith(mod func(*LaunchRequest)) func(ctx context.Context, e *simEnv) error {
	return func(ctx context.Context, e *simEnv) error {
		req := basicLaunch("err-0")
		if mod != nil {
			mod(&req)
		}
		_, err := e.client.RunInstance(ctx, req)
		return err
	}
}

// fault returns a setup step that injects f.
func fault(f ec2sim.Fault) func(e *simEnv) func() {
	return func(e *simEnv) func() { return e.sim.InjectFault(f) }
}
