package controller

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// ensureInstance returns the instance the object manages, launching or adopting it
// when there is none yet. A nil instance means the pass ends with the returned result.
func (r *EC2InstanceReconciler) ensureInstance(ctx context.Context, s *instanceScope) (*ec2.Instance, ctrl.Result, error) {
	st := &s.obj.Status
	if st.InstanceID == "" {
		if s.obj.Spec.InstanceID != "" {
			return r.adopt(ctx, s)
		}
		return r.launch(ctx, s)
	}

	if r.events.takeStale(st.InstanceID) {
		// An EC2 event said the instance changed: what the client remembers is older.
		s.ec2.Invalidate(st.InstanceID)
	}
	inst, err := s.ec2.GetInstance(ctx, st.InstanceID)
	switch {
	case ec2.IsNotFound(err):
		return r.instanceMissing(ctx, s)
	case err != nil:
		res, err := r.fail(s, "describing instance "+st.InstanceID, err)
		return nil, res, err
	}
	if inst.State == ec2.StateShuttingDown || inst.State == ec2.StateTerminated {
		return r.instanceTerminated(ctx, s, inst)
	}
	return inst, ctrl.Result{}, nil
}

// launch finds an instance launched earlier for this object whose ID was never
// recorded, and launches one only when there is none. The client token and the launch
// time are recorded before RunInstances, so even a launch whose answer was lost is
// found again (or answered with the same instance when repeated).
//
// The cost of a launch is kept to what it needs: a new object (no launch recorded)
// is not looked up in EC2 first, the launch record is one status write, and the
// instance ID is written together with the state the next pass sees (Ready, for an
// instance that is running by then), from the instance remembered in memory.
func (r *EC2InstanceReconciler) launch(ctx context.Context, s *instanceScope) (*ec2.Instance, ctrl.Result, error) {
	st := &s.obj.Status
	token := ec2.ClientToken(string(s.obj.UID), st.Recreations)

	if id, ok := r.launched.get(s.obj.UID, token); ok && st.ClientToken == token {
		return r.launchedEarlier(ctx, s, id)
	}
	if r.launchStalled(s) {
		// EC2 keeps answering this token with a conflict; nothing more is tried until
		// the spec or the retry annotation changes.
		return nil, ctrl.Result{}, nil
	}
	// An object that never launched may have had an instance under another UID (it
	// was deleted without its finalizer and re-created, as a backup restore does).
	if st.LastLaunchAttempt == nil && st.Recreations == 0 && !r.launched.notSent(s.obj.UID, token) {
		found, res, done, err := r.restoreCheck(ctx, s)
		if found != nil || done || err != nil {
			return found, res, err
		}
	}
	// A launch may have happened before (a lost answer, a crash): find it first,
	// unless this process knows that no RunInstances with this token was sent.
	if (st.LastLaunchAttempt != nil || st.Recreations > 0) && !r.launched.notSent(s.obj.UID, token) {
		found, err := r.findOwnInstance(ctx, s, token)
		if err != nil {
			res, err := r.fail(s, "looking for an instance launched earlier", err)
			return nil, res, err
		}
		if found != nil {
			r.event(s, corev1.EventTypeNormal, "InstanceFound", fmt.Sprintf("found instance %s launched earlier for this object; managing it", found.ID))
			rememberLaunchVolumes(s, found)
			return found, ctrl.Result{}, r.recordInstance(ctx, s, found)
		}
	}

	// EC2 allows few launches a second per account; while the budget is spent, the
	// object waits its turn without holding a worker or writing anything.
	if wait := s.ec2.LaunchDelay(); wait > maxLaunchWait {
		// Nothing was sent under this token, and the checks above found nothing: the
		// next pass goes straight to the launch, without listing or looking again.
		r.launched.putNotSent(s.obj.UID, token)
		return nil, ctrl.Result{RequeueAfter: wait + jitter(wait/10)}, nil
	}

	// User data from a Secret or ConfigMap must be readable before anything is
	// launched: a missing one is the user's to fix, not EC2's to refuse. Its version is
	// taken first, so that an edit after the read makes the attributes due.
	source := r.sourceVersion(s.obj)
	userData, err := r.desiredUserData(ctx, s.obj)
	if err != nil {
		res, err := r.fail(s, "reading the user data", err)
		return nil, res, err
	}
	// The subnet and security groups the selectors pick are part of the launch record,
	// so that a retried launch sends the same parameters.
	newRecord := st.ClientToken != token || st.LastLaunchAttempt == nil
	if err := r.chooseImage(ctx, s, newRecord); err != nil {
		res, err := r.fail(s, "choosing the image", err)
		return nil, res, err
	}
	if err := r.choosePlacement(ctx, s, newRecord); err != nil {
		res, err := r.fail(s, "choosing the subnet and security groups", err)
		return nil, res, err
	}
	if err := r.checkChosenGuardrails(ctx, s, s.image); err != nil {
		if errors.Is(err, errAccountRefused{}) {
			return nil, accountRefusedResult(), nil
		}
		res, err := r.fail(s, "checking the subnet's VPC against the account's guardrails", err)
		return nil, res, err
	}
	// The account the operator's own credentials act in is part of the launch record:
	// moved credentials must not make the instance look gone.
	if err := r.pinOwnAccount(ctx, s); err != nil {
		return nil, ctrl.Result{}, err
	}
	// The launch record, in one write before RunInstances, so that a launch whose
	// answer is lost is waited for and found, not replaced. A record this recent
	// already serves (a launch that waited for its budget comes back).
	if st.ClientToken != token || st.Region != s.region || st.LastLaunchAttempt == nil ||
		r.now().Sub(st.LastLaunchAttempt.Time) > launchRecordReuse {
		now := metav1.NewTime(r.now().UTC().Truncate(time.Second))
		st.ClientToken = token
		st.Region = s.region
		st.LastLaunchAttempt = &now
		s.setCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionFalse, computev1alpha1.ReasonProvisioning, "launching an instance")
		s.notReady(computev1alpha1.ReasonProvisioning, "launching an instance")
		if err := s.patchStatus(ctx, r.Client); err != nil {
			return nil, ctrl.Result{}, err
		}
	}
	// From here the launch may reach EC2: what memory said about an earlier attempt
	// that was not sent (or was refused) no longer holds, whatever this one's answer.
	r.launched.forget(s.obj.UID)
	inst, err := s.ec2.RunInstance(ctx, launchRequest(s.obj, r.ClusterID, token, userData))
	if ec2.CodeOf(err) == ec2.CodeClientRateLimited {
		// Nothing was sent: the next pass launches without looking for this one.
		r.launched.putNotSent(s.obj.UID, token)
		return nil, ctrl.Result{RequeueAfter: ec2.RetryAfterOf(err) + jitter(ec2.RetryAfterOf(err)/10)}, nil
	}
	if err != nil {
		return r.launchFailed(ctx, s, err)
	}
	r.event(s, corev1.EventTypeNormal, "Launched", fmt.Sprintf("launched instance %s (%s)", inst.ID, inst.InstanceType))
	r.launched.put(s.obj.UID, token, inst.ID)
	// What was set at launch is known: the next passes compare it without reading it
	// back (DescribeInstances does not return these attributes).
	r.attributes.put(s.obj.UID, s.obj.Generation, r.now(), launchedAttributes(s.obj, userData), source)
	// A new instance is pending; the next pass looks at it with the other new ones.
	return nil, ctrl.Result{RequeueAfter: r.firstLook(s.ec2)}, nil
}

