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
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
	"github.com/ec2-operator/ec2-operator/internal/guardrail"
)

// Guardrails are enforced where requests leave: the pass's EC2 client is wrapped by
// internal/guardrail, which checks every mutating request against the account's
// guardrails before it is sent, whichever phase built it. What this file adds is
// earlier feedback and the paths that take over an existing instance: the spec's own
// values are checked before any AWS call (checkStaticGuardrails), a launch before its
// record is written (checkLaunch), and an instance to adopt, restore or observe as
// EC2 describes it (checkClaimedInstance). A refusal names the field, the value and
// the account's rule, so that the user knows what to change and the administrator
// what was asked for.

// guardrailsOf is the account's guardrails, nil when it has none (or there is no
// account: the operator's own credentials without a default account).
func guardrailsOf(acct *computev1alpha1.AWSAccount) *computev1alpha1.Guardrails {
	if acct == nil {
		return nil
	}
	return acct.Spec.Guardrails
}

// guardrailRules are the account's guardrails for the pass's region.
func guardrailRules(s *pass.Scope) guardrail.Rules {
	rules := guardrail.Rules{Guardrails: guardrailsOf(s.Account), Region: s.Region}
	if s.Account != nil {
		rules.AccountID = s.Account.Status.AccountID
	}
	return rules
}

// refuseGuardrails reports violations (Ready=False, Stalled, reason
// GuardrailViolation, an event once per change) and stops the pass like an account
// refusal: without an error, so no hot loop, and rechecked when the account or the
// object changes. what says what was refused.
func (r *EC2InstanceReconciler) refuseGuardrails(s *pass.Scope, what string, vs []guardrail.Violation) error {
	texts := make([]string, 0, len(vs))
	for _, v := range vs {
		texts = append(texts, v.String())
	}
	account := "the operator's own credentials"
	if s.Account != nil {
		account = fmt.Sprintf("AWSAccount %q", s.Account.Name)
	}
	msg := fmt.Sprintf("%s refuses %s: %s; nothing was sent to EC2 for it", account, what, strings.Join(texts, "; "))
	if s.Obj.Status.InstanceID != "" {
		msg += " (the instance is left as it is)"
	}
	return r.refuseAccount(s, computev1alpha1.ReasonGuardrailViolation, msg)
}

// refusedRequest is how a pass reports a request the guarded client refused: like any
// other guardrail refusal. It reports whether err was one.
func (r *EC2InstanceReconciler) refusedRequest(s *pass.Scope, err error) bool {
	var refusal *guardrail.Refusal
	if !errors.As(err, &refusal) {
		return false
	}
	if refusal.Reason == guardrail.OwnershipRefused {
		msg := refusal.Error() + "; the instance is left as it is"
		if c := s.Condition(computev1alpha1.ConditionReady); c == nil || c.Reason != computev1alpha1.ReasonOwnedByAnother || c.Message != msg {
			s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonOwnedByAnother, msg)
			r.Metrics.ReconcileError(computev1alpha1.ReasonOwnedByAnother)
		}
		s.NotReady(computev1alpha1.ReasonOwnedByAnother, msg)
		return true
	}
	_ = r.refuseGuardrails(s, refusal.Operation, refusal.Violations)
	return true
}

// checkStaticGuardrails refuses, before any AWS call, a spec outside the account's
// guardrails.
func (r *EC2InstanceReconciler) checkStaticGuardrails(s *pass.Scope) error {
	g := guardrailsOf(s.Account)
	if g == nil {
		return nil
	}
	if vs := guardrail.SpecViolations(&s.Obj.Spec, g); len(vs) > 0 {
		return r.refuseGuardrails(s, "this object", vs)
	}
	return nil
}

// checkLaunch asks the guarded client whether it would send the launch, before the
// launch record is written: a refused launch must leave no record of a launch that
// might have happened.
func (r *EC2InstanceReconciler) checkLaunch(ctx context.Context, s *pass.Scope, token string) error {
	return guardrail.Launchable(ctx, s.EC2, plan.LaunchRequest(s.Obj, r.ClusterID, token, ""))
}

// checkClaimedInstance checks an instance the object is about to take over (adopt,
// restore) or report (Observe) against the guardrails. With afresh, the instance is
// described again first, not taken from what the client remembers, with or without
// guardrails: a claim goes by the instance as it is now, and what the late
// initialisation copies into the spec must not undo a change made a moment before
// (an Observe object switched to Full right after an outside change). It returns the
// description to go on with, or a step that ends the pass with the instance untouched
// when the instance lies outside the guardrails.
func (r *EC2InstanceReconciler) checkClaimedInstance(ctx context.Context, s *pass.Scope, inst *ec2.Instance, afresh bool) (*ec2.Instance, pass.Step) {
	if afresh {
		s.EC2.ChangedElsewhere(inst.ID)
		fresh, err := s.EC2.GetInstance(ctx, inst.ID)
		if err != nil {
			return nil, pass.Failed("describing instance "+inst.ID+" afresh before claiming it", err)
		}
		inst = fresh
	}
	rules := guardrailRules(s)
	if rules.Guardrails == nil {
		return inst, pass.Proceed()
	}
	vs, err := rules.Instance(ctx, s.EC2, *inst)
	if err != nil {
		return nil, pass.Failed("checking instance "+inst.ID+" against the account's guardrails", err)
	}
	if len(vs) > 0 {
		_ = r.refuseGuardrails(s, "instance "+inst.ID, vs)
		return nil, pass.AccountRefused()
	}
	return inst, pass.Proceed()
}
