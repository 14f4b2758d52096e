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

package launch

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// While the RunInstances budget is spent, a new object waits its turn without
// launching, and remembers that nothing was sent, so that its next pass goes
// straight to the launch without looking for one.
func TestALaunchWaitsForTheBudgetWithoutSendingAndRemembersIt(t *testing.T) {
	f := (&fakeEC2{t: t, launchTurn: 3 * time.Second}).holding()
	r, _, s := launchScope(f)
	next := r.launch(context.Background(), s)
	if next.Kind != pass.KindDone || next.Spread || next.After != 3*time.Second {
		t.Errorf("step %+v, want to come back when the client says its turn comes, not spread", next)
	}
	if f.count("RunInstance") != 0 {
		t.Error("launched while the budget was spent")
	}
	token := ec2.ClientToken(string(s.Obj.UID), 0)
	if !r.Launches.NotSent(s.Obj.UID, token) {
		t.Error("the pass does not remember that nothing was sent")
	}
	f.calls = nil
	r.launch(context.Background(), s)
	if f.count("OwnedInstances")+f.count("FindInstances") != 0 {
		t.Errorf("the next pass looked for a launch it knows was not sent: %s", f.ops())
	}
}

// An instance whose launch answer was lost is found by its client token, else by the
// object's UID tag; copies tagged for another cluster, and instances already going,
// are never taken for it; of several, the oldest is managed and the others named.
func TestALostLaunchIsFoundByTokenOrTagButNeverAnotherClustersCopy(t *testing.T) {
	own := map[string]string{ec2.TagOwnerUID: "uid-web", ec2.TagCluster: testCluster}
	foreign := map[string]string{ec2.TagOwnerUID: "uid-web", ec2.TagCluster: "cluster-b"}
	testCases := []struct {
		name       string
		instances  []ec2.Instance
		want       string
		wantCalls  string
		wantEvents string
	}{
		{name: "by client token", instances: []ec2.Instance{instance("i-1", "token-1", 0, ec2.StateRunning, own)},
			want: "i-1", wantCalls: "FindInstances"},
		{name: "by the UID tag, under an earlier token", instances: []ec2.Instance{instance("i-0", "token-0", 0, ec2.StateRunning, own)},
			want: "i-0", wantCalls: "FindInstances,FindInstances"},
		{name: "another cluster's copy is left alone", instances: []ec2.Instance{instance("i-1", "token-1", 0, ec2.StateRunning, foreign)},
			wantCalls: "FindInstances,FindInstances"},
		{name: "a terminated one is not managed", instances: []ec2.Instance{instance("i-1", "token-1", 0, ec2.StateTerminated, own)},
			wantCalls: "FindInstances,FindInstances"},
		{name: "the oldest of several", wantEvents: "DuplicateInstances", want: "i-a", wantCalls: "FindInstances,FindInstances",
			instances: []ec2.Instance{instance("i-b", "token-b", 5, ec2.StateRunning, own), instance("i-a", "token-a", 1, ec2.StateRunning, own)}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fakeEC2{t: t}).holding(tc.instances...)
			want := tc.want
			r, events, s := launchScope(f)
			found, err := r.FindOwnInstance(context.Background(), s, "token-1")
			if err != nil {
				t.Fatal(err)
			}
			if got := ""; found != nil {
				got = found.ID
				if got != want {
					t.Errorf("found %s, want %q", got, want)
				}
			} else if want != "" {
				t.Errorf("found nothing, want %s", want)
			}
			if strings.Join(events.Reasons, ",") != tc.wantEvents {
				t.Errorf("events %v, want %q", events.Reasons, tc.wantEvents)
			}
			if f.ops() != tc.wantCalls {
				t.Errorf("calls %s, want %s", f.ops(), tc.wantCalls)
			}
		})
	}
}

