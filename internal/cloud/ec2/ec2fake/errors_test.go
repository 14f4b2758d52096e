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

package ec2fake_test

import (
	"context"
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/ec2fake"
)

// launchReq is a valid launch against the fake's default resources.
func launchReq(token string) ec2.LaunchRequest {
	return ec2.LaunchRequest{
		ClientToken:      token,
		ImageID:          ec2fake.DefaultImageID,
		InstanceType:     "t3.micro",
		SubnetID:         ec2fake.DefaultSubnetID,
		SecurityGroupIDs: []string{ec2fake.DefaultSecurityGroupID},
		Tags:             ec2.DesiredTags(nil, "default", "web", "uid-"+token, "cluster-1"),
	}
}

// mustLaunch launches and, when state is not pending, moves the instance there.
func mustLaunch(t *testing.T, f *ec2fake.Fake, req ec2.LaunchRequest, state string) *ec2.Instance {
	t.Helper()
	inst, err := f.RunInstance(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	f.SetState(inst.ID, state)
	return inst
}

// predicates are the questions the controller asks of an EC2 error.
var predicates = map[string]func(error) bool{
	"IsNotFound":                 awserrors.IsNotFound,
	"TokenOfTerminatedInstance":  awserrors.TokenOfTerminatedInstance,
	"TerminationProtected":       awserrors.TerminationProtected,
	"AddressNotFound":            awserrors.AddressNotFound,
	"AddressAssociatedElsewhere": awserrors.AddressAssociatedElsewhere,
	"IsTagLimitExceeded":         awserrors.IsTagLimitExceeded,
	"RefusedOutright":            awserrors.RefusedOutright,
}

// TestErrorsAnswerThePredicatesAsTheRealClientDoes drives the fake into each refusal
// the controller's rules depend on. The kinds, codes and operations are those the real
// client returns against the emulator for the same calls (internal/cloud/ec2's
// errors_sim_test.go and storage_network_test.go pin most; the others were read off a
// run of the same calls against the emulator), so a rule tested with the fake sees
// the error it will see in production, and every predicate answers as it would.
func TestErrorsAnswerThePredicatesAsTheRealClientDoes(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		call     func(t *testing.T, f *ec2fake.Fake) error
		wantKind awserrors.Kind
		wantCode string
		wantOp   string
		// holds are the predicates that must be true; every other one must be false.
		holds []string
	}{
		{
			name:     "an unknown instance is not found",
			call:     func(_ *testing.T, f *ec2fake.Fake) error { return f.StopInstance(ctx, "i-0000000000000dead") },
			wantKind: awserrors.KindNotFound, wantCode: "InvalidInstanceID.NotFound", wantOp: "StopInstances",
			holds: []string{"IsNotFound"},
		},
		{
			name: "looking up an unknown instance is not found",
			call: func(_ *testing.T, f *ec2fake.Fake) error {
				_, err := f.GetInstance(ctx, "i-0000000000000dead")
				return err
			},
			wantKind: awserrors.KindNotFound, wantCode: "InvalidInstanceID.NotFound", wantOp: "DescribeInstances",
			holds: []string{"IsNotFound"},
		},
		{
			name: "an unknown AMI is invalid input",
			call: func(_ *testing.T, f *ec2fake.Fake) error {
				req := launchReq("ami-0")
				req.ImageID = "ami-0000000000000dead"
				_, err := f.RunInstance(ctx, req)
				return err
			},
			wantKind: awserrors.KindInvalidInput, wantCode: "InvalidAMIID.NotFound", wantOp: "RunInstances",
			holds: []string{"RefusedOutright"},
		},
		{
			name: "an unknown subnet is invalid input",
			call: func(_ *testing.T, f *ec2fake.Fake) error {
				req := launchReq("subnet-0")
				req.SubnetID = "subnet-0000000000000dead"
				_, err := f.RunInstance(ctx, req)
				return err
			},
			wantKind: awserrors.KindInvalidInput, wantCode: "InvalidSubnetID.NotFound", wantOp: "RunInstances",
			holds: []string{"RefusedOutright"},
		},
		{
			name: "an unknown security group is invalid input",
			call: func(_ *testing.T, f *ec2fake.Fake) error {
				req := launchReq("sg-0")
				req.SecurityGroupIDs = []string{"sg-0000000000000dead"}
				_, err := f.RunInstance(ctx, req)
				return err
			},
			wantKind: awserrors.KindInvalidInput, wantCode: "InvalidGroup.NotFound", wantOp: "RunInstances",
			holds: []string{"RefusedOutright"},
		},
		{
			name: "an unknown instance type is invalid input",
			call: func(_ *testing.T, f *ec2fake.Fake) error {
				req := launchReq("type-0")
				req.InstanceType = "t3.gigantic"
				_, err := f.RunInstance(ctx, req)
				return err
			},
			wantKind: awserrors.KindInvalidInput, wantCode: "InvalidParameterValue", wantOp: "RunInstances",
			holds: []string{"RefusedOutright"},
		},
		{
			name: "describing an unknown instance type is invalid input",
			call: func(_ *testing.T, f *ec2fake.Fake) error {
				_, err := f.InstanceType(ctx, "t3.gigantic")
				return err
			},
			wantKind: awserrors.KindInvalidInput, wantCode: "InvalidInstanceType", wantOp: "DescribeInstanceTypes",
			holds: []string{"RefusedOutright"},
		},
		{
			name: "describing an unknown image is invalid input",
			call: func(_ *testing.T, f *ec2fake.Fake) error {
				_, err := f.DescribeImage(ctx, "ami-0000000000000dead")
				return err
			},
			wantKind: awserrors.KindInvalidInput, wantCode: "InvalidAMIID.NotFound", wantOp: "DescribeImages",
			holds: []string{"RefusedOutright"},
		},
		{
			name: "hibernating an instance not launched for it is terminal",
			call: func(t *testing.T, f *ec2fake.Fake) error {
				inst := mustLaunch(t, f, launchReq("hib-0"), ec2.StateRunning)
				return f.HibernateInstance(ctx, inst.ID)
			},
			wantKind: awserrors.KindTerminal, wantCode: "UnsupportedHibernationConfiguration", wantOp: "StopInstances",
		},
		{
			name: "changing the CPU options of a running instance is an incorrect state",
			call: func(t *testing.T, f *ec2fake.Fake) error {
				inst := mustLaunch(t, f, launchReq("cpu-0"), ec2.StateRunning)
				return f.SetCPUOptions(ctx, inst.ID, ec2.CPUOptions{CoreCount: 1})
			},
			wantKind: awserrors.KindIncorrectState, wantCode: "IncorrectInstanceState", wantOp: "ModifyInstanceCpuOptions",
		},
		{
			name: "starting a terminating instance is an incorrect state",
			call: func(t *testing.T, f *ec2fake.Fake) error {
				inst := mustLaunch(t, f, launchReq("start-0"), ec2.StateShuttingDown)
				return f.StartInstance(ctx, inst.ID)
			},
			wantKind: awserrors.KindIncorrectState, wantCode: "IncorrectInstanceState", wantOp: "StartInstances",
		},
		{
			name: "changing an attribute of a terminating instance is an incorrect state",
			call: func(t *testing.T, f *ec2fake.Fake) error {
				inst := mustLaunch(t, f, launchReq("attr-0"), ec2.StateShuttingDown)
				return f.ModifyTerminationProtection(ctx, inst.ID, true)
			},
			wantKind: awserrors.KindIncorrectState, wantCode: "IncorrectInstanceState", wantOp: "ModifyInstanceAttribute",
		},
		{
			name: "changing the type of a running instance is an incorrect state",
			call: func(t *testing.T, f *ec2fake.Fake) error {
				inst := mustLaunch(t, f, launchReq("state-0"), ec2.StateRunning)
				return f.ModifyInstanceType(ctx, inst.ID, "t3.small")
			},
			wantKind: awserrors.KindIncorrectState, wantCode: "IncorrectInstanceState", wantOp: "ModifyInstanceAttribute",
		},
		{
			name: "terminating a protected instance is terminal",
			call: func(t *testing.T, f *ec2fake.Fake) error {
				req := launchReq("protected-0")
				req.DisableAPITermination = true
				inst := mustLaunch(t, f, req, ec2.StatePending)
				_, err := f.TerminateInstance(ctx, inst.ID)
				return err
			},
			wantKind: awserrors.KindTerminal, wantCode: "OperationNotPermitted", wantOp: "TerminateInstances",
			holds: []string{"TerminationProtected"},
		},
		{
			name: "reusing a token with other parameters is an idempotency conflict",
			call: func(t *testing.T, f *ec2fake.Fake) error {
				mustLaunch(t, f, launchReq("reused-0"), ec2.StateRunning)
				req := launchReq("reused-0")
				req.InstanceType = "t3.large"
				_, err := f.RunInstance(ctx, req)
				return err
			},
			wantKind: awserrors.KindIdempotencyConflict, wantCode: "IdempotentParameterMismatch", wantOp: "RunInstances",
		},
		{
			name: "reusing the token of a terminated instance is told apart",
			call: func(t *testing.T, f *ec2fake.Fake) error {
				mustLaunch(t, f, launchReq("gone-0"), ec2.StateTerminated)
				_, err := f.RunInstance(ctx, launchReq("gone-0"))
				return err
			},
			wantKind: awserrors.KindIdempotencyConflict, wantCode: "IdempotentInstanceTerminated", wantOp: "RunInstances",
			holds: []string{"TokenOfTerminatedInstance"},
		},
		{
			name: "associating a released address names the allocation",
			call: func(t *testing.T, f *ec2fake.Fake) error {
				inst := mustLaunch(t, f, launchReq("eip-0"), ec2.StateRunning)
				_, err := f.AssociateAddress(ctx, "eipalloc-0000000000000dead", inst.ID, "")
				return err
			},
			wantKind: awserrors.KindInvalidInput, wantCode: "InvalidAllocationID.NotFound", wantOp: "AssociateAddress",
			holds: []string{"AddressNotFound", "RefusedOutright"},
		},
		{
			name: "associating an address associated elsewhere is terminal",
			call: func(t *testing.T, f *ec2fake.Fake) error {
				a := mustLaunch(t, f, launchReq("eip-a"), ec2.StateRunning)
				b := mustLaunch(t, f, launchReq("eip-b"), ec2.StateRunning)
				addr, err := f.AllocateAddress(ctx, "", nil)
				if err != nil {
					return err
				}
				if _, err := f.AssociateAddress(ctx, addr.AllocationID, a.ID, ""); err != nil {
					t.Fatal(err)
				}
				_, err = f.AssociateAddress(ctx, addr.AllocationID, b.ID, "")
				return err
			},
			wantKind: awserrors.KindTerminal, wantCode: "Resource.AlreadyAssociated", wantOp: "AssociateAddress",
			holds: []string{"AddressAssociatedElsewhere"},
		},
		{
			name: "an unknown volume is not found",
			call: func(_ *testing.T, f *ec2fake.Fake) error {
				_, err := f.GetVolumeSize(ctx, "vol-0000000000000dead")
				return err
			},
			wantKind: awserrors.KindNotFound, wantCode: "InvalidVolume.NotFound", wantOp: "DescribeVolumes",
			holds: []string{"IsNotFound"},
		},
		{
			name: "a 51st tag is refused",
			call: func(t *testing.T, f *ec2fake.Fake) error {
				inst := mustLaunch(t, f, launchReq("tags-0"), ec2.StateRunning)
				tags := map[string]string{}
				for i := range 50 {
					tags["k"+string(rune('A'+i))] = "v"
				}
				return f.CreateTags(ctx, []string{inst.ID}, tags)
			},
			wantKind: awserrors.KindInvalidInput, wantCode: "TagLimitExceeded", wantOp: "CreateTags",
			holds: []string{"IsTagLimitExceeded", "RefusedOutright"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(t, ec2fake.New())
			var e *awserrors.Error
			if !asError(err, &e) {
				t.Fatalf("got %v, want an *awserrors.Error", err)
			}
			if e.Kind != tt.wantKind || tt.wantCode != "" && e.Code != tt.wantCode || e.Operation != tt.wantOp {
				t.Errorf("got kind %v code %q operation %q, want kind %v code %q operation %q",
					e.Kind, e.Code, e.Operation, tt.wantKind, tt.wantCode, tt.wantOp)
			}
			if e.Message == "" {
				t.Error("the error has no message")
			}
			for name, p := range predicates {
				want := contains(tt.holds, name)
				if p(err) != want {
					t.Errorf("%s = %v, want %v", name, p(err), want)
				}
			}
		})
	}
}
