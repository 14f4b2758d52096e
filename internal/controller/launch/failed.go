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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// launchFailed handles RunInstances errors. The two idempotency errors are expected
// after crashes and are resolved here; everything else is reported with backoff.
func (l *Phase) launchFailed(ctx context.Context, s *pass.Scope, err error) pass.Step {
	st := &s.Obj.Status
	switch {
	case awserrors.TokenOfTerminatedInstance(err):
		// The instance launched with this token is gone: the next token launches anew.
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonRecreating,
			"the instance launched with client token "+st.ClientToken+" was terminated; launching a replacement with a new token")
		st.Recreations++
		st.LastLaunchAttempt, st.LaunchAttempts = nil, 0
		if err := s.PatchStatus(ctx, l.Client); err != nil {
			return pass.Errored(err)
		}
		return pass.Again()
	case awserrors.KindOf(err) == awserrors.KindIdempotencyConflict:
		return l.idempotencyConflict(s, err)
	case awserrors.RefusedOutright(err):
		// EC2 refused the launch outright, at every attempt the SDK made (a lost answer
		// followed by a refused retry launched an instance, so it is not this case):
		// nothing was launched, so nothing needs to be looked for before the next
		// attempt, or waited for when the object is deleted.
		// Memory says so too: the status write that clears the launch time can lose a
		// race with the object's deletion (a conflict), and the deletion must not then
		// wait for an instance that cannot exist.
		st.LastLaunchAttempt = nil
		l.Launches.PutNotSent(s.Obj.UID, st.ClientToken)
	}
	return pass.Failed(LaunchAction, err)
}

// idempotencyConflict handles IdempotentParameterMismatch: a launch with this token
// succeeded earlier with other parameters (the spec changed between a lost answer and
// the retry), so an instance exists that the lookups by token and tag did not find
// (yet: EC2 is eventually consistent). The launch is retried a few times, further
// apart each time, while the lookups may find it; then the operator stops, says so,
// and launches nothing more until the spec or the retry annotation changes. Deleting
// the object still works.
func (l *Phase) idempotencyConflict(s *pass.Scope, err error) pass.Step {
	st := &s.Obj.Status
	st.LaunchAttempts++
	st.ObservedRetry = s.Obj.Annotations[computev1alpha1.RetryAnnotation]
	if st.LaunchAttempts < pass.MaxIdempotencyConflicts {
		wait := RecreationBackoff(st.LaunchAttempts, l.MinBackoff, l.MaxBackoff)
		msg := fmt.Sprintf("%s; an instance was launched earlier with client token %s and other parameters but cannot be found yet; "+
			"trying again in %s (%d of %d)", pass.MessageFor(LaunchAction, err), st.ClientToken, wait, st.LaunchAttempts, pass.MaxIdempotencyConflicts)
		s.NotReady(computev1alpha1.ReasonIdempotencyConflict, msg)
		return pass.DoneAfter(wait)
	}
	msg := fmt.Sprintf("%s; EC2 says an instance was launched with client token %s and other parameters, and it cannot be found. "+
		"Launching stopped: find it with `aws ec2 describe-instances --filters Name=client-token,Values=%s`, then adopt it "+
		"(spec.instanceId) or terminate it, and set the annotation %s to a new value to try again",
		pass.MessageFor(LaunchAction, err), st.ClientToken, st.ClientToken, computev1alpha1.RetryAnnotation)
	s.NotReady(computev1alpha1.ReasonIdempotencyConflict, msg)
	s.SetCondition(computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonIdempotencyConflict, msg)
	s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonIdempotencyConflict, msg)
	l.Metrics.ReconcileError(computev1alpha1.ReasonIdempotencyConflict)
	return pass.DoneAfter(0)
}

// launchStalled reports whether launching stopped after idempotency conflicts and
// nothing asked for another try since: not the spec (its generation) and not the
// retry annotation. Either resets the count.
func launchStalled(s *pass.Scope) bool {
	st := &s.Obj.Status
	if st.LaunchAttempts < pass.MaxIdempotencyConflicts {
		return false
	}
	stalled := s.Condition(computev1alpha1.ConditionStalled)
	retry := s.Obj.Annotations[computev1alpha1.RetryAnnotation]
	if stalled != nil && stalled.ObservedGeneration == s.Obj.Generation && retry == st.ObservedRetry {
		return true
	}
	st.LaunchAttempts = 0
	st.ObservedRetry = retry
	return false
}

// LaunchAction names RunInstances in conditions; WithinVisibilityGrace recognises
// EC2's definitive answers to a launch by it.
const LaunchAction = "launching an instance"
