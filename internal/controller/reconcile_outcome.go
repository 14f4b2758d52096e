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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/requeue"
)

// finish is the pass's one exit: it reports the step's failures and says when the
// object comes back.
func (r *EC2InstanceReconciler) finish(s *pass.Scope, st pass.Step) (ctrl.Result, error) {
	switch st.Kind {
	case pass.KindContinue:
		return ctrl.Result{}, nil
	case pass.KindAgain:
		return ctrl.Result{Requeue: true}, nil
	case pass.KindError:
		return ctrl.Result{}, st.Err
	case pass.KindFailed:
		return r.reportFailures(s, st)
	}
	return requeue.After(st.After, st.Spread), nil
}

// reportFailures reports a failed step. Ready says every failure in one message (with
// the first one's reason) and each gets a Warning event and a metric; a call the
// client's own budget held back is no failure, only a later time to come back. While
// the pass is still moving something (the step says when to come back) it comes back
// then; otherwise it backs off like any failed reconcile.
func (r *EC2InstanceReconciler) reportFailures(s *pass.Scope, st pass.Step) (ctrl.Result, error) {
	var msgs []string
	var first error
	after, spread := st.After, false
	for _, f := range st.Failures {
		if r.refusedRequest(s, f.Err) {
			// The guarded client refused a request: reported like any guardrail
			// refusal, and looked at again when the account or the object changes.
			return requeue.After(pass.AccountRecheck, true), nil
		}
		if awserrors.HeldBack(f.Err) {
			wait := awserrors.RetryAfterOf(f.Err)
			s.Log.V(1).Info("waiting for the EC2 API budget", "action", f.Action, "after", wait)
			if after == 0 || wait < after {
				after, spread = wait, true
			}
			continue
		}
		msg := pass.MessageFor(f.Action, f.Err)
		msgs = append(msgs, msg)
		s.Event(corev1.EventTypeWarning, pass.ReasonFor(f.Err), msg)
		r.Metrics.ReconcileError(pass.ReasonFor(f.Err))
		if first == nil {
			first = f.Err
		}
	}
	if first == nil {
		return requeue.After(after, spread), nil
	}
	message := strings.Join(msgs, "; ")
	if c := s.Condition(computev1alpha1.ConditionReady); st.Meanwhile && c != nil && c.Status == metav1.ConditionFalse && pass.IsProgressReason(c.Reason) {
		// Keep what the power step is doing in view too.
		message += "; meanwhile: " + c.Message
	}
	s.NotReady(pass.ReasonFor(first), message)
	if after > 0 {
		return requeue.After(after, spread), nil
	}
	return ctrl.Result{}, errors.New(message)
}
