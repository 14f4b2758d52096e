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
	"maps"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/guardrail"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func TestStaticGuardrailsNameTheFieldAndTheRule(t *testing.T) {
	g := &computev1alpha1.Guardrails{ImageOwners: []string{"amazon"}, InstanceTypes: []string{"t3.*"}}
	for _, tc := range []struct {
		name  string
		spec  computev1alpha1.EC2InstanceSpec
		field string
	}{
		{"public SSM parameter", computev1alpha1.EC2InstanceSpec{InstanceType: "t3.micro", ImageID: "resolve:ssm:/aws/service/ami-amazon-linux-latest/x"}, ""},
		{"private SSM parameter", computev1alpha1.EC2InstanceSpec{InstanceType: "t3.micro", ImageID: "resolve:ssm:/team/golden-ami"}, "spec.imageId"},
		{"selector owner", computev1alpha1.EC2InstanceSpec{InstanceType: "t3.micro", ImageSelector: &computev1alpha1.ImageSelector{Owners: []string{"self"}}}, "spec.imageSelector.owners"},
		{"type", computev1alpha1.EC2InstanceSpec{InstanceType: "p5.48xlarge", ImageID: "ami-0abcdef1234567890"}, "spec.instanceType"},
		{"unset profile and key are fine", computev1alpha1.EC2InstanceSpec{InstanceType: "t3.small", ImageID: "ami-0abcdef1234567890"}, ""},
	} {
		vs := guardrail.SpecViolations(&tc.spec, g)
		switch {
		case tc.field == "" && len(vs) > 0:
			t.Errorf("%s: refused: %v", tc.name, vs)
		case tc.field != "" && (len(vs) != 1 || vs[0].Field != tc.field):
			t.Errorf("%s: violations %v, want one of %s", tc.name, vs, tc.field)
		}
	}
}

// guardedAccount creates an AWSAccount of the operator's own credentials (no roleArn)
// for the harness's namespace, with guardrails, and waits until it is verified.
func (h *harness) guardedAccount(g *computev1alpha1.Guardrails) *computev1alpha1.AWSAccount {
	h.t.Helper()
	a := h.account("guarded", "", "", computev1alpha1.AllowedNamespaces{Names: []string{h.ns}})
	return h.setGuardrails(a.Name, g)
}

// setGuardrails replaces an AWSAccount's guardrails and waits until it is verified.
func (h *harness) setGuardrails(name string, g *computev1alpha1.Guardrails) *computev1alpha1.AWSAccount {
	h.t.Helper()
	for range 10 {
		cur, err := h.getAccount(name)
		if err != nil {
			h.t.Fatal(err)
		}
		cur.Spec.Guardrails = g
		if err = h.k8s.Update(context.Background(), cur); err == nil {
			break
		}
	}
	return h.waitAccount(name, computev1alpha1.ReasonVerified)
}

func TestGuardrailsRefuseWhatTheyDoNotAllowBeforeAnyEC2Call(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{accounts: true})
	h.sim.AddInstanceProfile("admin")
	h.sim.AddKeyPair("root-key")
	acct := h.guardedAccount(&computev1alpha1.Guardrails{
		InstanceProfiles: []string{ec2sim.DefaultInstanceProfile, "web-*"},
		KeyNames:         []string{ec2sim.DefaultKeyName},
		SubnetIDs:        []string{ec2sim.DefaultSubnetIDs[0]},
		SecurityGroupIDs: []string{ec2sim.DefaultSecurityGroupID},
		ImageOwners:      []string{"amazon"},
		InstanceTypes:    []string{"t3.*"},
	})
	allowed := func(name string) *computev1alpha1.EC2Instance {
		obj := h.instance(name)
		obj.Spec.AccountRef = &computev1alpha1.AccountReference{Name: acct.Name}
		obj.Spec.KeyName = ec2sim.DefaultKeyName
		obj.Spec.IAMInstanceProfile = ec2sim.DefaultInstanceProfile
		return obj
	}
	forbidden := map[string]func(*computev1alpha1.EC2Instance){
		"profile": func(o *computev1alpha1.EC2Instance) { o.Spec.IAMInstanceProfile = "admin" },
		"key":     func(o *computev1alpha1.EC2Instance) { o.Spec.KeyName = "root-key" },
		"subnet":  func(o *computev1alpha1.EC2Instance) { o.Spec.SubnetID = ec2sim.DefaultSubnetIDs[1] },
		"group": func(o *computev1alpha1.EC2Instance) {
			o.Spec.SecurityGroupIDs = []string{ec2sim.DefaultSecurityGroupID, "sg-0a1b2c3d4e5f60002"}
		},
		"owner": func(o *computev1alpha1.EC2Instance) {
			o.Spec.ImageID, o.Spec.ImageSelector = "", &computev1alpha1.ImageSelector{Owners: []string{"self"}}
		},
		"type": func(o *computev1alpha1.EC2Instance) { o.Spec.InstanceType = "m5.24xlarge" },
	}
	fields := map[string]string{"profile": "spec.iamInstanceProfile", "key": "spec.keyName", "subnet": "spec.subnetId",
		"group": "spec.securityGroupIds", "owner": "spec.imageSelector.owners", "type": "spec.instanceType"}
	before := h.sim.CallCounts()
	for name, mutate := range forbidden {
		obj := allowed(name)
		mutate(obj)
		h.create(obj)
	}
	for name := range forbidden {
		got := h.waitCondition(name, computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonGuardrailViolation)
		if msg := findCondition(got, computev1alpha1.ConditionReady).Message; !strings.Contains(msg, fields[name]) || !strings.Contains(msg, "spec.guardrails.") {
			t.Errorf("%s: Ready says %q; want it to name %s and the rule", name, msg, fields[name])
		}
		h.waitEvent(name, computev1alpha1.ReasonGuardrailViolation)
	}
	if after := h.sim.CallCounts(); !maps.Equal(before, after) {
		t.Errorf("refused objects called EC2: calls before %v, after %v", before, after)
	}

	// What the guardrails allow launches, and an edit to a forbidden profile is refused
	// while the instance keeps its profile.
	h.create(allowed("fine"))
	got := h.waitReady("fine")
	profile := h.simInstance(got.Status.InstanceID).IAMInstanceProfileARN
	if !strings.HasSuffix(profile, "/"+ec2sim.DefaultInstanceProfile) {
		t.Fatalf("the allowed instance has profile %q", profile)
	}
	m := h.mark("fine")
	h.update("fine", func(o *computev1alpha1.EC2Instance) { o.Spec.IAMInstanceProfile = "admin" })
	h.waitConditionSince(m, computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonGuardrailViolation)
	if p := h.simInstance(got.Status.InstanceID).IAMInstanceProfileARN; p != profile {
		t.Errorf("the refused edit changed the instance's profile to %q", p)
	}
	for _, op := range []string{"AssociateIamInstanceProfile", "ReplaceIamInstanceProfileAssociation"} {
		if n := h.sim.Calls(op); n != 0 {
			t.Errorf("%s called %d times for a refused edit", op, n)
		}
	}
}

