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

package converge

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass/passtest"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// fakeInstance is the scope of a pass over an instance of the spec's type in state,
// with the fake as converge's client.
func fakeInstance(ph *Phase, f *fakeEC2, rec pass.EventRecorder, spec computev1alpha1.EC2InstanceSpec, state string) *pass.Scope {
	ph.EC2Of = func(*pass.Scope) EC2 { return f }
	s := passtest.Scope(rec)
	s.Obj.Spec = spec
	s.Inst = runningInstance(plan.DesiredMetadataOptions(&spec), spec.InstanceType, state)
	s.Obj.Status.InstanceID, s.Obj.Status.State = s.Inst.ID, s.Inst.State
	s.Before = s.Obj.DeepCopy()
	return s
}

func TestPowerStepCallsOnlyWhatTheDesiredStateNeeds(t *testing.T) {
	typeChange := plan.Drift{Field: "instanceType", Desired: "t3.large", Actual: "t3.micro", NeedsStopped: true,
		Apply: func(ctx context.Context, c plan.SettingsClient, id string) error {
			return c.ModifyInstanceType(ctx, id, "t3.large")
		}}
	testCases := []struct {
		name         string
		state        string
		desired      computev1alpha1.DesiredState
		whileStopped []plan.Drift
		wantCalls    string
		wantEnds     bool
		wantReady    string
	}{
		{name: "running as desired: nothing", state: ec2.StateRunning, desired: computev1alpha1.DesiredStateRunning},
		{name: "running, stopped wanted", state: ec2.StateRunning, desired: computev1alpha1.DesiredStateStopped,
			wantCalls: "StopInstance", wantEnds: true, wantReady: computev1alpha1.ReasonStopping},
		{name: "running, a type change stops it", state: ec2.StateRunning, desired: computev1alpha1.DesiredStateRunning,
			whileStopped: []plan.Drift{typeChange}, wantCalls: "StopInstance", wantEnds: true, wantReady: computev1alpha1.ReasonStopping},
		{name: "stopped for a type change: change, then start", state: ec2.StateStopped, desired: computev1alpha1.DesiredStateRunning,
			whileStopped: []plan.Drift{typeChange}, wantCalls: "ModifyInstanceType,StartInstance", wantEnds: true, wantReady: computev1alpha1.ReasonStarting},
		{name: "stopped as desired: nothing", state: ec2.StateStopped, desired: computev1alpha1.DesiredStateStopped},
		{name: "stopped, running wanted: start", state: ec2.StateStopped, desired: computev1alpha1.DesiredStateRunning,
			wantCalls: "StartInstance", wantEnds: true, wantReady: computev1alpha1.ReasonStarting},
		{name: "stopped with a change and stopped wanted: change only", state: ec2.StateStopped, desired: computev1alpha1.DesiredStateStopped,
			whileStopped: []plan.Drift{typeChange}, wantCalls: "ModifyInstanceType", wantEnds: true, wantReady: computev1alpha1.ReasonUpdating},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			r, events := pureReconciler()
			f := &fakeEC2{}
			s := fakeInstance(r, f, events, computev1alpha1.EC2InstanceSpec{InstanceType: "t3.micro", DesiredState: tc.desired}, tc.state)
			next := r.convergePower(context.Background(), s, s.Inst, tc.whileStopped)
			if got := f.ops(); got != tc.wantCalls {
				t.Errorf("calls %q, want %q", got, tc.wantCalls)
			}
			if next.Ends() != tc.wantEnds || next.Kind == pass.KindFailed {
				t.Errorf("step %+v, want ends=%v without failure", next, tc.wantEnds)
			}
			if ready := s.Condition(computev1alpha1.ConditionReady); tc.wantReady != "" && (ready == nil || ready.Reason != tc.wantReady) {
				t.Errorf("Ready %+v, want %s", ready, tc.wantReady)
			}
			if tc.wantReady == computev1alpha1.ReasonStopping && s.Obj.Status.LastStopRequest == nil {
				t.Error("the operator's stop is not recorded in status.lastStopRequest")
			}
		})
	}
}

// A change EC2 refuses on the stopped instance does not keep it down: the refusal is
// recorded (Synced, an event) and the instance is started as it was.
func TestARefusedChangeWhileStoppedStillStartsTheInstance(t *testing.T) {
	r, events := pureReconciler()
	// EC2's answer to a type it does not offer.
	f := &fakeEC2{fail: map[string]error{"ModifyInstanceType": awserrors.NewError("ModifyInstanceAttribute",
		"InvalidInstanceAttributeValue", "Invalid value 't3.huge' for instanceType.")}}
	s := fakeInstance(r, f, events, computev1alpha1.EC2InstanceSpec{InstanceType: "t3.micro"}, ec2.StateStopped)
	refused := plan.Drift{Field: "instanceType", Desired: "t3.huge", Actual: "t3.micro", NeedsStopped: true,
		Apply: func(ctx context.Context, c plan.SettingsClient, id string) error {
			return c.ModifyInstanceType(ctx, id, "t3.huge")
		}}
	next := r.convergePower(context.Background(), s, s.Inst, []plan.Drift{refused})
	if got := f.ops(); got != "ModifyInstanceType,StartInstance" {
		t.Errorf("calls %q, want the refused change and then the start", got)
	}
	if next.Kind != pass.KindDone || s.Obj.Status.RefusedInstanceType != "" && !s.TypeRefused {
		t.Errorf("step %+v, typeRefused %v", next, s.TypeRefused)
	}
	if synced := s.Condition(computev1alpha1.ConditionSynced); synced == nil || synced.Reason != computev1alpha1.ReasonUpdateFailed {
		t.Errorf("Synced %+v, want UpdateFailed", synced)
	}
	if !strings.Contains(strings.Join(events.Reasons, ","), computev1alpha1.ReasonUpdateFailed) {
		t.Errorf("events %v lack UpdateFailed", events.Reasons)
	}
}

