package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// reasonUserDataPending says the spec's user data waits for the instance's next stop;
// reasonPendingStop says the same of other changes EC2 makes only to a stopped
// instance (the hostname type, the Capacity Reservation), with or without user data.
const (
	reasonUserDataPending = "UserDataPendingStop"
	reasonPendingStop     = "ChangesPendingStop"
)

// converge moves an existing instance one step toward the spec: tags, then the changes
// EC2 makes in place, then the power state and the changes that need a stopped
// instance. Every step reads the instance first, so repeating a pass is harmless. Each
// aspect is converged on its own: one that EC2 refuses (tags without permission, a
// volume in its modification cooldown) is reported, and the others, the power state
// among them, are still brought to the spec.
func (r *EC2InstanceReconciler) converge(ctx context.Context, s *instanceScope, inst *ec2.Instance) (ctrl.Result, error) {
	r.recordFirstRunning(s, inst)
	observeInstance(s, inst)
	r.Metrics.InstanceState(s.obj.UID, inst.State)
	if c := s.condition(computev1alpha1.ConditionInstanceLaunched); c == nil || c.Status != metav1.ConditionTrue {
		// Set once: a note made when the instance was found (taken over after a
		// restore) stays until the instance is replaced.
		s.setCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionTrue, "Launched", "instance "+inst.ID+" exists")
	}
	rememberRootVolume(s, inst)
	r.reportSpotInterruption(s, inst.ID)
	if inst.State == ec2.StateRunning {
		s.obj.Status.LastRunningInstanceType = inst.InstanceType
	}

	// Another object's ownership tag means two objects claim this instance (two
	// adoptions raced). Changing anything would make them fight, so this one stops.
	if owner := ec2.OwnerTag(inst.Tags, ec2.TagOwnerUID); owner != "" && owner != string(s.obj.UID) {
		msg := fmt.Sprintf("instance %s is managed by EC2Instance %s/%s; not changing it", inst.ID,
			ec2.OwnerTag(inst.Tags, ec2.TagOwnerNamespace), ec2.OwnerTag(inst.Tags, ec2.TagOwnerName))
		if c := s.condition(computev1alpha1.ConditionReady); c == nil || c.Reason != computev1alpha1.ReasonOwnedByAnother {
			r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonOwnedByAnother, msg)
		}
		s.notReady(computev1alpha1.ReasonOwnedByAnother, msg)
		return ctrl.Result{RequeueAfter: r.resyncAfter()}, nil
	}
	// Another cluster's tag (a status restored from that cluster's backup, a cluster
	// ID changed by hand): that cluster's operator manages the instance.
	if r.claimOf(s, inst.Tags) == claimOtherCluster {
		return r.instanceExists(s, otherClusterMessage(inst, r.ClusterID, "not changing it")), nil
	}

	var failed aspectFailures
	// The ownership tags take the form the metadata options need before the options
	// change: EC2 refuses to expose tags in instance metadata while a key has a slash.
	if err := r.tagWithCluster(ctx, s, inst); err != nil {
		failed.add("tags", err)
	} else if err := r.migrateOwnershipTags(ctx, s, inst); err != nil {
		failed.add("tags", err)
	} else if err := r.syncTags(ctx, s, inst); err != nil {
		failed.add("tags", err)
	}

	if inst.State == ec2.StatePending || inst.State == ec2.StateStopping {
		if s.obj.Spec.ElasticIP != nil {
			s.setCondition(computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionFalse, computev1alpha1.ReasonAssociationPending,
				fmt.Sprintf("the Elastic IP waits for instance %s, which is %s", inst.ID, inst.State))
		}
		s.notReady(readyReasonForState(inst.State), fmt.Sprintf("instance %s is %s", inst.ID, inst.State))
		return r.report(s, failed, ctrl.Result{RequeueAfter: r.PollInterval})
	}
	if s.obj.Spec.SecurityGroupSelector != nil {
		// Followed on every pass (answers are shared between objects for a few seconds),
		// so that a group gaining the selector's tags joins within a resync.
		groups, err := r.desiredGroups(ctx, s, inst.VPCID)
		if err != nil {
			failed.add("securityGroupSelector", err)
			groups = inst.SecurityGroupIDs // leave the groups as they are
		}
		s.obj.Status.SecurityGroupIDs = sortedCopy(groups)
	}

	seen, fresh, err := r.observeAttributes(ctx, s, inst)
	if err != nil {
		failed.add("attributes", err)
	}
	if fresh {
		// As rarely as the attributes: is this the only instance with the tags?
		r.reportExtras(ctx, s, inst.ID)
	}
	userData := s.obj.Spec.UserData
	if seen.attrs != nil && s.obj.Spec.UserDataFrom != nil {
		// Read only when there is something to compare it with.
		var err error
		if userData, err = r.desiredUserData(ctx, s.obj); err != nil {
			failed.add("userDataFrom", err)
		}
	}
	drifts := findDrift(s.obj, inst, seen, userData)

	var applied []string
	var whileStopped []drift
	for _, d := range drifts {
		if d.needsStopped {
			whileStopped = append(whileStopped, d)
			continue
		}
		if err := d.apply(ctx, s.ec2, inst.ID); err != nil {
			failed.add(d.field, err)
			continue
		}
		r.driftCorrected(s, d)
		applied = append(applied, d.field)
	}
	var moving []string
	if busy, err := r.convergeVolumes(ctx, s, inst, fresh); err != nil {
		failed.add("volumes", err)
	} else if busy {
		moving = append(moving, "volumes")
	}
	if busy, err := r.convergeElasticIP(ctx, s, inst); err != nil {
		failed.add("elasticIp", err)
	} else if busy {
		moving = append(moving, "elasticIp")
	}
	if len(applied) > 0 || len(failed) > 0 {
		// What was just changed, or failed to change, must be read again, whatever the
		// power step does.
		r.forgetAttributes(s.obj.UID)
	}
	if res, done, err := r.convergePower(ctx, s, inst, whileStopped); done {
		if err != nil {
			failed.add("power state", err)
		}
		return r.report(s, failed, res)
	}

	if len(applied) > 0 || len(moving) > 0 {
		msg := "applied " + strings.Join(applied, ", ")
		if len(applied) == 0 {
			msg = "changing " + strings.Join(moving, ", ")
		}
		s.notReady(computev1alpha1.ReasonUpdating, msg)
		return r.report(s, failed, ctrl.Result{RequeueAfter: r.PollInterval})
	}
	if len(failed) > 0 {
		return r.report(s, failed, ctrl.Result{})
	}
	r.settle(s, inst, whileStopped)
	return ctrl.Result{RequeueAfter: r.resyncAfter()}, nil
}

