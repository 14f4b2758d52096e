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
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/launch"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// DefaultTypeChangeTimeout is how long a start with a new instance type that EC2
// refuses for lack of capacity is retried before the type change is reverted.
const DefaultTypeChangeTimeout = 10 * time.Minute

// startFailureReset is how long an instance must have been running since the
// operator started it for earlier failed starts to be forgotten.
const startFailureReset = time.Minute

// convergePower brings the instance to the desired power state, stopping it when a
// change needs a stopped instance. Its step ends the pass when the power state is
// being changed (or waits), and lets it go on when the state is as desired.
func (ph *Phase) convergePower(ctx context.Context, s *pass.Scope, inst *ec2.Instance, whileStopped []plan.Drift) pass.Step {
	st := &s.Obj.Status
	wantRunning := s.Obj.Spec.WantsRunning()
	// A type EC2 would not run the instance with is not tried again while the spec
	// names it (keyed on the type, not the generation: an unrelated edit must not
	// take the instance down again for the same refusal).
	if st.RefusedInstanceType != "" && st.RefusedInstanceType != s.Obj.Spec.InstanceType {
		st.RefusedInstanceType = ""
	}
	typeChange := slices.IndexFunc(whileStopped, func(d plan.Drift) bool { return d.Field == "instanceType" })
	if typeChange >= 0 && st.RefusedInstanceType == s.Obj.Spec.InstanceType {
		s.TypeRefused = true
		whileStopped = slices.Delete(slices.Clone(whileStopped), typeChange, typeChange+1)
		typeChange = -1
	}
	switch inst.State {
	case ec2.StateRunning:
		if st.StartFailures > 0 && st.LastStartAttempt != nil && ph.now().Sub(st.LastStartAttempt.Time) > startFailureReset {
			st.StartFailures = 0
		}
		switch {
		case !wantRunning:
			return ph.stop(ctx, s, inst, "desiredState is "+string(s.Obj.Spec.DesiredState))
		case typeChange >= 0:
			d := whileStopped[typeChange]
			st.TypeChangeStarted = pass.StatusTime(ph.now())
			return ph.stop(ctx, s, inst, fmt.Sprintf("changing instanceType from %s to %s needs a stopped instance; it starts again afterwards", d.Actual, d.Desired))
		}
	case ec2.StateStopped:
		return ph.convergeStopped(ctx, s, inst, whileStopped, wantRunning)
	}
	return pass.Proceed()
}

// convergeStopped applies to a stopped instance the changes that wait for a stop, then
// starts it if the spec wants it running.
func (ph *Phase) convergeStopped(ctx context.Context, s *pass.Scope, inst *ec2.Instance, whileStopped []plan.Drift, wantRunning bool) pass.Step {
	st := &s.Obj.Status
	if wantRunning && inst.SpotInterrupted() {
		// Only EC2 may restart a Spot Instance it interrupted, when capacity returns.
		s.NotReady(computev1alpha1.ReasonSpotInterrupted, "EC2 interrupted the Spot Instance ("+inst.StateReason+"); EC2 restarts it when capacity returns")
		return pass.DoneAfter(ph.Kernel.ResyncAfter())
	}
	if wantRunning && startFailed(inst, st) {
		if next := ph.startFailedWait(s, inst); next.Ends() {
			return next
		}
	}
	next, refused := ph.applyWhileStopped(ctx, s, inst, whileStopped)
	if next.Ends() {
		return next
	}
	if len(whileStopped) > 0 {
		ph.Attributes.Forget(s.Obj.UID)
	}
	if refused != nil && !wantRunning {
		s.NotReady(computev1alpha1.ReasonUpdateFailed, pass.MessageFor("changing the stopped instance", refused))
		return failedPower(refused)
	}
	// When a change failed, the instance still starts again: it was stopped only
	// for the change, and must not stay down because EC2 refused it.
	if wantRunning {
		return ph.start(ctx, s, inst, len(whileStopped) == 0)
	}
	if len(whileStopped) > 0 {
		s.NotReady(computev1alpha1.ReasonUpdating, "applied changes to the stopped instance")
		return pass.DoneAfter(ph.PollInterval)
	}
	return pass.Proceed()
}

