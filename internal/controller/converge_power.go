package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// DefaultTypeChangeTimeout is how long a start with a new instance type that EC2
// refuses for lack of capacity is retried before the type change is reverted.
const DefaultTypeChangeTimeout = 10 * time.Minute

// startFailureReset is how long an instance must have been running since the
// operator started it for earlier failed starts to be forgotten.
const startFailureReset = time.Minute

// convergePower brings the instance to the desired power state, stopping it when a
// change needs a stopped instance. It reports done when the pass should end here.
func (r *EC2InstanceReconciler) convergePower(ctx context.Context, s *instanceScope, inst *ec2.Instance, whileStopped []drift) (ctrl.Result, bool, error) {
	st := &s.obj.Status
	wantRunning := s.obj.Spec.DesiredState != computev1alpha1.DesiredStateStopped && s.obj.Spec.DesiredState != computev1alpha1.DesiredStateHibernated
	typeChange := slices.IndexFunc(whileStopped, func(d drift) bool { return d.field == "instanceType" })

	// A type EC2 would not run the instance with is not tried again while the spec
	// names it (keyed on the type, not the generation: an unrelated edit must not
	// take the instance down again for the same refusal).
	if st.RefusedInstanceType != "" && st.RefusedInstanceType != s.obj.Spec.InstanceType {
		st.RefusedInstanceType = ""
	}
	if typeChange >= 0 && st.RefusedInstanceType == s.obj.Spec.InstanceType {
		s.typeRefused = true
		whileStopped = slices.Delete(slices.Clone(whileStopped), typeChange, typeChange+1)
		typeChange = -1
	}

	switch inst.State {
	case ec2.StateRunning:
		if st.StartFailures > 0 && st.LastStartAttempt != nil && r.now().Sub(st.LastStartAttempt.Time) > startFailureReset {
			st.StartFailures = 0
		}
		switch {
		case !wantRunning:
			return r.stop(ctx, s, inst, "desiredState is "+string(s.obj.Spec.DesiredState))
		case typeChange >= 0:
			d := whileStopped[typeChange]
			now := metav1.NewTime(r.now().UTC().Truncate(time.Second))
			st.TypeChangeStarted = &now
			return r.stop(ctx, s, inst, fmt.Sprintf("changing instanceType from %s to %s needs a stopped instance; it starts again afterwards", d.actual, d.desired))
		}
	case ec2.StateStopped:
		if wantRunning && inst.Spot && strings.HasPrefix(inst.StateReasonCode, "Server.SpotInstance") {
			// Only EC2 may restart a Spot Instance it interrupted, when capacity returns.
			s.notReady(computev1alpha1.ReasonSpotInterrupted, "EC2 interrupted the Spot Instance ("+inst.StateReason+"); EC2 restarts it when capacity returns")
			return ctrl.Result{RequeueAfter: r.resyncAfter()}, true, nil
		}
		if wantRunning && r.startFailed(inst, st) {
			if res, wait := r.startFailedWait(s, inst); wait {
				return res, true, nil
			}
		}
		var failed error
		for _, d := range whileStopped {
			if err := d.apply(ctx, s.ec2, inst.ID); err != nil {
				if !isRefusal(err) {
					// Throttling or a network error: retry with backoff while the
					// instance is still stopped for this change.
					return r.failPower(s, "changing "+d.field, err)
				}
				failed = err
				msg := messageFor("changing "+d.field, err)
				if d.field == "instanceType" {
					st.RefusedInstanceType, st.TypeChangeStarted = s.obj.Spec.InstanceType, nil
					s.typeRefused = true
				}
				s.setCondition(computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonUpdateFailed, msg)
				r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonUpdateFailed, msg)
				r.Metrics.ReconcileError(computev1alpha1.ReasonUpdateFailed)
				break
			}
			r.driftCorrected(s, d)
		}
		if len(whileStopped) > 0 {
			r.forgetAttributes(s.obj.UID)
		}
		if failed != nil && !wantRunning {
			s.notReady(computev1alpha1.ReasonUpdateFailed, messageFor("changing the stopped instance", failed))
			return ctrl.Result{}, true, failed
		}
		// When a change failed, the instance still starts again: it was stopped only
		// for the change, and must not stay down because EC2 refused it.
		if wantRunning {
			return r.start(ctx, s, inst, len(whileStopped) == 0)
		}
		if len(whileStopped) > 0 {
			s.notReady(computev1alpha1.ReasonUpdating, "applied changes to the stopped instance")
			return ctrl.Result{RequeueAfter: r.PollInterval}, true, nil
		}
	}
	return ctrl.Result{}, false, nil
}