// aspectFailure is one aspect of the instance EC2 would not change.
type aspectFailure struct {
	aspect string
	err    error
}

// aspectFailures collects the aspects that failed in one pass.
type aspectFailures []aspectFailure

func (f *aspectFailures) add(aspect string, err error) {
	*f = append(*f, aspectFailure{aspect: aspect, err: err})
}

// report ends a pass. Without failures it returns res. With failures, Ready says all
// of them in one message (with the first one's reason) and each gets a Warning
// event; while the power state is still moving (res asks to come back soon) the pass
// comes back then, otherwise it backs off like any failed reconcile.
func (r *EC2InstanceReconciler) report(s *instanceScope, failed aspectFailures, res ctrl.Result) (ctrl.Result, error) {
	var msgs []string
	var first error
	for _, f := range failed {
		if ec2.CodeOf(f.err) == ec2.CodeClientRateLimited {
			// Held back by the operator's own budget: not a failure, only later.
			wait := ec2.RetryAfterOf(f.err)
			if res.RequeueAfter == 0 || wait < res.RequeueAfter {
				res.RequeueAfter = wait + jitter(wait/10)
			}
			continue
		}
		var reported *reportedError
		if errors.As(f.err, &reported) {
			// Already reported where it happened, with its own action.
			msgs = append(msgs, reported.msg)
		} else {
			msg := messageFor("changing "+f.aspect, f.err)
			msgs = append(msgs, msg)
			r.event(s, corev1.EventTypeWarning, reasonFor(f.err), msg)
			r.Metrics.ReconcileError(reasonFor(f.err))
		}
		if first == nil {
			first = f.err
		}
	}
	if first == nil {
		return res, nil
	}
	message := strings.Join(msgs, "; ")
	if c := s.condition(computev1alpha1.ConditionReady); c != nil && c.Status == metav1.ConditionFalse && !isFailureReason(c.Reason) {
		// Keep what the power step is doing in view too.
		message += "; meanwhile: " + c.Message
	}
	s.notReady(reasonFor(first), message)
	if res.RequeueAfter > 0 {
		return res, nil
	}
	return ctrl.Result{}, errors.New(message)
}

