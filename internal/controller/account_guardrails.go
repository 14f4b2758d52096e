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
	"fmt"
	"regexp"
	"strings"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// A guardrail refusal names the field, the value and the account's rule, so that the
// user knows what to change and the administrator what was asked for. Nothing is
// called in AWS for a refused object: not the launch, and not a change of a running
// instance either (the pass stops before converging, so the instance stays as it is).

// violation is one spec value outside an account's guardrails.
type violation struct {
	field, value, rule string
	allowed            []string
}

func (v violation) String() string {
	return fmt.Sprintf("%s %q is not allowed by spec.guardrails.%s (%s)", v.field, v.value, v.rule, strings.Join(v.allowed, ", "))
}

// staticViolations checks what the spec names itself, before any AWS call: the
// instance type, key pair, instance profile, subnet, security groups and image
// owners. What only AWS can tell (the owner of an image given by ID, the VPC of a
// subnet, what selectors pick) is checked by chosenViolations before the launch.
func staticViolations(spec *computev1alpha1.EC2InstanceSpec, g *computev1alpha1.Guardrails) []violation {
	var out []violation
	check := func(field, value, rule string, allowed []string, match func(pattern, value string) bool) {
		if value == "" || allowed == nil {
			return
		}
		for _, p := range allowed {
			if match(p, value) {
				return
			}
		}
		out = append(out, violation{field: field, value: value, rule: rule, allowed: allowed})
	}
	check("spec.instanceType", spec.InstanceType, "instanceTypes", g.InstanceTypes, globMatch)
	check("spec.keyName", spec.KeyName, "keyNames", g.KeyNames, globMatch)
	check("spec.iamInstanceProfile", spec.IAMInstanceProfile, "instanceProfiles", g.InstanceProfiles, profileMatch)
	check("spec.subnetId", spec.SubnetID, "subnetIds", g.SubnetIDs, globMatch)
	for _, id := range spec.SecurityGroupIDs {
		check("spec.securityGroupIds", id, "securityGroupIds", g.SecurityGroupIDs, globMatch)
	}
	if sel := spec.ImageSelector; sel != nil {
		for _, owner := range sel.Owners {
			check("spec.imageSelector.owners", owner, "imageOwners", g.ImageOwners, globMatch)
		}
	}
	if ssm, ok := strings.CutPrefix(spec.ImageID, "resolve:ssm:"); ok && g.ImageOwners != nil {
		// EC2 resolves the parameter at launch, so its image's owner is not known
		// before. The public parameters under /aws/service/ name Amazon's images.
		if !strings.HasPrefix(ssm, "/aws/service/") || !ownerAllowed(g.ImageOwners, ec2.Image{OwnerAlias: "amazon"}, "") {
			out = append(out, violation{field: "spec.imageId", value: spec.ImageID, rule: "imageOwners", allowed: g.ImageOwners})
		}
	}
	return out
}

// chosenViolations checks what AWS told the launch: the image's owner, and the subnet,
// VPC and security groups that were chosen (by a selector, or named). accountID is the
// account's own ID, for the alias self.
func chosenViolations(s *instanceScope, image *ec2.Image, g *computev1alpha1.Guardrails, accountID string) []violation {
	st := &s.obj.Status
	var out []violation
	if image != nil && g.ImageOwners != nil && !ownerAllowed(g.ImageOwners, *image, accountID) {
		owner := image.OwnerID
		if image.OwnerAlias != "" {
			owner += " (" + image.OwnerAlias + ")"
		}
		out = append(out, violation{field: "the image " + image.ID + "'s owner", value: owner, rule: "imageOwners", allowed: g.ImageOwners})
	}
	if g.SubnetIDs != nil && st.SubnetID != "" && !anyGlob(g.SubnetIDs, st.SubnetID) {
		out = append(out, violation{field: "the chosen subnet", value: st.SubnetID, rule: "subnetIds", allowed: g.SubnetIDs})
	}
	if g.VPCIDs != nil && st.VPCID != "" && !anyGlob(g.VPCIDs, st.VPCID) {
		out = append(out, violation{field: "the subnet's VPC", value: st.VPCID, rule: "vpcIds", allowed: g.VPCIDs})
	}
	if g.SecurityGroupIDs != nil {
		for _, id := range st.SecurityGroupIDs {
			if !anyGlob(g.SecurityGroupIDs, id) {
				out = append(out, violation{field: "the chosen security group", value: id, rule: "securityGroupIds", allowed: g.SecurityGroupIDs})
			}
		}
	}
	return out
}