// applyWhileStopped applies the changes that need a stopped instance, in order, up to
// the first that EC2 refuses as asked; that refusal is recorded (Synced, an event) and
// returned. A failure worth retrying (throttling, a network error) ends the pass, to
// retry with backoff while the instance is still stopped for the change.
func (ph *Phase) applyWhileStopped(ctx context.Context, s *pass.Scope, inst *ec2.Instance, whileStopped []plan.Drift) (pass.Step, error) {
	st := &s.Obj.Status
	for _, d := range whileStopped {
		err := d.Apply(ctx, ph.EC2Of(s), inst.ID)
		if err == nil {
			ph.driftCorrected(s, d)
			continue
		}
		if !pass.RefusedAsAsked(err) {
			return pass.Failed("changing "+d.Field, err), nil
		}
		msg := pass.MessageFor("changing "+d.Field, err)
		if d.Field == "instanceType" {
			st.RefusedInstanceType, st.TypeChangeStarted = s.Obj.Spec.InstanceType, nil
			s.TypeRefused = true
		}
		s.SetCondition(computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonUpdateFailed, msg)
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonUpdateFailed, msg)
		ph.Metrics.ReconcileError(computev1alpha1.ReasonUpdateFailed)
		return pass.Proceed(), err
	}
	return pass.Proceed(), nil
}

// start starts the stopped instance. A start that EC2 refuses while a type change is
// in progress is retried for capacity until TypeChangeTimeout, then the change is
// reverted, so that a user who wants the instance running never finds it stopped
// because of the operator's change.
func (ph *Phase) start(ctx context.Context, s *pass.Scope, inst *ec2.Instance, nothingChanged bool) pass.Step {
	st := &s.Obj.Status
	why := "desiredState is running"
	if nothingChanged && stoppedOutOfBand(s) && !startFailed(inst, st) {
		why = "it was stopped outside Kubernetes and desiredState is running"
		ph.Metrics.DriftCorrected("desiredState")
	}
	if err := ph.EC2Of(s).StartInstance(ctx, inst.ID); err != nil {
		// inst is as described before this pass changed it: whether a type change is
		// under way comes from status and the spec.
		if st.TypeChangeStarted != nil && st.LastRunningInstanceType != "" && s.Obj.Spec.InstanceType != st.LastRunningInstanceType {
			return ph.typeChangeStartFailed(ctx, s, inst, err)
		}
		return pass.Failed("starting instance", err)
	}
	st.LastStartAttempt = pass.StatusTime(ph.now())
	s.Event(corev1.EventTypeNormal, computev1alpha1.ReasonStarting, "starting instance "+inst.ID+": "+why)
	s.NotReady(computev1alpha1.ReasonStarting, "starting instance "+inst.ID)
	return pass.DoneAfter(ph.PollInterval)
}

// typeChangeStartFailed handles a start that EC2 refused after the instance type was
// changed: no capacity for the new type (retried with backoff for a while), or a type
// the zone does not offer (Unsupported). Past the timeout, or for a refusal that will
// not pass, the instance goes back to the type it last ran with and is started, and
// the new type is refused until the spec names another.
func (ph *Phase) typeChangeStartFailed(ctx context.Context, s *pass.Scope, inst *ec2.Instance, startErr error) pass.Step {
	st := &s.Obj.Status
	deadline := st.TypeChangeStarted.Add(ph.TypeChangeTimeout)
	wanted := s.Obj.Spec.InstanceType
	if awserrors.KindOf(startErr) == awserrors.KindCapacity && ph.now().Before(deadline) {
		msg := fmt.Sprintf("%s; retrying until %s, then the instance goes back to %s",
			pass.MessageFor("starting instance "+inst.ID+" as "+wanted, startErr), deadline.UTC().Format(time.RFC3339), st.LastRunningInstanceType)
		s.NotReady(computev1alpha1.ReasonInsufficientCapacity, msg)
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonInsufficientCapacity, msg)
		ph.Metrics.ReconcileError(computev1alpha1.ReasonInsufficientCapacity)
		return failedPower(errors.New(msg))
	}
	if awserrors.KindOf(startErr) == awserrors.KindThrottled || awserrors.KindOf(startErr) == awserrors.KindUnknown {
		return pass.Failed("starting instance", startErr)
	}
	previous, refused := st.LastRunningInstanceType, wanted
	if err := ph.EC2Of(s).ModifyInstanceType(ctx, inst.ID, previous); err != nil {
		return pass.Failed("changing instanceType back to "+previous, err)
	}
	ph.Attributes.Forget(s.Obj.UID)
	// From here the new type is refused: should the start below fail too, the next
	// passes start the instance as it was, without changing its type again.
	st.TypeChangeStarted, st.RefusedInstanceType = nil, refused
	s.TypeRefused = true
	msg := fmt.Sprintf("EC2 could not start the instance as %s (%s: %s); it goes back to %s, and %s is not tried again until spec.instanceType changes",
		refused, awserrors.CodeOf(startErr), pass.ErrorMessage(startErr), previous, refused)
	s.SetCondition(computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonInstanceTypeUnavailable, msg)
	s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonInstanceTypeUnavailable, msg)
	ph.Metrics.ReconcileError(computev1alpha1.ReasonInstanceTypeUnavailable)
	if err := ph.EC2Of(s).StartInstance(ctx, inst.ID); err != nil {
		return pass.Failed("starting instance as "+previous, err)
	}
	st.LastStartAttempt = pass.StatusTime(ph.now())
	s.NotReady(computev1alpha1.ReasonInstanceTypeUnavailable, msg)
	return pass.DoneAfter(ph.PollInterval)
}

