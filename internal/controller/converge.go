package controller

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// reasonUserDataPending says the spec's user data waits for the instance's next stop.
const reasonUserDataPending = "UserDataPendingStop"

// converge moves an existing instance one step toward the spec: tags, then the changes
// EC2 makes in place, then the power state and the changes that need a stopped
// instance. Every step reads the instance first, so repeating a pass is harmless.
func (r *EC2InstanceReconciler) converge(ctx context.Context, s *instanceScope, inst *ec2.Instance) (ctrl.Result, error) {
	r.recordFirstRunning(s, inst)
	observeInstance(s, inst)
	r.Metrics.InstanceState(s.obj.UID, inst.State)
	s.setCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionTrue, "Launched", "instance "+inst.ID+" exists")

	// Another object's ownership tag means two objects claim this instance (two
	// adoptions raced). Changing anything would make them fight, so this one stops.
	if owner := inst.Tags[ec2.TagOwnerUID]; owner != "" && owner != string(s.obj.UID) {
		msg := fmt.Sprintf("instance %s is managed by EC2Instance %s/%s; not changing it", inst.ID,
			inst.Tags[ec2.TagOwnerNamespace], inst.Tags[ec2.TagOwnerName])
		if c := s.condition(computev1alpha1.ConditionReady); c == nil || c.Reason != computev1alpha1.ReasonOwnedByAnother {
			r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonOwnedByAnother, msg)
		}
		s.notReady(computev1alpha1.ReasonOwnedByAnother, msg)
		return ctrl.Result{RequeueAfter: r.resyncAfter()}, nil
	}

	if err := r.syncTags(ctx, s, inst); err != nil {
		return r.fail(s, "updating tags", err)
	}

	if inst.State == ec2.StatePending || inst.State == ec2.StateStopping {
		s.notReady(readyReasonForState(inst.State), fmt.Sprintf("instance %s is %s", inst.ID, inst.State))
		return ctrl.Result{RequeueAfter: r.PollInterval}, nil
	}

	seen, err := r.observeAttributes(ctx, s, inst)
	if err != nil {
		return r.fail(s, "reading instance attributes", err)
	}
	drifts := findDrift(s.obj, inst, seen)

	var applied []string
	var whileStopped []drift
	var firstErr error
	var failedField string
	for _, d := range drifts {
		if d.needsStopped {
			whileStopped = append(whileStopped, d)
			continue
		}
		// One refused change (say, a volume still in EBS's six-hour modification
		// cooldown) must not hold back the others.
		if err := d.apply(ctx, s.ec2, inst.ID); err != nil {
			if firstErr == nil {
				firstErr, failedField = err, d.field
			}
			continue
		}
		r.driftCorrected(s, d)
		applied = append(applied, d.field)
	}
	if firstErr != nil {
		r.forgetAttributes(s.obj.UID)
		return r.fail(s, "changing "+failedField, firstErr)
	}

	if len(applied) > 0 {
		// What was just changed must be read again, whatever the power step does.
		r.forgetAttributes(s.obj.UID)
	}
	if res, done, err := r.convergePower(ctx, s, inst, whileStopped); done {
		return res, err
	}

	if len(applied) > 0 {
		// Read the instance again on the next pass to confirm what was applied.
		r.forgetAttributes(s.obj.UID)
		s.notReady(computev1alpha1.ReasonUpdating, "applied "+strings.Join(applied, ", "))
		return ctrl.Result{RequeueAfter: r.PollInterval}, nil
	}
	r.settle(s, inst, whileStopped)
	return ctrl.Result{RequeueAfter: r.resyncAfter()}, nil
}