// firstLookAfterLaunch is when a new instance is first looked at, when launches are
// not being paced.
const firstLookAfterLaunch = 500 * time.Millisecond

// firstLook says when to look at an instance just launched. Soon, as it can be running
// within a second; but while launches are paced by the RunInstances budget (a bulk
// create, one launch every half second), a look one poll interval later lets one
// DescribeInstances answer all the instances launched in between, instead of one call
// per launch.
func (r *EC2InstanceReconciler) firstLook(c ec2.Client) time.Duration {
	if c.LaunchDelay() > 0 {
		return r.PollInterval
	}
	return min(r.PollInterval, firstLookAfterLaunch)
}

// maxLaunchWait is how long a launch may wait for the RunInstances budget inside a
// reconcile; longer waits come back later instead.
const maxLaunchWait = 500 * time.Millisecond

// launchRecordReuse is how old a launch record may be and still serve a launch that
// was put off for the RunInstances budget, instead of being written again.
const launchRecordReuse = time.Minute

// jitter returns a random duration up to d, so that objects waiting for the same
// budget do not all come back at once.
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(d)))
}

// launchedEarlier continues with an instance this process launched in an earlier pass
// and has not recorded yet. Its ID, and what the rest of the pass sees, are written
// once at the end of the pass.
func (r *EC2InstanceReconciler) launchedEarlier(ctx context.Context, s *instanceScope, id string) (*ec2.Instance, ctrl.Result, error) {
	inst, err := s.ec2.GetInstance(ctx, id)
	switch {
	case ec2.IsNotFound(err) && r.withinVisibilityGrace(s):
		return nil, ctrl.Result{RequeueAfter: r.PollInterval}, nil
	case ec2.IsNotFound(err):
		r.launched.forget(s.obj.UID)
		s.obj.Status.InstanceID = id
		return r.instanceMissing(ctx, s)
	case err != nil:
		res, err := r.fail(s, "describing instance "+id, err)
		return nil, res, err
	}
	r.launched.forget(s.obj.UID)
	s.obj.Status.InstanceID = inst.ID
	s.obj.Status.LaunchAttempts = 0
	rememberLaunchVolumes(s, inst)
	observeInstance(s, inst)
	s.setCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionTrue, "Launched", "instance "+inst.ID+" exists")
	if inst.State == ec2.StateShuttingDown || inst.State == ec2.StateTerminated {
		return r.instanceTerminated(ctx, s, inst)
	}
	return inst, ctrl.Result{}, nil
}