// isFailureReason tells reasons that report a failure from those of progress.
func isFailureReason(reason string) bool {
	switch reason {
	case computev1alpha1.ReasonProvisioning, computev1alpha1.ReasonPending, computev1alpha1.ReasonStarting,
		computev1alpha1.ReasonStopping, computev1alpha1.ReasonStopped, computev1alpha1.ReasonUpdating:
		return false
	}
	return true
}

// settle records an instance that matches the spec: Ready, and Synced unless user
// data waits for a stop or an adopted instance differs in immutable fields.
func (r *EC2InstanceReconciler) settle(s *instanceScope, inst *ec2.Instance, whileStopped []drift) {
	if s.typeRefused {
		// The instance runs (or rests) with the type it had; the spec's type is one EC2
		// refused, which Synced says, and Ready repeats until the spec changes.
		if c := s.condition(computev1alpha1.ConditionSynced); c != nil && c.Status == metav1.ConditionFalse {
			s.notReady(c.Reason, c.Message)
		} else {
			s.notReady(computev1alpha1.ReasonUpdateFailed, "EC2 refused instanceType "+s.obj.Spec.InstanceType)
		}
		return
	}
	immutable := immutableDifferences(s.obj, inst)
	switch {
	case len(immutable) > 0:
		msg := "immutable fields differ from the instance and are not changed: " + strings.Join(immutable, "; ")
		if c := s.condition(computev1alpha1.ConditionSynced); c == nil || c.Message != msg {
			r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonImmutableFieldDiffer, msg)
		}
		s.setCondition(computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonImmutableFieldDiffer, msg)
	case len(whileStopped) > 0:
		var fields []string
		for _, d := range whileStopped {
			fields = append(fields, d.field)
		}
		reason := reasonPendingStop
		if len(fields) == 1 && fields[0] == "userData" {
			reason = reasonUserDataPending
		}
		s.setCondition(computev1alpha1.ConditionSynced, metav1.ConditionFalse, reason,
			strings.Join(fields, ", ")+" changed; EC2 applies that only to a stopped instance, so it takes effect at the next stop (or set desiredState: stopped)")
	default:
		s.setCondition(computev1alpha1.ConditionSynced, metav1.ConditionTrue, computev1alpha1.ReasonInSync, "every mutable field matches the spec")
	}
	msg := fmt.Sprintf("instance %s is %s", inst.ID, inst.State)
	reason := computev1alpha1.ReasonAvailable
	if inst.State == ec2.StateStopped {
		reason = computev1alpha1.ReasonStopped
		msg += " as desired"
		if s.obj.Spec.DesiredState == computev1alpha1.DesiredStateHibernated {
			reason = computev1alpha1.ReasonHibernated
			if inst.StateReasonCode != "Client.UserInitiatedHibernate" {
				// It was stopped before the spec asked for hibernation: a stopped
				// instance cannot be hibernated, and starting it to do so would lose
				// nothing but cost a boot, so it stays stopped.
				msg = fmt.Sprintf("instance %s is stopped (it was not running when hibernation was asked for)", inst.ID)
			} else {
				msg = fmt.Sprintf("instance %s is hibernated as desired", inst.ID)
			}
		}
	}
	s.setCondition(computev1alpha1.ConditionReady, metav1.ConditionTrue, reason, msg)
}