// RunInstances' answers: a launch is remembered until the next pass records it; a
// call the client's budget held back, or a launch EC2 refused outright, is known not
// to have launched anything.
func TestRunInstanceRemembersWhatItLaunchedAndWhatItDidNot(t *testing.T) {
	held := &awserrors.Error{Kind: awserrors.KindThrottled, Operation: "RunInstances", Code: awserrors.CodeClientRateLimited, Message: "held back", RetryAfter: time.Second}
	testCases := []struct {
		name        string
		fail        error
		wantNotSent bool
		wantFailed  bool
		wantEvent   string
	}{
		{name: "launched", wantEvent: "Launched"},
		{name: "held back by the client's budget", fail: held, wantNotSent: true, wantFailed: true},
		{name: "refused outright", fail: awserrors.NewError("RunInstances", "InvalidAMIID.NotFound", "no such image"), wantNotSent: true, wantFailed: true},
		{name: "throttled by EC2: it may have launched", fail: awserrors.NewError("RunInstances", "RequestLimitExceeded", "slow down"), wantFailed: true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeEC2{t: t, runInstance: func(req ec2.LaunchRequest) (*ec2.Instance, error) {
				if tc.fail != nil {
					return nil, tc.fail
				}
				inst := instance("i-new", req.ClientToken, 0, ec2.StatePending, req.Tags)
				return &inst, nil
			}}
			r, events, s := launchScope(f)
			token := ec2.ClientToken(string(s.Obj.UID), 0)
			now := metav1.Now()
			s.Obj.Status.ClientToken, s.Obj.Status.LastLaunchAttempt = token, &now
			next := r.runInstance(context.Background(), s, token, "", "")
			if (next.Kind == pass.KindFailed) != tc.wantFailed {
				t.Errorf("step %+v, want failed=%v", next, tc.wantFailed)
			}
			if got := r.Launches.NotSent(s.Obj.UID, token); got != tc.wantNotSent {
				t.Errorf("notSent = %v, want %v", got, tc.wantNotSent)
			}
			if _, ok := r.Launches.Get(s.Obj.UID, token); ok != (tc.fail == nil) {
				t.Errorf("launch remembered = %v, want %v", ok, tc.fail == nil)
			}
			if tc.wantEvent != "" && strings.Join(events.Reasons, ",") != tc.wantEvent {
				t.Errorf("events %v, want %s", events.Reasons, tc.wantEvent)
			}
		})
	}
}

// EC2 answering a token with IdempotentParameterMismatch is retried further apart a
// few times, then the operator stops launching and says what to do.
func TestIdempotencyConflictsBackOffThenStall(t *testing.T) {
	f := &fakeEC2{t: t}
	r, events, s := launchScope(f)
	conflict := awserrors.NewError("RunInstances", "IdempotentParameterMismatch", "token used with other parameters")
	var waits []time.Duration
	for range pass.MaxIdempotencyConflicts - 1 {
		next := r.idempotencyConflict(s, conflict)
		waits = append(waits, next.After)
	}
	for i := 1; i < len(waits); i++ {
		if waits[i] <= waits[i-1] {
			t.Errorf("waits %v do not grow", waits)
		}
	}
	if len(events.Reasons) != 0 {
		t.Errorf("events %v before the operator stops", events.Reasons)
	}
	if next := r.idempotencyConflict(s, conflict); next.Kind != pass.KindDone || next.After != 0 {
		t.Errorf("last step %+v, want the pass to end without a requeue", next)
	}
	stalled := s.Condition(computev1alpha1.ConditionStalled)
	if stalled == nil || stalled.Reason != computev1alpha1.ReasonIdempotencyConflict || !strings.Contains(stalled.Message, computev1alpha1.RetryAnnotation) {
		t.Errorf("Stalled %+v, want IdempotencyConflict naming the retry annotation", stalled)
	}
	if !launchStalled(s) {
		t.Error("launching goes on after the operator stopped")
	}
	s.Obj.Annotations = map[string]string{computev1alpha1.RetryAnnotation: "1"}
	if launchStalled(s) {
		t.Error("a new retry annotation does not let the launch try again")
	}
}

// spec.instanceId is refused, before anything is written, for an instance another
// cluster or object manages or one that is going away.
func TestAdoptionRefusesWhatIsNotFreeToAdopt(t *testing.T) {
	testCases := []struct {
		name       string
		tags       map[string]string
		state      string
		wantReason string
	}{
		{name: "another cluster's", tags: map[string]string{ec2.TagOwnerUID: "other", ec2.TagCluster: "cluster-b"}, state: ec2.StateRunning,
			wantReason: computev1alpha1.ReasonInstanceExists},
		{name: "another object's", tags: map[string]string{ec2.TagOwnerUID: "other", ec2.TagCluster: testCluster, ec2.TagOwnerNamespace: "team-b", ec2.TagOwnerName: "db"},
			state: ec2.StateRunning, wantReason: computev1alpha1.ReasonOwnedByAnother},
		{name: "terminated", state: ec2.StateTerminated, wantReason: computev1alpha1.ReasonInstanceNotFound},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fakeEC2{t: t}).holding(instance("i-elsewhere", "elsewhere", 0, tc.state, tc.tags))
			r, _, s := launchScope(f)
			s.Obj.Spec.InstanceID = "i-elsewhere"
			next := r.adopt(context.Background(), s)
			if next.Kind != pass.KindDone || next.After == 0 {
				t.Errorf("step %+v, want to look again later", next)
			}
			if ready := s.Condition(computev1alpha1.ConditionReady); ready == nil || ready.Reason != tc.wantReason {
				t.Errorf("Ready %+v, want %s", ready, tc.wantReason)
			}
			if f.ops() != "GetInstance" {
				t.Errorf("calls %s: want only the instance described, no tags changed on an instance that was not adopted", f.ops())
			}
		})
	}
}