// The settings aspect applies each in-place change on its own: one EC2 refuses is
// recorded as that field's failure, and the others are still applied; those that need
// a stopped instance wait for the power aspect.
func TestSettingsAreAppliedOneByOneAndTheStoppedOnesWait(t *testing.T) {
	r, events := pureReconciler()
	f := &fakeEC2{fail: map[string]error{"SetDetailedMonitoring": awserrors.NewError("MonitorInstances", "UnauthorizedOperation", "not allowed")}}
	s := fakeInstance(r, f, events, computev1alpha1.EC2InstanceSpec{InstanceType: "t3.micro", Monitoring: ptr.To(true),
		DisableAPITermination: ptr.To(true), SecurityGroupIDs: []string{defaultGroup}}, ec2.StateRunning)
	s.Obj.Spec.InstanceType = "t3.large"
	p := &Pass{inst: s.Inst, seen: plan.Observed(&ec2.InstanceAttributes{})}
	if next := r.Settings(context.Background(), s, p); next.Ends() {
		t.Fatalf("settings ended the pass: %+v", next)
	}
	if strings.Join(p.applied, ",") != "disableApiTermination" {
		t.Errorf("applied %v, want disableApiTermination", p.applied)
	}
	if len(p.failures) != 1 || p.failures[0].Action != "changing monitoring" || pass.ReasonFor(p.failures[0].Err) != computev1alpha1.ReasonAuthFailure {
		t.Errorf("failures %+v, want monitoring refused for authorization", p.failures)
	}
	if len(p.whileStopped) != 1 || p.whileStopped[0].Field != "instanceType" {
		t.Errorf("waiting for a stop: %+v, want instanceType", p.whileStopped)
	}
	if len(f.called("ModifyInstanceType")) != 0 {
		t.Error("the type was changed on a running instance")
	}
	if got := f.ops(); got != "SetDetailedMonitoring,ModifyTerminationProtection" && got != "ModifyTerminationProtection,SetDetailedMonitoring" {
		t.Errorf("calls %s, want monitoring and termination protection, one call each", got)
	}
}

// Tags beyond EC2's 50 are refused before any call; tags within it are set and the
// ones the operator set before and the spec dropped are removed, and nothing else.
func TestTagsStayWithinEC2sLimitAndRemoveOnlyWhatTheOperatorSet(t *testing.T) {
	r, events := pureReconciler()
	f := &fakeEC2{}
	s := fakeInstance(r, f, events, computev1alpha1.EC2InstanceSpec{InstanceType: "t3.micro", Tags: map[string]string{"team": "a"}}, ec2.StateRunning)
	s.Obj.Status.ManagedTagKeys = []string{"old"}
	s.Inst.Tags = map[string]string{"old": "x", "someone-elses": "y"}
	if err := r.syncTags(context.Background(), s, s.Inst); err != nil {
		t.Fatal(err)
	}
	set, removed := f.called("CreateTags"), f.called("DeleteTags")
	if len(set) != 1 || !strings.Contains(set[0], "team:a") || strings.Contains(set[0], "old:") || strings.Contains(set[0], "someone-elses") {
		t.Errorf("CreateTags calls %v: want one setting team, and neither old nor someone-elses", set)
	}
	if want := fmt.Sprintf("DeleteTags[[%s] [old]]", s.Inst.ID); len(removed) != 1 || removed[0] != want {
		t.Errorf("DeleteTags calls %v, want %s: only the key the operator set and the spec dropped", removed, want)
	}
	if len(events.Reasons) != 1 || events.Reasons[0] != "DriftCorrected" {
		t.Errorf("events %v, want one DriftCorrected for the pass", events.Reasons)
	}

	full := map[string]string{}
	for k := range fiftyTags() {
		full[k] = "v"
	}
	crowded := &ec2.Instance{ID: s.Inst.ID, Tags: full}
	f.calls = nil
	err := r.syncTags(context.Background(), s, crowded)
	if pass.ReasonFor(err) != computev1alpha1.ReasonTagLimitExceeded || len(f.called("CreateTags")) != 0 {
		t.Errorf("error %v after CreateTags %v, want TagLimitExceeded before any call", err, f.called("CreateTags"))
	}
}