// launchedAttributes are the attributes an instance launched from the object's spec
// has, as observeAttributes would read them.
func launchedAttributes(obj *computev1alpha1.EC2Instance, userData string) observedAttributes {
	seen := observedFrom(&ec2.InstanceAttributes{
		TerminationProtection: obj.Spec.DisableAPITermination,
		UserData:              userData,
	})
	if rv := obj.Spec.RootVolume; rv != nil && rv.SizeGiB != nil {
		seen.rootSizeGiB = *rv.SizeGiB
	}
	if spec := &obj.Spec; spec.DisableAPIStop != nil || spec.InstanceInitiatedShutdownBehavior != "" {
		seen.lifecycle = &ec2.LifecycleAttributes{ShutdownBehavior: "stop"}
		if spec.DisableAPIStop != nil {
			seen.lifecycle.StopProtection = *spec.DisableAPIStop
		}
		if spec.InstanceInitiatedShutdownBehavior != "" {
			seen.lifecycle.ShutdownBehavior = spec.InstanceInitiatedShutdownBehavior
		}
	}
	if c := obj.Spec.CreditSpecification; c != nil {
		seen.credits = c.CPUCredits
	}
	return seen
}

// findOwnInstance looks for a live instance launched for this object: first by the
// client token, then by the ownership tag, which also finds instances launched under an
// earlier token. When several exist (which the token should make impossible), it
// manages the oldest and says so, rather than terminating anything on its own.
func (r *EC2InstanceReconciler) findOwnInstance(ctx context.Context, s *instanceScope, token string) (*ec2.Instance, error) {
	var live []ec2.Instance
	if token != "" {
		// An adopting object whose adoption was refused has no token, only its UID.
		candidates, err := s.ec2.FindInstances(ctx, ec2.InstanceFilter{ClientToken: token})
		if err != nil {
			return nil, err
		}
		live = r.ourLiveInstances(s, candidates)
	}
	if len(live) == 0 {
		candidates, err := s.ec2.FindInstances(ctx, ec2.InstanceFilter{Tags: map[string]string{ec2.TagOwnerUID: string(s.obj.UID)}})
		if err != nil {
			return nil, err
		}
		live = r.ourLiveInstances(s, candidates)
	}
	if len(live) == 0 {
		return nil, nil
	}
	sort.Slice(live, func(i, j int) bool { return live[i].LaunchTime.Before(live[j].LaunchTime) })
	if len(live) > 1 {
		var others []string
		for _, o := range live[1:] {
			others = append(others, o.ID)
		}
		r.event(s, corev1.EventTypeWarning, "DuplicateInstances",
			fmt.Sprintf("more than one instance carries this object's ownership tag; managing %s and leaving %v alone", live[0].ID, others))
	}
	return &live[0], nil
}

