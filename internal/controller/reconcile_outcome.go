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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/requeue"
)

// step is what one step of a pass decided. Every step of the launch, converge and
// delete paths returns one; finish, at the pass's one exit, turns it into the failure
// report (Ready, an event, a metric), the spread of the requeue and controller-runtime's
// result. A step never reports a failure or picks a requeue of its own.
type step struct {
	kind stepKind
	// after is when the object comes back (zero: only on a change, for stepDone).
	after time.Duration
	// spread adds up to a tenth of after at random: objects waiting for the same
	// budget or the same account must not all come back at once.
	spread bool
	// failures are what failed, for stepFailed, in the order they happened.
	failures []failure
	// meanwhile keeps what the pass is moving (the power state) in view in the
	// report of failures that did not stop it.
	meanwhile bool
	// err is an error that is not EC2's to report (a status write that failed): it
	// goes to controller-runtime as it is, for its backoff.
	err error
}

// stepKind says whether a pass goes on and, if not, how it comes back.
type stepKind int

const (
	// stepContinue lets the pass go on to its next step.
	stepContinue stepKind = iota
	// stepDone ends the pass; it comes back after the step's duration.
	stepDone
	// stepAgain ends the pass and comes back through the per-object backoff at once
	// (a new client token was recorded, say).
	stepAgain
	// stepFailed ends the pass with failures: reported, then backed off, unless the
	// client's own budget only held the calls back.
	stepFailed
	// stepError ends the pass with an error that is not about EC2.
	stepError
)

// failure is one thing EC2 (or the controller's own check) refused in a pass: what the
// operator was doing, and the classified error.
type failure struct {
	action string
	err    error
}

// proceed lets the pass go on.
func proceed() step { return step{kind: stepContinue} }

// doneAfter ends the pass; it comes back after d (zero: only on a change).
func doneAfter(d time.Duration) step { return step{kind: stepDone, after: d} }

// waitSpread ends the pass and comes back after d and up to a tenth more.
func waitSpread(d time.Duration) step { return step{kind: stepDone, after: d, spread: true} }

// again ends the pass and comes back through the per-object backoff.
func again() step { return step{kind: stepAgain} }

// failed ends the pass with one failure.
func failed(action string, err error) step {
	return step{kind: stepFailed, failures: []failure{{action: action, err: err}}}
}

// errored ends the pass with an error that is not EC2's (nil continues).
func errored(err error) step {
	if err == nil {
		return proceed()
	}
	return step{kind: stepError, err: err}
}

// ends reports whether the pass ends with this step.
func (st step) ends() bool { return st.kind != stepContinue }

// finish is the pass's one exit: it reports the step's failures and says when the
// object comes back.
func (r *EC2InstanceReconciler) finish(s *instanceScope, st step) (ctrl.Result, error) {
	switch st.kind {
	case stepContinue:
		return ctrl.Result{}, nil
	case stepAgain:
		return ctrl.Result{Requeue: true}, nil
	case stepError:
		return ctrl.Result{}, st.err
	case stepFailed:
		return r.reportFailures(s, st)
	}
	return requeue.After(st.after, st.spread), nil
}

// reportFailures reports a failed step. Ready says every failure in one message (with
// the first one's reason) and each gets a Warning event and a metric; a call the
// client's own budget held back is no failure, only a later time to come back. While
// the pass is still moving something (the step says when to come back) it comes back
// then; otherwise it backs off like any failed reconcile.
func (r *EC2InstanceReconciler) reportFailures(s *instanceScope, st step) (ctrl.Result, error) {
	var msgs []string
	var first error
	after, spread := st.after, false
	for _, f := range st.failures {
		if r.refusedRequest(s, f.err) {
			// The guarded client refused a request: reported like any guardrail
			// refusal, and looked at again when the account or the object changes.
			return requeue.After(accountRecheck, true), nil
		}
		if awserrors.HeldBack(f.err) {
			wait := awserrors.RetryAfterOf(f.err)
			s.log.V(1).Info("waiting for the EC2 API budget", "action", f.action, "after", wait)
			if after == 0 || wait < after {
				after, spread = wait, true
			}
			continue
		}
		msg := messageFor(f.action, f.err)
		msgs = append(msgs, msg)
		r.event(s, corev1.EventTypeWarning, reasonFor(f.err), msg)
		r.Metrics.ReconcileError(reasonFor(f.err))
		if first == nil {
			first = f.err
		}
	}
	if first == nil {
		return requeue.After(after, spread), nil
	}
	message := strings.Join(msgs, "; ")
	if c := s.condition(computev1alpha1.ConditionReady); st.meanwhile && c != nil && c.Status == metav1.ConditionFalse && isProgressReason(c.Reason) {
		// Keep what the power step is doing in view too.
		message += "; meanwhile: " + c.Message
	}
	s.notReady(reasonFor(first), message)
	if after > 0 {
		return requeue.After(after, spread), nil
	}
	return ctrl.Result{}, errors.New(message)
}