func TestGuardrailsCheckTheOwnerOfAnImageGivenByIDBeforeTheLaunch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{accounts: true})
	acct := h.guardedAccount(&computev1alpha1.Guardrails{ImageOwners: []string{"self"}})
	obj := h.instance("amazonimage")
	obj.Spec.AccountRef = &computev1alpha1.AccountReference{Name: acct.Name}
	h.create(obj)
	got := h.waitCondition("amazonimage", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonGuardrailViolation)
	if msg := findCondition(got, computev1alpha1.ConditionReady).Message; !strings.Contains(msg, "owner") || !strings.Contains(msg, "amazon") {
		t.Errorf("Ready says %q; want the image's owner named", msg)
	}
	if n := h.sim.Calls("RunInstances"); n != 0 {
		t.Errorf("RunInstances called %d times for an image the guardrails refuse", n)
	}
	if err := h.k8s.Delete(context.Background(), h.get("amazonimage")); err != nil {
		t.Fatal(err)
	}
	h.eventually(h.timeout, func() string {
		if err := h.k8s.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: "amazonimage"}, &computev1alpha1.EC2Instance{}); err == nil {
			return "a refused object that launched nothing is not deleted"
		}
		return ""
	})
}

// TestTheDefaultAccountGovernsObjectsThatNameNoAccount runs with the shipped resync
// periods: creating the default AWSAccount must reach the objects that name no
// account through the AWSAccount watch, not at their next resync ten minutes later.
// Not parallel: the default account has a fixed name (only this test's manager sees
// it, through the harness's label-filtered cache).
func TestTheDefaultAccountGovernsObjectsThatNameNoAccount(t *testing.T) {
	h := newHarness(t, harnessOptions{accounts: true, tweak: func(r *EC2InstanceReconciler) {
		r.ResyncPeriod, r.AttributeResyncPeriod = DefaultResyncPeriod, DefaultAttributeResyncPeriod
	}})
	h.create(h.instance("open"))
	if got := h.waitReady("open"); got.Status.Account != "" {
		t.Fatalf("without a default account the object uses account %q, want the operator's own credentials", got.Status.Account)
	}

	def := &computev1alpha1.AWSAccount{
		ObjectMeta: metav1.ObjectMeta{Name: computev1alpha1.DefaultAccountName, Labels: map[string]string{testAccountLabel: h.ns}},
		Spec: computev1alpha1.AWSAccountSpec{
			AllowedNamespaces: computev1alpha1.AllowedNamespaces{Names: []string{"another-team"}},
			Guardrails:        &computev1alpha1.Guardrails{InstanceTypes: []string{"t3.*"}},
		},
	}
	if err := h.k8s.Create(context.Background(), def); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a := &computev1alpha1.AWSAccount{}
		if err := h.k8s.Get(context.Background(), client.ObjectKey{Name: def.Name}, a); err == nil {
			a.Finalizers = nil
			_ = h.k8s.Update(context.Background(), a)
			_ = h.k8s.Delete(context.Background(), a)
		}
	})
	h.waitCondition("open", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonAccountNotAllowed)

	// Allowed: the object is managed again, now under the default account, and a new
	// object outside its guardrails is refused.
	for range 10 {
		cur, err := h.getAccount(def.Name)
		if err != nil {
			t.Fatal(err)
		}
		cur.Spec.AllowedNamespaces.Names = append(cur.Spec.AllowedNamespaces.Names, h.ns)
		if err = h.k8s.Update(context.Background(), cur); err == nil {
			break
		}
	}
	if got := h.waitReady("open"); got.Status.Account != computev1alpha1.DefaultAccountName {
		t.Errorf("the object uses account %q, want the default account", got.Status.Account)
	}
	big := h.instance("big")
	big.Spec.InstanceType = "m5.large"
	h.create(big)
	h.waitCondition("big", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonGuardrailViolation)
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("RunInstances called %d times, want 1 (only the first object)", n)
	}
}