// syncTags applies the desired tags to the instance and its volumes, and removes only
// the tags the operator applied before that have left the spec.
func (r *EC2InstanceReconciler) syncTags(ctx context.Context, s *instanceScope, inst *ec2.Instance) error {
	desired := desiredTags(s.obj, r.ClusterID)
	safe := wantsSafeOwnership(&s.obj.Spec, inst)
	toSet, toDelete := ec2.TagDiff(ownershipForm(desired, safe), inst.Tags, s.obj.Status.ManagedTagKeys)
	toDelete = slices.DeleteFunc(toDelete, ec2.IsOwnershipKey) // moved by migrateOwnershipTags only
	resources := append([]string{inst.ID}, launchVolumes(s, inst)...)
	if ownSet := ownershipOnly(toSet); safe && len(ownSet) > 0 {
		// The safe form is the instance's alone: its volumes keep the slash form.
		if err := s.ec2.CreateTags(ctx, []string{inst.ID}, ownSet); err != nil {
			return err
		}
		for k := range ownSet {
			delete(toSet, k)
		}
	}
	if err := checkTagBudget(inst, toSet, toDelete); err != nil {
		return err
	}
	// One event for the pass, naming what was set and what was removed: two events
	// with the same reason on an unchanged object would be folded into one series by
	// the events recorder, and the second note would never be shown.
	var done []string
	defer func() {
		if len(done) > 0 {
			r.driftCorrected(s, drift{field: "tags", actual: "differed from the spec", desired: strings.Join(done, "; ")})
		}
	}()
	if len(toSet) > 0 {
		if err := s.ec2.CreateTags(ctx, resources, toSet); err != nil {
			if ec2.IsTagLimitExceeded(err) {
				// What this pass knew of the instance's tags was older than EC2's
				// (tags added outside Kubernetes): the next pass reads them afresh and
				// refuses without calling (checkTagBudget).
				s.ec2.Invalidate(inst.ID)
			}
			return err
		}
		done = append(done, "set "+strings.Join(sortedKeys(toSet), ","))
	}
	if len(toDelete) > 0 {
		if err := s.ec2.DeleteTags(ctx, resources, toDelete); err != nil {
			return err
		}
		done = append(done, "removed "+strings.Join(toDelete, ","))
	}
	s.obj.Status.ManagedTagKeys = sortedKeys(desired)
	return nil
}

// checkTagBudget refuses, without calling EC2, tags that would take the instance past
// EC2's 50 tags: tags added outside Kubernetes count too, and a CreateTags that cannot
// succeed would be retried for ever. The refusal names the counts; removing tags (in
// the spec or outside) lets the next pass through.
func checkTagBudget(inst *ec2.Instance, toSet map[string]string, toDelete []string) error {
	after := len(inst.Tags)
	for k := range toSet {
		if _, has := inst.Tags[k]; !has {
			after++
		}
	}
	for _, k := range toDelete {
		if _, has := inst.Tags[k]; has {
			after--
		}
	}
	if after <= maxInstanceTags {
		return nil
	}
	return &ec2.Error{Kind: ec2.KindInvalidInput, Operation: "CreateTags", Code: codeTagBudget,
		Message: fmt.Sprintf("instance %s has %d tags, and setting %s would make %d; EC2 allows %d per resource (tags added outside Kubernetes count too): remove tags from the spec or from the instance",
			inst.ID, len(inst.Tags), strings.Join(sortedKeys(toSet), ","), after, maxInstanceTags)}
}

// codeTagBudget marks tags refused before CreateTags for EC2's per-resource limit.
const codeTagBudget = "TagLimitExceeded"

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
