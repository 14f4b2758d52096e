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
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// launch finds an instance launched earlier for this object whose ID was never
// recorded, and launches one only when there is none. The client token and the launch
// time are recorded before RunInstances, so even a launch whose answer was lost is
// found again (or answered with the same instance when repeated).
//
// The cost of a launch is kept to what it needs: a new object (no launch recorded)
// is not looked up in EC2 first, the launch record is one status write, and the
// instance ID is written together with the state the next pass sees (Ready, for an
// instance that is running by then), from the instance remembered in memory.
func (l *Phase) launch(ctx context.Context, s *pass.Scope) pass.Step {
	if b, ok := plan.BatchOf(s.Obj); ok {
		if next, alone := l.launchInBatch(ctx, s, b); !alone {
			return next
		}
	}
	return l.launchAlone(ctx, s)
}

// launchAlone launches the object's instance by its own RunInstances call (see launch).
func (l *Phase) launchAlone(ctx context.Context, s *pass.Scope) pass.Step {
	st := &s.Obj.Status
	token := ec2.ClientToken(string(s.Obj.UID), st.Recreations)

	if id, ok := l.Launches.Get(s.Obj.UID, token); ok && st.ClientToken == token {
		return l.launchedEarlier(ctx, s, id)
	}
	if launchStalled(s) {
		// EC2 keeps answering this token with a conflict; nothing more is tried until
		// the spec or the retry annotation changes.
		return pass.DoneAfter(0)
	}
	if next := l.findEarlierLaunch(ctx, s, token); next.Ends() || s.Inst != nil {
		return next
	}
	// EC2 allows few launches a second per account; while the budget is spent, the
	// object waits its turn without holding a worker or writing anything, and comes
	// back when the client says its turn comes (its own place in line, so no spread).
	if wait := l.EC2Of(s).LaunchTurn(token, s.Obj.Namespace); wait > 0 {
		// Nothing was sent under this token, and the checks above found nothing: the
		// next pass goes straight to the launch, without listing or looking again.
		l.Launches.PutNotSent(s.Obj.UID, token)
		// A pass that only waits writes nothing: the account the pass resolved is
		// recorded with the launch record, before anything may be launched.
		s.Obj.Status.Account, s.Obj.Status.AccountID = s.Before.Status.Account, s.Before.Status.AccountID
		return pass.DoneAfter(wait)
	}
	// User data from a Secret or ConfigMap must be readable before anything is
	// launched: a missing one is the user's to fix, not EC2's to refuse. Its version is
	// taken first, so that an edit after the read makes the attributes due.
	source := l.Kernel.SourceVersion(s.Obj)
	userData, err := l.Kernel.DesiredUserData(ctx, s.Obj)
	if err != nil {
		return pass.Failed("reading the user data", err)
	}
	if next := l.prepareLaunch(ctx, s, token); next.Ends() {
		return next
	}
	return l.runInstance(ctx, s, token, userData, source)
}

// findEarlierLaunch looks for an instance this object may have already: one of an
// earlier object with its name (before its first launch), or its own whose launch
// answer was lost. What it finds is in s.inst. It asks EC2 nothing when this process
// knows that no RunInstances with this token was sent.
func (l *Phase) findEarlierLaunch(ctx context.Context, s *pass.Scope, token string) pass.Step {
	st := &s.Obj.Status
	if l.Launches.NotSent(s.Obj.UID, token) {
		return pass.Proceed()
	}
	// An object that never launched may have had an instance under another UID (it
	// was deleted without its finalizer and re-created, as a backup restore does).
	if st.LastLaunchAttempt == nil && st.Recreations == 0 {
		return l.restoreCheck(ctx, s)
	}
	// A launch may have happened before (a lost answer, a crash): find it first.
	found, err := l.FindOwnInstance(ctx, s, token)
	if err != nil {
		return pass.Failed("looking for an instance launched earlier", err)
	}
	if found == nil {
		return pass.Proceed()
	}
	s.Event(corev1.EventTypeNormal, "InstanceFound", fmt.Sprintf("found instance %s launched earlier for this object; managing it", found.ID))
	pass.RememberLaunchVolumes(s, found)
	return l.recordInstance(ctx, s, found)
}