// ourLiveInstances keeps the live instances that are this object's in this cluster. An
// instance found by this object's client token or UID but tagged for another cluster
// can only be a copy with forged tags; it is not touched.
func (r *EC2InstanceReconciler) ourLiveInstances(s *instanceScope, in []ec2.Instance) []ec2.Instance {
	var out []ec2.Instance
	for _, i := range in {
		if r.claimOf(s, i.Tags) == claimOtherCluster {
			continue
		}
		if i.State != ec2.StateShuttingDown && i.State != ec2.StateTerminated {
			out = append(out, i)
		}
	}
	return out
}

// launchFailed handles RunInstances errors. The two idempotency errors are expected
// after crashes and are resolved here; everything else is reported with backoff.
func (r *EC2InstanceReconciler) launchFailed(ctx context.Context, s *instanceScope, err error) (*ec2.Instance, ctrl.Result, error) {
	st := &s.obj.Status
	switch {
	case ec2.TokenOfTerminatedInstance(err):
		// The instance launched with this token is gone: the next token launches anew.
		r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonRecreating,
			"the instance launched with client token "+st.ClientToken+" was terminated; launching a replacement with a new token")
		st.Recreations++
		st.LastLaunchAttempt, st.LaunchAttempts = nil, 0
		return nil, ctrl.Result{Requeue: true}, s.patchStatus(ctx, r.Client)
	case ec2.KindOf(err) == ec2.KindIdempotencyConflict:
		return r.idempotencyConflict(s, err)
	case ec2.RefusedOutright(err):
		// EC2 refused the launch outright, at every attempt the SDK made (a lost answer
		// followed by a refused retry launched an instance, so it is not this case):
		// nothing was launched, so nothing needs to be looked for before the next
		// attempt, or waited for when the object is deleted.
		// Memory says so too: the status write that clears the launch time can lose a
		// race with the object's deletion (a conflict), and the deletion must not then
		// wait for an instance that cannot exist.
		st.LastLaunchAttempt = nil
		r.launched.putNotSent(s.obj.UID, st.ClientToken)
	}
	res, err := r.fail(s, launchAction, err)
	return nil, res, err
}

// maxIdempotencyConflicts is how many launches in a row EC2 may answer with
// IdempotentParameterMismatch before the operator stops launching.
const maxIdempotencyConflicts = 5

// idempotencyConflict handles IdempotentParameterMismatch: a launch with this token
// succeeded earlier with other parameters (the spec changed between a lost answer and
// the retry), so an instance exists that the lookups by token and tag did not find
// (yet: EC2 is eventually consistent). The launch is retried a few times, further
// apart each time, while the lookups may find it; then the operator stops, says so,
// and launches nothing more until the spec or the retry annotation changes. Deleting
// the object still works.
func (r *EC2InstanceReconciler) idempotencyConflict(s *instanceScope, err error) (*ec2.Instance, ctrl.Result, error) {
	st := &s.obj.Status
	st.LaunchAttempts++
	st.ObservedRetry = s.obj.Annotations[computev1alpha1.RetryAnnotation]
	if st.LaunchAttempts < maxIdempotencyConflicts {
		wait := r.recreationBackoff(st.LaunchAttempts)
		msg := fmt.Sprintf("%s; an instance was launched earlier with client token %s and other parameters but cannot be found yet; "+
			"trying again in %s (%d of %d)", messageFor(launchAction, err), st.ClientToken, wait, st.LaunchAttempts, maxIdempotencyConflicts)
		s.notReady(computev1alpha1.ReasonIdempotencyConflict, msg)
		return nil, ctrl.Result{RequeueAfter: wait}, nil
	}
	msg := fmt.Sprintf("%s; EC2 says an instance was launched with client token %s and other parameters, and it cannot be found. "+
		"Launching stopped: find it with `aws ec2 describe-instances --filters Name=client-token,Values=%s`, then adopt it "+
		"(spec.instanceId) or terminate it, and set the annotation %s to a new value to try again",
		messageFor(launchAction, err), st.ClientToken, st.ClientToken, computev1alpha1.RetryAnnotation)
	s.notReady(computev1alpha1.ReasonIdempotencyConflict, msg)
	s.setCondition(computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonIdempotencyConflict, msg)
	r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonIdempotencyConflict, msg)
	r.Metrics.ReconcileError(computev1alpha1.ReasonIdempotencyConflict)
	return nil, ctrl.Result{}, nil
}