// ownerAllowed reports whether an image's owner is one of allowed: its account ID,
// its alias (amazon, aws-marketplace), self for the account's own, or *.
func ownerAllowed(allowed []string, image ec2.Image, accountID string) bool {
	for _, a := range allowed {
		switch {
		case a == "*":
			return true
		case a == "self":
			if accountID != "" && image.OwnerID == accountID {
				return true
			}
		case a == image.OwnerID || (image.OwnerAlias != "" && a == image.OwnerAlias):
			return true
		}
	}
	return false
}

// profileMatch matches an instance profile: an ARN pattern against an ARN value, any
// other pattern against the profile's name.
func profileMatch(pattern, value string) bool {
	if strings.HasPrefix(pattern, "arn:") {
		return strings.HasPrefix(value, "arn:") && globMatch(pattern, value)
	}
	name := value
	if i := strings.LastIndex(value, "/"); strings.HasPrefix(value, "arn:") && i >= 0 {
		name = value[i+1:]
	}
	return globMatch(pattern, name)
}

// anyGlob reports whether value matches one of the patterns.
func anyGlob(patterns []string, value string) bool {
	for _, p := range patterns {
		if globMatch(p, value) {
			return true
		}
	}
	return false
}

// globMatch matches value against pattern, in which * matches any run of characters,
// slashes included (path.Match would stop at a slash, which ARNs and paths contain).
func globMatch(pattern, value string) bool {
	parts := strings.Split(pattern, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	re, err := regexp.Compile("^" + strings.Join(parts, ".*") + "$")
	return err == nil && re.MatchString(value)
}

// guardrailsOf is the account's guardrails, nil when it has none (or there is no
// account: the operator's own credentials without a default account).
func guardrailsOf(acct *computev1alpha1.AWSAccount) *computev1alpha1.Guardrails {
	if acct == nil {
		return nil
	}
	return acct.Spec.Guardrails
}

// refuseGuardrails reports the violations (Ready=False, Stalled, reason
// GuardrailViolation, an event once per change) and stops the pass like an account
// refusal: without an error, so no hot loop, and rechecked when the account or the
// object changes.
func (r *EC2InstanceReconciler) refuseGuardrails(s *instanceScope, vs []violation) error {
	texts := make([]string, 0, len(vs))
	for _, v := range vs {
		texts = append(texts, v.String())
	}
	msg := fmt.Sprintf("AWSAccount %q refuses this object: %s; nothing is called in AWS for it", s.account.Name, strings.Join(texts, "; "))
	if s.obj.Status.InstanceID != "" {
		msg += " (the instance is left as it is)"
	}
	return r.refuseAccount(s, computev1alpha1.ReasonGuardrailViolation, msg)
}

// checkStaticGuardrails refuses, before any AWS call, a spec outside the account's
// guardrails.
func (r *EC2InstanceReconciler) checkStaticGuardrails(s *instanceScope) error {
	g := guardrailsOf(s.account)
	if g == nil {
		return nil
	}
	if vs := staticViolations(&s.obj.Spec, g); len(vs) > 0 {
		return r.refuseGuardrails(s, vs)
	}
	return nil
}

// checkChosenGuardrails refuses a launch whose image, subnet, VPC or security groups,
// as AWS described them, lie outside the account's guardrails.
func (r *EC2InstanceReconciler) checkChosenGuardrails(ctx context.Context, s *instanceScope, image *ec2.Image) error {
	g := guardrailsOf(s.account)
	if g == nil {
		return nil
	}
	st := &s.obj.Status
	if g.VPCIDs != nil && st.VPCID == "" && s.obj.Spec.SubnetID != "" {
		// A subnet named by ID: its VPC is known only to EC2.
		subnets, err := s.ec2.FindSubnets(ctx, ec2.SubnetQuery{IDs: []string{s.obj.Spec.SubnetID}})
		if err != nil {
			return err
		}
		if len(subnets) == 1 {
			st.VPCID = subnets[0].VPCID
		}
	}
	if vs := chosenViolations(s, image, g, s.account.Status.AccountID); len(vs) > 0 {
		return r.refuseGuardrails(s, vs)
	}
	return nil
}