// start starts the stopped instance. A start that EC2 refuses while a type change is
// in progress is retried for capacity until TypeChangeTimeout, then the change is
// reverted, so that a user who wants the instance running never finds it stopped
// because of the operator's change.
func (r *EC2InstanceReconciler) start(ctx context.Context, s *instanceScope, inst *ec2.Instance, nothingChanged bool) (ctrl.Result, bool, error) {
	st := &s.obj.Status
	why := "desiredState is running"
	if nothingChanged && stoppedOutOfBand(s) && !r.startFailed(inst, st) {
		why = "it was stopped outside Kubernetes and desiredState is running"
		r.Metrics.DriftCorrected("desiredState")
	}
	if err := s.ec2.StartInstance(ctx, inst.ID); err != nil {
		// inst is as described before this pass changed it: whether a type change is
		// under way comes from status and the spec.
		if st.TypeChangeStarted != nil && st.LastRunningInstanceType != "" && s.obj.Spec.InstanceType != st.LastRunningInstanceType {
			return r.typeChangeStartFailed(ctx, s, inst, err)
		}
		return r.failPower(s, "starting instance", err)
	}
	now := metav1.NewTime(r.now().UTC().Truncate(time.Second))
	st.LastStartAttempt = &now
	r.event(s, corev1.EventTypeNormal, computev1alpha1.ReasonStarting, "starting instance "+inst.ID+": "+why)
	s.notReady(computev1alpha1.ReasonStarting, "starting instance "+inst.ID)
	return ctrl.Result{RequeueAfter: r.PollInterval}, true, nil
}

// typeChangeStartFailed handles a start that EC2 refused after the instance type was
// changed: no capacity for the new type (retried with backoff for a while), or a type
// the zone does not offer (Unsupported). Past the timeout, or for a refusal that will
// not pass, the instance goes back to the type it last ran with and is started, and
// the new type is refused until the spec names another.
func (r *EC2InstanceReconciler) typeChangeStartFailed(ctx context.Context, s *instanceScope, inst *ec2.Instance, startErr error) (ctrl.Result, bool, error) {
	st := &s.obj.Status
	deadline := st.TypeChangeStarted.Add(r.TypeChangeTimeout)
	wanted := s.obj.Spec.InstanceType
	if ec2.KindOf(startErr) == ec2.KindCapacity && r.now().Before(deadline) {
		msg := fmt.Sprintf("%s; retrying until %s, then the instance goes back to %s",
			messageFor("starting instance "+inst.ID+" as "+wanted, startErr), deadline.UTC().Format(time.RFC3339), st.LastRunningInstanceType)
		s.notReady(computev1alpha1.ReasonInsufficientCapacity, msg)
		r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonInsufficientCapacity, msg)
		r.Metrics.ReconcileError(computev1alpha1.ReasonInsufficientCapacity)
		return ctrl.Result{}, true, fmt.Errorf("%s", msg)
	}
	if ec2.KindOf(startErr) == ec2.KindThrottled || ec2.KindOf(startErr) == ec2.KindUnknown {
		return r.failPower(s, "starting instance", startErr)
	}
	previous, refused := st.LastRunningInstanceType, wanted
	if err := s.ec2.ModifyInstanceType(ctx, inst.ID, previous); err != nil {
		return r.failPower(s, "changing instanceType back to "+previous, err)
	}
	r.forgetAttributes(s.obj.UID)
	// From here the new type is refused: should the start below fail too, the next
	// passes start the instance as it was, without changing its type again.
	st.TypeChangeStarted, st.RefusedInstanceType = nil, refused
	s.typeRefused = true
	msg := fmt.Sprintf("EC2 could not start the instance as %s (%s: %s); it goes back to %s, and %s is not tried again until spec.instanceType changes",
		refused, ec2.CodeOf(startErr), errorMessage(startErr), previous, refused)
	s.setCondition(computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonInstanceTypeUnavailable, msg)
	r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonInstanceTypeUnavailable, msg)
	r.Metrics.ReconcileError(computev1alpha1.ReasonInstanceTypeUnavailable)
	if err := s.ec2.StartInstance(ctx, inst.ID); err != nil {
		return r.failPower(s, "starting instance as "+previous, err)
	}
	now := metav1.NewTime(r.now().UTC().Truncate(time.Second))
	st.LastStartAttempt = &now
	s.notReady(computev1alpha1.ReasonInstanceTypeUnavailable, msg)
	return ctrl.Result{RequeueAfter: r.PollInterval}, true, nil
}