// launchStalled reports whether launching stopped after idempotency conflicts and
// nothing asked for another try since: not the spec (its generation) and not the
// retry annotation. Either resets the count.
func (r *EC2InstanceReconciler) launchStalled(s *instanceScope) bool {
	st := &s.obj.Status
	if st.LaunchAttempts < maxIdempotencyConflicts {
		return false
	}
	stalled := s.condition(computev1alpha1.ConditionStalled)
	retry := s.obj.Annotations[computev1alpha1.RetryAnnotation]
	if stalled != nil && stalled.ObservedGeneration == s.obj.Generation && retry == st.ObservedRetry {
		return true
	}
	st.LaunchAttempts = 0
	st.ObservedRetry = retry
	return false
}

// launchAction names RunInstances in conditions; withinVisibilityGrace recognises
// EC2's definitive answers to a launch by it.
const launchAction = "launching an instance"

// recordInstance writes the instance ID to status at once: from here on the instance
// is found by ID, and a crash cannot make the operator launch another.
func (r *EC2InstanceReconciler) recordInstance(ctx context.Context, s *instanceScope, inst *ec2.Instance) error {
	s.obj.Status.InstanceID = inst.ID
	s.obj.Status.LaunchAttempts = 0
	observeInstance(s, inst)
	s.setCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionTrue, "Launched", "instance "+inst.ID+" exists")
	return s.patchStatus(ctx, r.Client)
}

// adopt takes over the instance named by spec.instanceId, unless another cluster or
// another object owns it.
func (r *EC2InstanceReconciler) adopt(ctx context.Context, s *instanceScope) (*ec2.Instance, ctrl.Result, error) {
	id := s.obj.Spec.InstanceID
	inst, err := s.ec2.GetInstance(ctx, id)
	if err != nil {
		res, err := r.fail(s, "adopting instance "+id, err)
		return nil, res, err
	}
	if r.claimOf(s, inst.Tags) == claimOtherCluster {
		return nil, r.instanceExists(s, otherClusterMessage(inst, r.ClusterID, "refusing to adopt it")), nil
	}
	if owner := ec2.OwnerTag(inst.Tags, ec2.TagOwnerUID); owner != "" && owner != string(s.obj.UID) {
		msg := fmt.Sprintf("instance %s is managed by EC2Instance %s/%s; refusing to adopt it", id,
			ec2.OwnerTag(inst.Tags, ec2.TagOwnerNamespace), ec2.OwnerTag(inst.Tags, ec2.TagOwnerName))
		if c := s.condition(computev1alpha1.ConditionReady); c == nil || c.Reason != computev1alpha1.ReasonOwnedByAnother {
			r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonOwnedByAnother, msg)
		}
		s.notReady(computev1alpha1.ReasonOwnedByAnother, msg)
		r.Metrics.ReconcileError(computev1alpha1.ReasonOwnedByAnother)
		return nil, ctrl.Result{RequeueAfter: r.ResyncPeriod}, nil
	}
	if inst.State == ec2.StateShuttingDown || inst.State == ec2.StateTerminated {
		msg := fmt.Sprintf("instance %s is %s and cannot be adopted", id, inst.State)
		s.notReady(computev1alpha1.ReasonInstanceNotFound, msg)
		r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonInstanceNotFound, msg)
		return nil, ctrl.Result{RequeueAfter: r.ResyncPeriod}, nil
	}
	ownership := ec2.OwnershipTags(s.obj.Namespace, s.obj.Name, string(s.obj.UID), r.ClusterID)
	rememberRootVolume(s, inst)
	if err := r.writeOwnership(ctx, s, inst, ownership); err != nil {
		res, err := r.fail(s, "tagging adopted instance "+id, err)
		return nil, res, err
	}
	r.event(s, corev1.EventTypeNormal, "Adopted", "adopted existing instance "+id)
	return inst, ctrl.Result{}, r.recordInstance(ctx, s, inst)
}