// startFailed reports whether a stopped instance stopped on its own right after the
// operator started it: EC2 gives a client or server error as the state reason (an
// unusable KMS key on its encrypted volume: Client.InternalError), not a user's stop.
func startFailed(inst *ec2.Instance, st *computev1alpha1.EC2InstanceStatus) bool {
	return st.LastStartAttempt != nil && inst.StoppedByFailure()
}

// startFailedWait counts a start that failed (once per start) and keeps the instance
// stopped until a backoff that grows with each failure in a row has passed since the
// last start; its step ends the pass while it waits.
func (ph *Phase) startFailedWait(s *pass.Scope, inst *ec2.Instance) pass.Step {
	st := &s.Obj.Status
	wait := launch.RecreationBackoff(st.StartFailures, ph.MinBackoff, ph.MaxBackoff)
	if !st.LastFailedStart.Equal(st.LastStartAttempt) {
		st.StartFailures++
		st.LastFailedStart = st.LastStartAttempt.DeepCopy()
		wait = launch.RecreationBackoff(st.StartFailures, ph.MinBackoff, ph.MaxBackoff)
		msg := fmt.Sprintf("instance %s stopped again right after it was started (%s); starting it again in %s",
			inst.ID, plan.OrNone(inst.StateReason), wait)
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonStartFailed, msg)
		ph.Metrics.ReconcileError(computev1alpha1.ReasonStartFailed)
	}
	remaining := st.LastStartAttempt.Add(wait).Sub(ph.now())
	if remaining <= 0 {
		return pass.Proceed()
	}
	s.NotReady(computev1alpha1.ReasonStartFailed, fmt.Sprintf("instance %s stopped again right after it was started %d time(s) in a row (%s); next start in %s",
		inst.ID, st.StartFailures, plan.OrNone(inst.StateReason), remaining.Round(time.Second)))
	return pass.DoneAfter(remaining)
}

// failedPower is a failure of the power step reported under the power state aspect,
// for refusals the step already recorded in detail (Synced, an event).
func failedPower(err error) pass.Step { return pass.Failed("changing power state", err) }

// stoppedOutOfBand tells a stop the operator did not ask for: the operator has not
// stopped the instance since it last ran (status.lastStopRequest), and the last pass
// did not keep it stopped on purpose.
func stoppedOutOfBand(s *pass.Scope) bool {
	before := &s.Before.Status
	ready := meta.FindStatusCondition(before.Conditions, computev1alpha1.ConditionReady)
	if ready == nil || before.State == "" || before.LastStopRequest != nil {
		return false
	}
	return ready.Reason != computev1alpha1.ReasonStopped && ready.Reason != computev1alpha1.ReasonUpdating
}

// stop stops (or hibernates) the running instance, and records that the operator
// asked for it.
func (ph *Phase) stop(ctx context.Context, s *pass.Scope, inst *ec2.Instance, why string) pass.Step {
	if s.Obj.Spec.DesiredState == computev1alpha1.DesiredStateHibernated && inst.HibernationConfigured {
		// Hibernation saves the memory to the root volume; the next start restores it.
		if err := ph.EC2Of(s).HibernateInstance(ctx, inst.ID); err != nil {
			return pass.Failed("hibernating instance", err)
		}
		s.Obj.Status.LastStopRequest = pass.StatusTime(ph.now())
		s.Event(corev1.EventTypeNormal, computev1alpha1.ReasonStopping, "hibernating instance "+inst.ID+": "+why)
		s.NotReady(computev1alpha1.ReasonStopping, "hibernating instance "+inst.ID+": "+why)
		return pass.DoneAfter(ph.PollInterval)
	}
	if err := ph.EC2Of(s).StopInstance(ctx, inst.ID); err != nil {
		return pass.Failed("stopping instance", err)
	}
	s.Obj.Status.LastStopRequest = pass.StatusTime(ph.now())
	s.Event(corev1.EventTypeNormal, computev1alpha1.ReasonStopping, "stopping instance "+inst.ID+": "+why)
	s.NotReady(computev1alpha1.ReasonStopping, "stopping instance "+inst.ID+": "+why)
	return pass.DoneAfter(ph.PollInterval)
}
