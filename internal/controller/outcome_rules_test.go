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

package controller

import (
	"errors"
	"strings"
	"testing"
	"time"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/launch"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass/passtest"
)

// pureReconciler is a reconciler for rules that need neither the API server nor EC2.
func pureReconciler() (*EC2InstanceReconciler, *passtest.EventLog) {
	events := &passtest.EventLog{}
	r := &EC2InstanceReconciler{Recorder: events}
	r.defaults()
	return r, events
}

func TestFinishTurnsEveryStepIntoOneResult(t *testing.T) {
	invalid := &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "RunInstances", Code: "InvalidAMIID.NotFound", Message: "The image id '[ami-1]' does not exist"}
	heldBack := &awserrors.Error{Kind: awserrors.KindThrottled, Code: awserrors.CodeClientRateLimited, Message: "held back", RetryAfter: 2 * time.Second}
	testCases := []struct {
		name string
		step pass.Step
		// wantAfter is the requeue's lower bound; wantSpread allows a tenth more.
		wantAfter  time.Duration
		wantSpread bool
		wantAgain  bool
		wantErr    string
		wantReady  string
		wantEvents []string
	}{
		{name: "proceed at the end of a pass comes back only on a change", step: pass.Proceed()},
		{name: "done after a duration", step: pass.DoneAfter(5 * time.Second), wantAfter: 5 * time.Second},
		{name: "a spread wait comes back within a tenth more", step: pass.WaitSpread(10 * time.Second), wantAfter: 10 * time.Second, wantSpread: true},
		{name: "again goes through the per-object backoff", step: pass.Again(), wantAgain: true},
		{name: "an error that is not EC2's goes to controller-runtime as it is", step: pass.Errored(errors.New("writing status: boom")), wantErr: "writing status: boom"},
		{name: "a failure is reported on Ready, as an event, and backs off",
			step: pass.Failed(launch.LaunchAction, invalid), wantErr: "launching an instance: InvalidAMIID.NotFound: The image id '[ami-1]' does not exist",
			wantReady: computev1alpha1.ReasonImageNotFound, wantEvents: []string{computev1alpha1.ReasonImageNotFound}},
		{name: "a call the client's budget held back is no failure, only later",
			step: pass.Failed(launch.LaunchAction, heldBack), wantAfter: 2 * time.Second, wantSpread: true},
		{name: "failures while something still moves come back when it does, without an error",
			step:      pass.Step{Kind: pass.KindFailed, Failures: []pass.Failure{{Action: "changing tags", Err: invalid}}, After: 5 * time.Second},
			wantAfter: 5 * time.Second, wantReady: computev1alpha1.ReasonImageNotFound, wantEvents: []string{computev1alpha1.ReasonImageNotFound}},
		{name: "the earliest of a held-back call and the moving aspect wins",
			step:      pass.Step{Kind: pass.KindFailed, Failures: []pass.Failure{{Action: "changing tags", Err: heldBack}}, After: 5 * time.Second},
			wantAfter: 2 * time.Second, wantSpread: true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			r, events := pureReconciler()
			s := passtest.Scope(r.Recorder)
			res, err := r.finish(s, tc.step)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if res.Requeue != tc.wantAgain { //nolint:staticcheck // the step "again" is exactly Requeue.
				t.Errorf("Requeue %v, want %v", res.Requeue, tc.wantAgain) //nolint:staticcheck
			}
			limit := tc.wantAfter
			if tc.wantSpread {
				limit += tc.wantAfter / 10
			}
			if res.RequeueAfter < tc.wantAfter || res.RequeueAfter > limit {
				t.Errorf("RequeueAfter %s, want %s to %s", res.RequeueAfter, tc.wantAfter, limit)
			}
			ready := s.Condition(computev1alpha1.ConditionReady)
			if (ready == nil) != (tc.wantReady == "") || ready != nil && ready.Reason != tc.wantReady {
				t.Errorf("Ready %+v, want reason %q", ready, tc.wantReady)
			}
			if strings.Join(events.Reasons, ",") != strings.Join(tc.wantEvents, ",") {
				t.Errorf("events %v, want %v", events.Reasons, tc.wantEvents)
			}
		})
	}
}