// instanceMissing handles an instance ID that DescribeInstances does not know. Right
// after a launch that is EC2's eventual consistency, so the operator waits; later it
// means the instance was terminated long enough ago to be forgotten.
func (r *EC2InstanceReconciler) instanceMissing(ctx context.Context, s *instanceScope) (*ec2.Instance, ctrl.Result, error) {
	st := &s.obj.Status
	if s.obj.Spec.InstanceID != "" {
		msg := "adopted instance " + st.InstanceID + " no longer exists; delete this EC2Instance"
		s.notReady(computev1alpha1.ReasonInstanceNotFound, msg)
		return nil, ctrl.Result{RequeueAfter: r.ResyncPeriod}, nil
	}
	if r.withinVisibilityGrace(s) {
		s.notReady(computev1alpha1.ReasonPending, "instance "+st.InstanceID+" is not visible in EC2 yet")
		return nil, ctrl.Result{RequeueAfter: r.PollInterval}, nil
	}
	// Before anything is launched in its place: are these still the credentials of
	// the account it was launched in? Asked afresh, not from the routine cache.
	if actsWithOwnCredentials(s) {
		if err := r.checkOwnAccount(ctx, s, 0); err != nil {
			if errors.Is(err, errAccountRefused{}) {
				return nil, accountRefusedResult(), nil
			}
			return nil, ctrl.Result{}, err
		}
	}
	if res, done := r.holdVanished(ctx, s); done {
		return nil, res, nil
	}
	return r.instanceTerminated(ctx, s, &ec2.Instance{ID: st.InstanceID, State: ec2.StateTerminated})
}

// withinVisibilityGrace reports whether the last launch (or adoption) began less than
// VisibilityGracePeriod ago, so that an instance unknown to DescribeInstances may
// simply not be visible yet. It goes by time, not by state: RunInstances' own answer
// already says pending.
func (r *EC2InstanceReconciler) withinVisibilityGrace(s *instanceScope) bool {
	var since time.Time
	if t := s.obj.Status.LastLaunchAttempt; t != nil {
		since = t.Time
	} else if c := s.condition(computev1alpha1.ConditionInstanceLaunched); c != nil {
		since = c.LastTransitionTime.Time
	} else {
		return false
	}
	if r.now().Sub(since) >= r.VisibilityGracePeriod {
		return false
	}
	// A launch EC2 rejected outright created nothing that could become visible.
	if ready := s.condition(computev1alpha1.ConditionReady); ready != nil && ready.Status == metav1.ConditionFalse &&
		strings.HasPrefix(ready.Message, launchAction+":") {
		switch ready.Reason {
		case computev1alpha1.ReasonInvalidSpec, computev1alpha1.ReasonImageNotFound, computev1alpha1.ReasonSubnetNotFound,
			computev1alpha1.ReasonSecurityGroupMissing, computev1alpha1.ReasonAuthFailure, computev1alpha1.ReasonInsufficientCapacity,
			computev1alpha1.ReasonSnapshotNotFound, computev1alpha1.ReasonIPAddressInUse:
			return s.obj.Status.InstanceID != ""
		}
	}
	return true
}