// convergePower brings the instance to the desired power state, stopping it when a
// change needs a stopped instance. It reports done when the pass should end here.
func (r *EC2InstanceReconciler) convergePower(ctx context.Context, s *instanceScope, inst *ec2.Instance, whileStopped []drift) (ctrl.Result, bool, error) {
	wantRunning := s.obj.Spec.DesiredState != computev1alpha1.DesiredStateStopped
	typeChange := slices.IndexFunc(whileStopped, func(d drift) bool { return d.field == "instanceType" })

	switch inst.State {
	case ec2.StateRunning:
		switch {
		case !wantRunning:
			return r.stop(ctx, s, inst, "desiredState is stopped")
		case typeChange >= 0 && r.updateFailedForGeneration(s):
			// The last stop for this very spec ended with EC2 refusing the change;
			// stopping again would only take the instance down again for nothing.
			c := s.condition(computev1alpha1.ConditionSynced)
			s.notReady(computev1alpha1.ReasonUpdateFailed, c.Message)
			return ctrl.Result{RequeueAfter: r.resyncAfter()}, true, nil
		case typeChange >= 0:
			d := whileStopped[typeChange]
			return r.stop(ctx, s, inst, fmt.Sprintf("changing instanceType from %s to %s needs a stopped instance; it starts again afterwards", d.actual, d.desired))
		}
	case ec2.StateStopped:
		if wantRunning && inst.Spot && strings.HasPrefix(inst.StateReasonCode, "Server.SpotInstance") {
			// Only EC2 may restart a Spot Instance it interrupted, when capacity returns.
			s.notReady(computev1alpha1.ReasonSpotInterrupted, "EC2 interrupted the Spot Instance ("+inst.StateReason+"); EC2 restarts it when capacity returns")
			return ctrl.Result{RequeueAfter: r.resyncAfter()}, true, nil
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
			why := "desiredState is running"
			if len(whileStopped) == 0 && stoppedOutOfBand(s) {
				why = "it was stopped outside Kubernetes and desiredState is running"
				r.Metrics.DriftCorrected("desiredState")
			}
			if err := s.ec2.StartInstance(ctx, inst.ID); err != nil {
				return r.failPower(s, "starting instance", err)
			}
			r.event(s, corev1.EventTypeNormal, computev1alpha1.ReasonStarting, "starting instance "+inst.ID+": "+why)
			s.notReady(computev1alpha1.ReasonStarting, "starting instance "+inst.ID)
			return ctrl.Result{RequeueAfter: r.PollInterval}, true, nil
		}
		if len(whileStopped) > 0 {
			s.notReady(computev1alpha1.ReasonUpdating, "applied changes to the stopped instance")
			return ctrl.Result{RequeueAfter: r.PollInterval}, true, nil
		}
	}
	return ctrl.Result{}, false, nil
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

// updateFailedForGeneration reports whether a change that needs a stopped instance
// already failed for the current spec.
func (r *EC2InstanceReconciler) updateFailedForGeneration(s *instanceScope) bool {
	c := s.condition(computev1alpha1.ConditionSynced)
	return c != nil && c.Reason == computev1alpha1.ReasonUpdateFailed && c.ObservedGeneration == s.obj.Generation
}

// stoppedOutOfBand tells a stop the operator did not ask for: the last pass neither
// stopped the instance nor kept it stopped on purpose.
func stoppedOutOfBand(s *instanceScope) bool {
	c := s.before.Status.Conditions
	ready := meta.FindStatusCondition(c, computev1alpha1.ConditionReady)
	if ready == nil || s.before.Status.State == "" {
		return false
	}
	return ready.Reason != computev1alpha1.ReasonStopping && ready.Reason != computev1alpha1.ReasonStopped &&
		ready.Reason != computev1alpha1.ReasonUpdating
}

func (r *EC2InstanceReconciler) stop(ctx context.Context, s *instanceScope, inst *ec2.Instance, why string) (ctrl.Result, bool, error) {
	if err := s.ec2.StopInstance(ctx, inst.ID); err != nil {
		return r.failPower(s, "stopping instance", err)
	}
	r.event(s, corev1.EventTypeNormal, computev1alpha1.ReasonStopping, "stopping instance "+inst.ID+": "+why)
	s.notReady(computev1alpha1.ReasonStopping, "stopping instance "+inst.ID+": "+why)
	return ctrl.Result{RequeueAfter: r.PollInterval}, true, nil
}

// settle records an instance that matches the spec: Ready, and Synced unless user
// data waits for a stop or an adopted instance differs in immutable fields.
func (r *EC2InstanceReconciler) settle(s *instanceScope, inst *ec2.Instance, whileStopped []drift) {
	immutable := immutableDifferences(s.obj, inst)
	switch {
	case len(immutable) > 0:
		msg := "immutable fields differ from the instance and are not changed: " + strings.Join(immutable, "; ")
		if c := s.condition(computev1alpha1.ConditionSynced); c == nil || c.Message != msg {
			r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonImmutableFieldDiffer, msg)
		}
		s.setCondition(computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonImmutableFieldDiffer, msg)
	case len(whileStopped) > 0:
		s.setCondition(computev1alpha1.ConditionSynced, metav1.ConditionFalse, reasonUserDataPending,
			"userData changed; EC2 applies user data only to a stopped instance, so it takes effect at the next stop")
	default:
		s.setCondition(computev1alpha1.ConditionSynced, metav1.ConditionTrue, computev1alpha1.ReasonInSync, "every mutable field matches the spec")
	}
	msg := fmt.Sprintf("instance %s is %s", inst.ID, inst.State)
	reason := computev1alpha1.ReasonAvailable
	if inst.State == ec2.StateStopped {
		reason = computev1alpha1.ReasonStopped
		msg += " as desired"
	}
	s.setCondition(computev1alpha1.ConditionReady, metav1.ConditionTrue, reason, msg)
}

// syncTags applies the desired tags to the instance and its volumes, and removes only
// the tags the operator applied before that have left the spec.
func (r *EC2InstanceReconciler) syncTags(ctx context.Context, s *instanceScope, inst *ec2.Instance) error {
	desired := desiredTags(s.obj)
	toSet, toDelete := ec2.TagDiff(desired, inst.Tags, s.obj.Status.ManagedTagKeys)
	resources := append([]string{inst.ID}, inst.VolumeIDs...)
	if len(toSet) > 0 {
		if err := s.ec2.CreateTags(ctx, resources, toSet); err != nil {
			return err
		}
		r.driftCorrected(s, drift{field: "tags", desired: "set " + strings.Join(sortedKeys(toSet), ","), actual: "missing or different"})
	}
	if len(toDelete) > 0 {
		if err := s.ec2.DeleteTags(ctx, resources, toDelete); err != nil {
			return err
		}
		r.driftCorrected(s, drift{field: "tags", desired: "removed " + strings.Join(toDelete, ","), actual: "present"})
	}
	s.obj.Status.ManagedTagKeys = sortedKeys(desired)
	return nil
}

// driftCorrected reports one applied correction as an event and a metric.
func (r *EC2InstanceReconciler) driftCorrected(s *instanceScope, d drift) {
	r.Metrics.DriftCorrected(d.field)
	r.event(s, corev1.EventTypeNormal, "DriftCorrected", fmt.Sprintf("%s: %s -> %s", d.field, d.actual, d.desired))
}

// recordFirstRunning observes the time from the object's creation to its first
// instance reaching running.
func (r *EC2InstanceReconciler) recordFirstRunning(s *instanceScope, inst *ec2.Instance) {
	before := s.before.Status
	if inst.State != ec2.StateRunning || before.State == ec2.StateRunning || before.Recreations > 0 {
		return
	}
	if before.State != "" && before.State != ec2.StatePending {
		return
	}
	r.Metrics.FirstRunning(r.now().Sub(s.obj.CreationTimestamp.Time))
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