// prepareLaunch chooses what the launch sends and records it. The subnet and security
// groups the selectors pick are part of the launch record, so that a retried launch
// sends the same parameters; so is the account the operator's own credentials act in
// (moved credentials must not make the instance look gone). The record is one write
// before RunInstances, so that a launch whose answer is lost is waited for and found,
// not replaced; a record this recent already serves (a launch that waited for its
// budget comes back).
func (l *Phase) prepareLaunch(ctx context.Context, s *pass.Scope, token string) pass.Step {
	st := &s.Obj.Status
	newRecord := st.ClientToken != token || st.LastLaunchAttempt == nil
	if err := chooseImage(ctx, l.EC2Of(s), s, newRecord); err != nil {
		return pass.Failed("choosing the image", err)
	}
	if err := l.choosePlacement(ctx, s, newRecord); err != nil {
		return pass.Failed("choosing the subnet and security groups", err)
	}
	if err := l.Kernel.CheckLaunch(ctx, s, token); err != nil {
		return pass.Failed("checking the launch against the account's guardrails", err)
	}
	if err := l.Kernel.PinOwnAccount(ctx, s); err != nil {
		return pass.Errored(err)
	}
	if newRecord || st.Region != s.Region || l.now().Sub(st.LastLaunchAttempt.Time) > launchRecordReuse {
		st.ClientToken = token
		st.Region = s.Region
		st.LastLaunchAttempt = pass.StatusTime(l.now())
		s.SetCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionFalse, computev1alpha1.ReasonProvisioning, "launching an instance")
		s.NotReady(computev1alpha1.ReasonProvisioning, "launching an instance")
		return pass.Errored(s.PatchStatus(ctx, l.Client))
	}
	return pass.Proceed()
}

// runInstance sends RunInstances with the recorded token and remembers the answer
// until the next pass records it with the instance's state.
func (l *Phase) runInstance(ctx context.Context, s *pass.Scope, token, userData, source string) pass.Step {
	// From here the launch may reach EC2: what memory said about an earlier attempt
	// that was not sent (or was refused) no longer holds, whatever this one's answer.
	l.Launches.Forget(s.Obj.UID)
	inst, err := l.EC2Of(s).RunInstance(ctx, plan.LaunchRequest(s.Obj, l.ClusterID, token, userData))
	if awserrors.HeldBack(err) {
		// Nothing was sent: the next pass launches without looking for this one.
		l.Launches.PutNotSent(s.Obj.UID, token)
		return pass.Failed(LaunchAction, err)
	}
	if err != nil {
		return l.launchFailed(ctx, s, err)
	}
	s.Event(corev1.EventTypeNormal, "Launched", fmt.Sprintf("launched instance %s (%s)", inst.ID, inst.InstanceType))
	l.Launches.Put(s.Obj.UID, token, inst.ID)
	// What was set at launch is known: the next passes compare it without reading it
	// back (DescribeInstances does not return these attributes).
	l.Attributes.Put(s.Obj.UID, s.Obj.Generation, l.now(), plan.LaunchedAttributes(s.Obj, userData), source)
	// A new instance is pending; the next pass looks at it with the other new ones.
	return pass.DoneAfter(l.firstLook(l.EC2Of(s)))
}

// firstLookAfterLaunch is when a new instance is first looked at, when launches are
// not being paced.
const firstLookAfterLaunch = 500 * time.Millisecond

// firstLook says when to look at an instance just launched. Soon, as it can be running
// within a second; but while launches wait for the RunInstances budget (a bulk create,
// one launch every half second), a look one poll interval later lets one
// DescribeInstances answer all the instances launched in between, instead of one call
// per launch. The launches of a backlog's last poll interval are looked at together,
// just after the last of them, so the last instances are not left waiting a full
// interval.
func (l *Phase) firstLook(c ec2.FleetHints) time.Duration {
	return min(l.PollInterval, c.LaunchBacklog()+firstLookAfterLaunch)
}

// launchRecordReuse is how old a launch record may be and still serve a launch that
// was put off for the RunInstances budget, instead of being written again.
const launchRecordReuse = time.Minute