// instanceTerminated handles an instance that was terminated while its object still
// wants it. A launched instance is replaced under a new client token; an adopted one
// cannot be, since the spec names that very instance.
func (r *EC2InstanceReconciler) instanceTerminated(ctx context.Context, s *instanceScope, inst *ec2.Instance) (*ec2.Instance, ctrl.Result, error) {
	st := &s.obj.Status
	if s.obj.Spec.InstanceID != "" {
		observeInstance(s, inst)
		msg := "adopted instance " + inst.ID + " is " + inst.State + "; delete this EC2Instance"
		s.notReady(computev1alpha1.ReasonInstanceNotFound, msg)
		return nil, ctrl.Result{RequeueAfter: r.ResyncPeriod}, nil
	}
	// An instance that died before it ever ran failed to launch (for example
	// Client.InternalError for an unusable KMS key); that is not drift, and relaunching
	// it quickly would fail the same way.
	neverRan := s.before.Status.State == "" || s.before.Status.State == ec2.StatePending
	launchFailed := neverRan && isLaunchFailure(inst.StateReasonCode)
	reason, msg := computev1alpha1.ReasonTerminatedOutOfBand, fmt.Sprintf("instance %s was terminated outside Kubernetes", inst.ID)
	if launchFailed {
		reason, msg = computev1alpha1.ReasonLaunchFailed, fmt.Sprintf("instance %s failed to launch", inst.ID)
	}
	if inst.StateReason != "" {
		msg += " (" + inst.StateReason + ")"
	}
	// A persistent Spot request would launch an instance of its own, next to ours.
	if inst.SpotRequestID != "" {
		if err := s.ec2.CancelSpotRequest(ctx, inst.SpotRequestID); err != nil && !ec2.IsNotFound(err) {
			res, err := r.fail(s, "cancelling Spot request "+inst.SpotRequestID, err)
			return nil, res, err
		}
	}
	backoff := r.recreationBackoff(st.Recreations)
	if st.LaunchTime != nil && r.now().Sub(st.LaunchTime.Time) > time.Hour {
		// The instance served for a long time: this is not a crash loop.
		backoff = r.MinBackoff
	}
	msg += fmt.Sprintf("; launching a replacement in %s", backoff)
	r.event(s, corev1.EventTypeWarning, reason, msg)
	if launchFailed {
		r.Metrics.ReconcileError(reason)
	} else {
		r.Metrics.DriftCorrected("instance")
	}
	r.Metrics.InstanceState(s.obj.UID, "")
	r.forgetAttributes(s.obj.UID)
	// The replacement keeps the subnet and security groups chosen by the selectors
	// and the Elastic IP (EC2 disassociated it at termination); the data volumes are
	// launched anew with the replacement.
	eip := st.ElasticIP
	if eip != nil {
		eip.AssociationID = ""
	}
	var subnetID string
	var groups []string
	if s.obj.Spec.SubnetSelector != nil {
		subnetID = st.SubnetID
	}
	if s.obj.Spec.SecurityGroupSelector != nil {
		groups = st.SecurityGroupIDs
	}
	*st = computev1alpha1.EC2InstanceStatus{
		Region:            st.Region,
		LastLaunchAttempt: st.LastLaunchAttempt,
		Recreations:       st.Recreations + 1,
		ManagedTagKeys:    st.ManagedTagKeys,
		Conditions:        st.Conditions,
		ElasticIP:         eip,
		SubnetID:          subnetID,
		SecurityGroupIDs:  groups,
		VolumeRemovals:    st.VolumeRemovals,
	}
	s.setCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionFalse, reason, msg)
	s.notReady(reason, msg)
	if err := s.patchStatus(ctx, r.Client); err != nil {
		return nil, ctrl.Result{}, err
	}
	return nil, ctrl.Result{RequeueAfter: backoff}, nil
}

// isLaunchFailure tells EC2's state reason codes for a launch that failed (for example
// Client.InternalError, Client.VolumeLimitExceeded, Server.InsufficientInstanceCapacity)
// from stops and terminations someone asked for (Client.UserInitiatedShutdown,
// Client.UserInitiatedHibernate, and Client.InstanceInitiatedShutdown for a shutdown
// from inside the instance) and Spot interruptions.
func isLaunchFailure(code string) bool {
	switch {
	case strings.HasPrefix(code, "Client.UserInitiated"), strings.HasPrefix(code, "Server.SpotInstance"),
		code == "Client.InstanceInitiatedShutdown":
		return false
	default:
		return strings.HasPrefix(code, "Client.") || strings.HasPrefix(code, "Server.")
	}
}

// recreationBackoff spaces replacements out: MinBackoff doubled for each earlier
// replacement, up to MaxBackoff, so that an instance that keeps dying cannot make the
// operator launch in a loop.
func (r *EC2InstanceReconciler) recreationBackoff(recreations int32) time.Duration {
	d := r.MinBackoff
	for range min(recreations, 20) {
		d *= 2
		if d >= r.MaxBackoff {
			return r.MaxBackoff
		}
	}
	return d
}