func TestReasonForNamesTheControllersOwnRefusalsAndEC2Causes(t *testing.T) {
	testCases := []struct {
		err  error
		want string
	}{
		{pass.Refusal(computev1alpha1.ReasonUserDataNotGranted, "", codeUserDataNotGranted, "not granted"), computev1alpha1.ReasonUserDataNotGranted},
		{pass.Refusal(computev1alpha1.ReasonArchitectureMismatch, "DescribeInstanceTypes", launch.CodeArchitectureMismatch, "arm64"), computev1alpha1.ReasonArchitectureMismatch},
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: awserrors.CodeUnknownRegion}, computev1alpha1.ReasonRegionUnknown},
		{&awserrors.Error{Kind: awserrors.KindCapacity, Code: "VcpuLimitExceeded"}, computev1alpha1.ReasonQuotaExceeded},
		// A quota code is only a quota when EC2 classed it as capacity.
		{&awserrors.Error{Kind: awserrors.KindUnknown, Code: "MaxSpotInstanceCountExceeded"}, computev1alpha1.ReasonAWSError},
		{&awserrors.Error{Kind: awserrors.KindTerminal, Code: "Resource.AlreadyAssociated"}, computev1alpha1.ReasonAddressInUse},
		{&awserrors.Error{Kind: awserrors.KindInvalidInput, Code: "InvalidIPAddress.InUse"}, computev1alpha1.ReasonIPAddressInUse},
	}
	for _, tc := range testCases {
		if got := pass.ReasonFor(tc.err); got != tc.want {
			t.Errorf("reasonFor(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
	// The controller's refusals still read as EC2's errors to the EC2 layer's predicates.
	if err := pass.Refusal(computev1alpha1.ReasonUserDataNotFound, "", codeUserDataNotFound, "gone"); awserrors.KindOf(err) != awserrors.KindInvalidInput || awserrors.CodeOf(err) != codeUserDataNotFound {
		t.Errorf("refusal kind %v code %s", awserrors.KindOf(err), awserrors.CodeOf(err))
	}
}

// The failures of a converge pass that still moves something are reported together,
// with what moves, and the object comes back when the move does (converge's own test
// proves that it ends such a pass with this step).
func TestFailuresOfAPassAreReportedTogetherWithWhatStillMoves(t *testing.T) {
	r, events := pureReconciler()
	s := passtest.Scope(r.Recorder)
	s.NotReady(computev1alpha1.ReasonStopping, "stopping instance i-1: desiredState is stopped")
	st := pass.Step{Kind: pass.KindFailed, After: r.PollInterval, Meanwhile: true, Failures: []pass.Failure{
		{Action: "changing tags", Err: &awserrors.Error{Kind: awserrors.KindAuth, Code: "UnauthorizedOperation", Message: "not allowed"}},
		{Action: "changing monitoring", Err: &awserrors.Error{Kind: awserrors.KindThrottled, Code: "RequestLimitExceeded", Message: "slow down"}},
	}}
	res, err := r.finish(s, st)
	if err != nil || res.RequeueAfter != r.PollInterval {
		t.Fatalf("result %+v, %v: want back at the poll interval, no error, while the stop goes on", res, err)
	}
	ready := s.Condition(computev1alpha1.ConditionReady)
	want := "changing tags: UnauthorizedOperation: not allowed; changing monitoring: RequestLimitExceeded: slow down; meanwhile: stopping instance i-1: desiredState is stopped"
	if ready.Reason != computev1alpha1.ReasonAuthFailure || ready.Message != want {
		t.Errorf("Ready %s %q, want %s %q", ready.Reason, ready.Message, computev1alpha1.ReasonAuthFailure, want)
	}
	if len(events.Reasons) != 2 {
		t.Errorf("events %v, want one per failure", events.Reasons)
	}
}