// startFailed reports whether a stopped instance stopped on its own right after the
// operator started it: EC2 gives a client or server error as the state reason (an
// unusable KMS key on its encrypted volume: Client.InternalError), not a user's stop.
func (r *EC2InstanceReconciler) startFailed(inst *ec2.Instance, st *computev1alpha1.EC2InstanceStatus) bool {
	return st.LastStartAttempt != nil && isLaunchFailure(inst.StateReasonCode)
}

// startFailedWait counts a start that failed (once per start) and keeps the instance stopped until a backoff that grows with each failure in a
// row has passed since the last start; it reports whether to wait.
func (r *EC2InstanceReconciler) startFailedWait(s *instanceScope, inst *ec2.Instance) (ctrl.Result, bool) {
	st := &s.obj.Status
	wait := r.recreationBackoff(st.StartFailures)
	if !st.LastFailedStart.Equal(st.LastStartAttempt) {
		st.StartFailures++
		st.LastFailedStart = st.LastStartAttempt.DeepCopy()
		wait = r.recreationBackoff(st.StartFailures)
		msg := fmt.Sprintf("instance %s stopped again right after it was started (%s); starting it again in %s",
			inst.ID, orNone(inst.StateReason), wait)
		r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonStartFailed, msg)
		r.Metrics.ReconcileError(computev1alpha1.ReasonStartFailed)
	}
	remaining := st.LastStartAttempt.Add(wait).Sub(r.now())
	if remaining <= 0 {
		return ctrl.Result{}, false
	}
	s.notReady(computev1alpha1.ReasonStartFailed, fmt.Sprintf("instance %s stopped again right after it was started %d time(s) in a row (%s); next start in %s",
		inst.ID, st.StartFailures, orNone(inst.StateReason), remaining.Round(time.Second)))
	return ctrl.Result{RequeueAfter: remaining}, true
}

// isRefusal tells EC2 refusing a change as asked (it will refuse it again) from
// failures worth retrying.
func isRefusal(err error) bool {
	switch ec2.KindOf(err) {
	case ec2.KindInvalidInput, ec2.KindTerminal:
		return true
	}
	return false
}

// failPower is fail for the power step, which reports whether the pass ends.
func (r *EC2InstanceReconciler) failPower(s *instanceScope, action string, err error) (ctrl.Result, bool, error) {
	res, err := r.fail(s, action, err)
	return res, true, err
}

// stoppedOutOfBand tells a stop the operator did not ask for: the last pass neither
// stopped the instance nor kept it stopped on purpose.
func stoppedOutOfBand(s *instanceScope) bool {
	c := s.before.Status.Conditions
	ready := meta.FindStatusCondition(c, computev1alpha1.ConditionReady)
	if ready == nil || s.before.Status.State == "" {
		return false
	}
	if ready.Reason == computev1alpha1.ReasonStopping {
		// Stopping because the operator stopped it, or seen stopping (an EC2 event
		// brings the object back while a stop made elsewhere is under way).
		return !operatorStopped(ready.Message)
	}
	return ready.Reason != computev1alpha1.ReasonStopped && ready.Reason != computev1alpha1.ReasonUpdating
}

// operatorStopped tells the Ready message of a stop the operator made (stop) from
// that of a stop it only saw (readyReasonForState).
func operatorStopped(message string) bool {
	return strings.HasPrefix(message, "stopping instance ") || strings.HasPrefix(message, "hibernating instance ")
}

func (r *EC2InstanceReconciler) stop(ctx context.Context, s *instanceScope, inst *ec2.Instance, why string) (ctrl.Result, bool, error) {
	if s.obj.Spec.DesiredState == computev1alpha1.DesiredStateHibernated && inst.HibernationConfigured {
		// Hibernation saves the memory to the root volume; the next start restores it.
		if err := s.ec2.HibernateInstance(ctx, inst.ID); err != nil {
			return r.failPower(s, "hibernating instance", err)
		}
		r.event(s, corev1.EventTypeNormal, computev1alpha1.ReasonStopping, "hibernating instance "+inst.ID+": "+why)
		s.notReady(computev1alpha1.ReasonStopping, "hibernating instance "+inst.ID+": "+why)
		return ctrl.Result{RequeueAfter: r.PollInterval}, true, nil
	}
	if err := s.ec2.StopInstance(ctx, inst.ID); err != nil {
		return r.failPower(s, "stopping instance", err)
	}
	r.event(s, corev1.EventTypeNormal, computev1alpha1.ReasonStopping, "stopping instance "+inst.ID+": "+why)
	s.notReady(computev1alpha1.ReasonStopping, "stopping instance "+inst.ID+": "+why)
	return ctrl.Result{RequeueAfter: r.PollInterval}, true, nil
}
