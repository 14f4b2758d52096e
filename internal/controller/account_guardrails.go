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

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
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

// staticViolations checks what the spec names itself, before any AWS call: the
// instance type, key pair, instance profile, subnet, security groups and image
// owners. What only AWS can tell (the owner of an image given by ID, the VPC of a
// subnet, what selectors pick) is checked by the guarded client.
func staticViolations(spec *computev1alpha1.EC2InstanceSpec, g *computev1alpha1.Guardrails) []guardrail.Violation {
	var out []guardrail.Violation
	check := func(field, value, rule string, allowed []string, match func(pattern, value string) bool) {
		if value == "" || allowed == nil {
			return
		}
		for _, p := range allowed {
			if match(p, value) {
				return
			}
		}
		out = append(out, guardrail.Violation{Field: field, Value: value, Rule: rule, Allowed: allowed})
	}
	check("spec.region", spec.Region, "regions", g.Regions, guardrail.GlobMatch)
	check("spec.instanceType", spec.InstanceType, "instanceTypes", g.InstanceTypes, guardrail.GlobMatch)
	check("spec.keyName", spec.KeyName, "keyNames", g.KeyNames, guardrail.GlobMatch)
	check("spec.iamInstanceProfile", spec.IAMInstanceProfile, "instanceProfiles", g.InstanceProfiles, guardrail.ProfileMatch)
	check("spec.subnetId", spec.SubnetID, "subnetIds", g.SubnetIDs, guardrail.GlobMatch)
	for _, id := range spec.SecurityGroupIDs {
		check("spec.securityGroupIds", id, "securityGroupIds", g.SecurityGroupIDs, guardrail.GlobMatch)
	}
	if sel := spec.ImageSelector; sel != nil {
		for _, owner := range sel.Owners {
			check("spec.imageSelector.owners", owner, "imageOwners", g.ImageOwners, guardrail.GlobMatch)
		}
	}
	if ssm, ok := strings.CutPrefix(spec.ImageID, "resolve:ssm:"); ok && g.ImageOwners != nil {
		// EC2 resolves the parameter at launch, so its image's owner is not known
		// before. The public parameters under /aws/service/ name Amazon's images.
		if !strings.HasPrefix(ssm, "/aws/service/") || !guardrail.OwnerAllowed(g.ImageOwners, ec2.Image{OwnerAlias: "amazon"}, "") {
			out = append(out, guardrail.Violation{Field: "spec.imageId", Value: spec.ImageID, Rule: "imageOwners", Allowed: g.ImageOwners})
		}
	}
	return out
}

// guardrailsOf is the account's guardrails, nil when it has none (or there is no
// account: the operator's own credentials without a default account).
func guardrailsOf(acct *computev1alpha1.AWSAccount) *computev1alpha1.Guardrails {
	if acct == nil {
		return nil
	}
	return acct.Spec.Guardrails
}

// guardrailRules are the account's guardrails for the pass's region.
func guardrailRules(s *instanceScope) guardrail.Rules {
	rules := guardrail.Rules{Guardrails: guardrailsOf(s.account), Region: s.region}
	if s.account != nil {
		rules.AccountID = s.account.Status.AccountID
	}
	return rules
}

// refuseGuardrails reports violations (Ready=False, Stalled, reason
// GuardrailViolation, an event once per change) and stops the pass like an account
// refusal: without an error, so no hot loop, and rechecked when the account or the
// object changes. what says what was refused.
func (r *EC2InstanceReconciler) refuseGuardrails(s *instanceScope, what string, vs []guardrail.Violation) error {
	texts := make([]string, 0, len(vs))
	for _, v := range vs {
		texts = append(texts, v.String())
	}
	msg := fmt.Sprintf("AWSAccount %q refuses %s: %s; nothing was sent to EC2 for it", s.account.Name, what, strings.Join(texts, "; "))
	if s.obj.Status.InstanceID != "" {
		msg += " (the instance is left as it is)"
	}
	return r.refuseAccount(s, computev1alpha1.ReasonGuardrailViolation, msg)
}

// refusedRequest is how a pass reports a request the guarded client refused: like any
// other guardrail refusal. It reports whether err was one.
func (r *EC2InstanceReconciler) refusedRequest(s *instanceScope, err error) bool {
	var refusal *guardrail.Refusal
	if !errors.As(err, &refusal) || s.account == nil {
		return false
	}
	_ = r.refuseGuardrails(s, refusal.Operation, refusal.Violations)
	return true
}

// checkStaticGuardrails refuses, before any AWS call, a spec outside the account's
// guardrails.
func (r *EC2InstanceReconciler) checkStaticGuardrails(s *instanceScope) error {
	g := guardrailsOf(s.account)
	if g == nil {
		return nil
	}
	if vs := staticViolations(&s.obj.Spec, g); len(vs) > 0 {
		return r.refuseGuardrails(s, "this object", vs)
	}
	return nil
}

// checkLaunch asks the guarded client whether it would send the launch, before the
// launch record is written: a refused launch must leave no record of a launch that
// might have happened.
func (r *EC2InstanceReconciler) checkLaunch(ctx context.Context, s *instanceScope, token string) error {
	return guardrail.Launchable(ctx, s.ec2, launchRequest(s.obj, r.ClusterID, token, ""))
}

// checkClaimedInstance checks an instance the object is about to take over (adopt,
// restore) or report (Observe) against the guardrails. With afresh, the instance is
// described again first, not taken from what the client remembers: a claim must go by
// the instance as it is now. It returns the description checked, or a step that ends
// the pass with the instance untouched when the instance lies outside the guardrails.
func (r *EC2InstanceReconciler) checkClaimedInstance(ctx context.Context, s *instanceScope, inst *ec2.Instance, afresh bool) (*ec2.Instance, step) {
	rules := guardrailRules(s)
	if rules.Guardrails == nil {
		return inst, proceed()
	}
	fresh := inst
	if afresh {
		s.ec2.ChangedElsewhere(inst.ID)
		var err error
		if fresh, err = s.ec2.GetInstance(ctx, inst.ID); err != nil {
			return nil, failed("describing instance "+inst.ID+" afresh for the account's guardrails", err)
		}
	}
	vs, err := rules.Instance(ctx, s.ec2, *fresh)
	if err != nil {
		return nil, failed("checking instance "+inst.ID+" against the account's guardrails", err)
	}
	if len(vs) > 0 {
		_ = r.refuseGuardrails(s, "instance "+inst.ID, vs)
		return nil, accountRefused()
	}
	return fresh, proceed()
}
