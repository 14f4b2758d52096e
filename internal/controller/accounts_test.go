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
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/argocdhealth"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/awsaccount"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/simworld"
	"github.com/ec2-operator/ec2-operator/internal/sim/stssim"
)

// The accounts of the harness's STS world: the operator's own identity (the static
// key every harness signs with) lives in operatorAccount, whose EC2 is the harness's
// emulator; it may assume one role in each of two workload accounts, each guarded by
// its own external ID.
const (
	operatorAccount = "111111111111"
	workloadA       = "222222222222"
	roleA           = "arn:aws:iam::222222222222:role/ec2-operator"
	externalIDA     = "team-a-7f3c"
	workloadB       = "333333333333"
	roleB           = "arn:aws:iam::333333333333:role/ec2-operator"
	externalIDB     = "team-b-91d2"

	// testAccountLabel marks the AWSAccounts of one test's harness (by its namespace):
	// AWSAccounts are cluster-scoped, and each harness's manager watches only its own.
	testAccountLabel = "ec2-operator.dev/test-harness"
)

// accountWorld is one STS endpoint and an EC2 emulator per account, behind a router
// that sends each request to the account its access key acts in.
type accountWorld struct {
	sts       *stssim.Sim
	sims      map[string]*ec2sim.Sim
	router    http.Handler
	stsSrvURL string
}

func newAccountWorld(t testing.TB, operatorSim *ec2sim.Sim, cfg ec2sim.Config) *accountWorld {
	t.Helper()
	opts := []simworld.Option{simworld.STS(stssim.Config{Seed: 1}),
		simworld.User(operatorAccount, operatorKey, operatorSecret),
		simworld.Role(roleA, externalIDA, operatorKey),
		simworld.Role(roleB, externalIDB, operatorKey),
		simworld.AccountSim(operatorAccount, operatorSim)}
	for i, id := range []string{workloadA, workloadB} {
		c := cfg
		// Distinct seeds keep instance IDs distinct across accounts, so an instance can
		// only be found in the account that launched it.
		c.Seed = cfg.Seed + int64(i+1)*1000
		opts = append(opts, simworld.Account(id, c))
	}
	w := simworld.New(t, opts...)
	return &accountWorld{sts: w.STS, sims: w.Sims, router: w.Router, stsSrvURL: w.STSURL}
}

// The operator's long-term key in every harness.
const (
	operatorKey    = "AKIDEXAMPLE"
	operatorSecret = "not-a-secret"
)

// ownSTS serves STS for a harness without an account world: it knows only the
// operator's key, in account.
func ownSTS(t testing.TB, account string) string {
	t.Helper()
	return simworld.New(t, simworld.STS(stssim.Config{Seed: 1}), simworld.User(account, operatorKey, operatorSecret)).STSURL
}

// account creates an AWSAccount of this test.
func (h *harness) account(name, roleARN, externalID string, allowed computev1alpha1.AllowedNamespaces) *computev1alpha1.AWSAccount {
	h.t.Helper()
	a := &computev1alpha1.AWSAccount{
		ObjectMeta: metav1.ObjectMeta{Name: h.ns + "-" + name, Labels: map[string]string{testAccountLabel: h.ns}},
		Spec:       computev1alpha1.AWSAccountSpec{RoleARN: roleARN, ExternalID: externalID, AllowedNamespaces: allowed},
	}
	if err := h.k8s.Create(context.Background(), a); err != nil {
		h.t.Fatalf("creating AWSAccount %s: %v", a.Name, err)
	}
	h.t.Cleanup(func() {
		// The finalizer goes with the test's manager; the object must not outlive it.
		a := &computev1alpha1.AWSAccount{}
		if err := h.k8s.Get(context.Background(), client.ObjectKey{Name: h.ns + "-" + name}, a); err == nil {
			a.Finalizers = nil
			_ = h.k8s.Update(context.Background(), a)
			_ = h.k8s.Delete(context.Background(), a)
		}
	})
	return a
}

// accountAHarness starts a harness with accounts and creates AWSAccount a (account A),
// which allows the harness's namespace.
func accountAHarness(t testing.TB, opts harnessOptions) (*harness, *computev1alpha1.AWSAccount) {
	t.Helper()
	opts.accounts = true
	h := newHarness(t, opts)
	return h, h.account("a", roleA, externalIDA, computev1alpha1.AllowedNamespaces{Names: []string{h.ns}})
}

// createIn creates the standard object, naming the account.
func (h *harness) createIn(a *computev1alpha1.AWSAccount, name string) {
	h.t.Helper()
	obj := h.instance(name)
	obj.Spec.AccountRef = &computev1alpha1.AccountReference{Name: a.Name}
	h.create(obj)
}

// getAccount reads an AWSAccount.
func (h *harness) getAccount(name string) (*computev1alpha1.AWSAccount, error) {
	a := &computev1alpha1.AWSAccount{}
	err := h.k8s.Get(context.Background(), client.ObjectKey{Name: name}, a)
	return a, err
}

// waitAccount waits until the AWSAccount's Ready condition has the reason.
func (h *harness) waitAccount(name, reason string) *computev1alpha1.AWSAccount {
	h.t.Helper()
	var a *computev1alpha1.AWSAccount
	h.eventually(h.timeout, func() string {
		var err error
		if a, err = h.getAccount(name); err != nil {
			return err.Error()
		}
		c := meta.FindStatusCondition(a.Status.Conditions, computev1alpha1.ConditionReady)
		if c == nil || c.Reason != reason {
			return fmt.Sprintf("AWSAccount %s: want Ready reason %s, conditions %+v", name, reason, a.Status.Conditions)
		}
		return ""
	})
	return a
}

// in returns a view of the harness in another of its namespaces, for its helpers.
func (h *harness) in(ns string) *harness {
	return &harness{t: h.t, ns: ns, sim: h.sim, k8s: h.k8s, timeout: h.timeout, world: h.world}
}

// live returns the live instances of one account's emulator.
func (w *accountWorld) live(accountID string) []string {
	var ids []string
	for _, r := range w.sims[accountID].Instances() {
		if r.State != "terminated" && r.State != "shutting-down" {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// totalCalls is how many requests reached any account's EC2.
func (w *accountWorld) totalCalls() int {
	n := 0
	for _, s := range w.sims {
		for _, c := range s.CallCounts() {
			n += c
		}
	}
	return n
}

func TestInstancesLandInTheAccountTheirNamespaceIsAllowedToUse(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{accounts: true, extraNamespaces: 2})
	teamB, nobody := h.extraNS[0], h.extraNS[1]
	labelNamespace(t, h, teamB, map[string]string{"team": "b"})

	// Account A allows the harness's namespace by name, B allows team=b by label.
	a := h.account("a", roleA, externalIDA, computev1alpha1.AllowedNamespaces{Names: []string{h.ns}})
	b := h.account("b", roleB, externalIDB, computev1alpha1.AllowedNamespaces{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}})
	verifiedA := h.waitAccount(a.Name, computev1alpha1.ReasonVerified)
	if verifiedA.Status.AccountID != workloadA || !strings.Contains(verifiedA.Status.ARN, "assumed-role/ec2-operator/") {
		t.Errorf("AWSAccount a status: account %q ARN %q, want account %s and an assumed-role ARN", verifiedA.Status.AccountID, verifiedA.Status.ARN, workloadA)
	}
	h.waitAccount(b.Name, computev1alpha1.ReasonVerified)
	callsBefore := h.world.totalCalls()

	inA := h.instance("in-a")
	inA.Spec.AccountRef = &computev1alpha1.AccountReference{Name: a.Name}
	h.create(inA)
	inB := h.in(teamB).instance("in-b")
	inB.Spec.AccountRef = &computev1alpha1.AccountReference{Name: b.Name}
	h.in(teamB).create(inB)
	// The third namespace is allowed by neither account; it asks for A.
	refused := h.in(nobody).instance("refused")
	refused.Spec.AccountRef = &computev1alpha1.AccountReference{Name: a.Name}
	h.in(nobody).create(refused)

	gotA := h.waitReady("in-a")
	gotB := h.in(teamB).waitReady("in-b")
	if gotA.Status.Account != a.Name || gotA.Status.AccountID != workloadA {
		t.Errorf("in-a: status account %q (%s), want %q (%s)", gotA.Status.Account, gotA.Status.AccountID, a.Name, workloadA)
	}
	if gotB.Status.AccountID != workloadB {
		t.Errorf("in-b: status accountId %q, want %s", gotB.Status.AccountID, workloadB)
	}
	if live := h.world.live(workloadA); len(live) != 1 || live[0] != gotA.Status.InstanceID {
		t.Errorf("account A's live instances = %v, want only in-a's %s", live, gotA.Status.InstanceID)
	}
	if live := h.world.live(workloadB); len(live) != 1 || live[0] != gotB.Status.InstanceID {
		t.Errorf("account B's live instances = %v, want only in-b's %s", live, gotB.Status.InstanceID)
	}
	if live := h.world.live(operatorAccount); len(live) != 0 {
		t.Errorf("the operator's own account has live instances %v, want none", live)
	}

	got := h.in(nobody).waitCondition("refused", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonAccountNotAllowed)
	if c := meta.FindStatusCondition(got.Status.Conditions, computev1alpha1.ConditionStalled); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("refused: want Stalled=True, conditions %+v", got.Status.Conditions)
	}
	h.in(nobody).waitEvent("refused", computev1alpha1.ReasonAccountNotAllowed)
	// Two launches (a launch may be sent again under its own client token, which
	// EC2 answers with the same instance), and nothing at all for the refused object:
	// no request in any account carries its namespace.
	tokens := map[string]int{}
	for _, sim := range h.world.sims {
		for _, r := range sim.Requests() {
			if r.Operation == "RunInstances" {
				tokens[r.Params.Get("ClientToken")]++
			}
			for _, values := range r.Params {
				if slices.Contains(values, nobody) {
					t.Errorf("%s in some account carries the refused namespace %s: %v", r.Operation, nobody, r.Params)
				}
			}
		}
	}
	if len(tokens) != 2 {
		t.Errorf("RunInstances client tokens across accounts = %v, want the two allowed objects' only", tokens)
	}
	if got.Status.InstanceID != "" || got.Status.LastLaunchAttempt != nil {
		t.Errorf("refused: launch record %q %v, want none", got.Status.InstanceID, got.Status.LastLaunchAttempt)
	}
	t.Logf("EC2 calls for two launches: %d", h.world.totalCalls()-callsBefore)
	// One session per account serves its verification and every call since.
	if n := h.world.sts.Calls("AssumeRole"); n != 2 {
		t.Errorf("AssumeRole calls = %d, want 2 (one per account)", n)
	}

	// The accounts count the objects that act in them: in-a, not the refused object
	// that only names the account (it could otherwise hold a deletion back).
	h.eventually(h.timeout, func() string {
		acct, err := h.getAccount(a.Name)
		if err != nil {
			return err.Error()
		}
		if acct.Status.InUseBy != 1 {
			return fmt.Sprintf("AWSAccount a inUseBy = %d, want 1", acct.Status.InUseBy)
		}
		return ""
	})

	// Deleting terminates each instance in its own account; the refused object, which
	// launched nothing, goes at once.
	h.deleteObject("in-a")
	h.in(teamB).deleteObject("in-b")
	h.in(nobody).deleteObject("refused")
	h.waitGone("in-a")
	h.in(teamB).waitGone("in-b")
	h.in(nobody).waitGone("refused")
	if live := append(h.world.live(workloadA), h.world.live(workloadB)...); len(live) != 0 {
		t.Errorf("live instances after deletion: %v", live)
	}
}

func TestAnAccountInUseIsDeletedOnlyOnceNoInstanceUsesIt(t *testing.T) {
	t.Parallel()
	h, a := accountAHarness(t, harnessOptions{})
	h.createIn(a, "user")
	h.waitReady("user")

	if err := h.k8s.Delete(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	var blocked *metav1.Condition
	h.eventually(h.timeout, func() string {
		acct, err := h.getAccount(a.Name)
		if err != nil {
			return err.Error()
		}
		if blocked = meta.FindStatusCondition(acct.Status.Conditions, computev1alpha1.ConditionDeletionBlocked); blocked == nil {
			return fmt.Sprintf("no DeletionBlocked condition: %+v", acct.Status.Conditions)
		}
		return ""
	})
	if blocked.Reason != computev1alpha1.ReasonAccountInUse || !strings.Contains(blocked.Message, h.ns+"/user") {
		t.Errorf("DeletionBlocked %s %q does not name the object that uses the account", blocked.Reason, blocked.Message)
	}
	h.wantAccountArgoHealth(a.Name, argocdhealth.Progressing, h.ns+"/user")
	// The instance is still managed while the account waits.
	h.update("user", func(o *computev1alpha1.EC2Instance) { o.Spec.Tags["stage"] = "two" })
	h.eventually(h.timeout, func() string {
		if tags := h.world.sims[workloadA].Instances()[0].Tags; tags["stage"] != "two" {
			return fmt.Sprintf("tags in account A: %v; conditions %+v", tags, h.get("user").Status.Conditions)
		}
		return ""
	})

	h.deleteObject("user")
	h.waitGone("user")
	h.eventually(h.timeout, func() string {
		if _, err := h.getAccount(a.Name); !apierrors.IsNotFound(err) {
			return fmt.Sprintf("AWSAccount still there (%v)", err)
		}
		return ""
	})
}

// TestAnAccountWhoseRoleCannotBeAssumedHoldsItsInstancesBack runs with the shipped
// periods: the object launches after the fix because the AWSAccount's change brought
// it back, not because a resync came.
func TestAnAccountWhoseRoleCannotBeAssumedHoldsItsInstancesBack(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: shippedTimings, accounts: true})
	a := h.account("a", roleA, "the-wrong-external-id", computev1alpha1.AllowedNamespaces{Names: []string{h.ns}})
	failed := h.waitAccount(a.Name, computev1alpha1.ReasonAssumeRoleFailed)
	if c := meta.FindStatusCondition(failed.Status.Conditions, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "AccessDenied") {
		t.Errorf("AssumeRoleFailed message %q does not carry STS's AccessDenied", c.Message)
	}
	h.wantAccountArgoHealth(a.Name, argocdhealth.Degraded, "AccessDenied")
	h.createIn(a, "waits")
	got := h.waitCondition("waits", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonAccountNotReady)
	if c := meta.FindStatusCondition(got.Status.Conditions, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "AccessDenied") {
		t.Errorf("AccountNotReady message %q does not say why", c.Message)
	}
	if n := h.world.sims[workloadA].Calls("RunInstances"); n != 0 {
		t.Errorf("%d RunInstances in account A while its role cannot be assumed", n)
	}

	// Fixing the external ID verifies the account again, and the object launches.
	fixed, err := h.getAccount(a.Name)
	if err != nil {
		t.Fatal(err)
	}
	fixed.Spec.ExternalID = externalIDA
	if err := h.k8s.Update(context.Background(), fixed); err != nil {
		t.Fatal(err)
	}
	h.waitAccount(a.Name, computev1alpha1.ReasonVerified)
	h.wantAccountArgoHealth(a.Name, argocdhealth.Healthy, "")
	ready := h.waitReady("waits")
	if ready.Status.AccountID != workloadA || len(h.world.live(workloadA)) != 1 {
		t.Errorf("after the fix: accountId %q, live in A %v", ready.Status.AccountID, h.world.live(workloadA))
	}
}

// TestANamespaceAnnotationChoosesTheAccountAndALabelCanAllowIt runs with the shipped
// periods: the label's effect follows the Namespace watch, not a resync.
func TestANamespaceAnnotationChoosesTheAccountAndALabelCanAllowIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: shippedTimings, accounts: true, extraNamespaces: 1})
	team := h.extraNS[0]
	b := h.account("b", roleB, externalIDB, computev1alpha1.AllowedNamespaces{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}})
	h.waitAccount(b.Name, computev1alpha1.ReasonVerified)
	annotateNamespace(t, h, team, map[string]string{computev1alpha1.DefaultAccountAnnotation: b.Name})

	h.in(team).create(h.in(team).instance("defaulted"))
	h.in(team).waitCondition("defaulted", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonAccountNotAllowed)

	// Labelling the namespace allows it; the object launches in account B, which is
	// pinned in its status.
	labelNamespace(t, h, team, map[string]string{"team": "b"})
	got := h.in(team).waitReady("defaulted")
	if got.Status.Account != b.Name || got.Status.AccountID != workloadB || len(h.world.live(workloadB)) != 1 {
		t.Errorf("defaulted: account %q (%s), live in B %v; want %q in %s", got.Status.Account, got.Status.AccountID, h.world.live(workloadB), b.Name, workloadB)
	}
	// Removing the annotation later does not move the instance.
	annotateNamespace(t, h, team, map[string]string{computev1alpha1.DefaultAccountAnnotation: ""})
	h.in(team).update("defaulted", func(o *computev1alpha1.EC2Instance) { o.Spec.Tags["moved"] = "no" })
	h.eventually(h.timeout, func() string {
		if tags := h.world.sims[workloadB].Instances()[0].Tags; tags["moved"] != "no" {
			return fmt.Sprintf("tags in account B: %v", tags)
		}
		return ""
	})
	if n := h.sim.Calls("RunInstances"); n != 0 {
		t.Errorf("%d RunInstances with the operator's own credentials, want 0", n)
	}
}

// labelNamespace merges labels into a namespace.
func labelNamespace(t *testing.T, h *harness, name string, set map[string]string) {
	t.Helper()
	patchNamespace(t, h, name, func(ns *corev1.Namespace) {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		for k, v := range set {
			ns.Labels[k] = v
		}
	})
}

// annotateNamespace merges annotations into a namespace; an empty value removes one.
func annotateNamespace(t *testing.T, h *harness, name string, set map[string]string) {
	t.Helper()
	patchNamespace(t, h, name, func(ns *corev1.Namespace) {
		if ns.Annotations == nil {
			ns.Annotations = map[string]string{}
		}
		for k, v := range set {
			if v == "" {
				delete(ns.Annotations, k)
			} else {
				ns.Annotations[k] = v
			}
		}
	})
}

func patchNamespace(t *testing.T, h *harness, name string, mutate func(*corev1.Namespace)) {
	t.Helper()
	ns := &corev1.Namespace{}
	if err := h.k8s.Get(context.Background(), client.ObjectKey{Name: name}, ns); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(ns.DeepCopy())
	mutate(ns)
	if err := h.k8s.Patch(context.Background(), ns, patch); err != nil {
		t.Fatal(err)
	}
}

func TestNamespaceAllowedByNameOrLabel(t *testing.T) {
	ns := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "payments-dev", Labels: map[string]string{"team": "payments"}}}
	testCases := []struct {
		name    string
		allowed computev1alpha1.AllowedNamespaces
		want    bool
		wantErr bool
	}{
		{"nothing allows nothing", computev1alpha1.AllowedNamespaces{}, false, false},
		{"by name", computev1alpha1.AllowedNamespaces{Names: []string{"other", "payments-dev"}}, true, false},
		{"by label", computev1alpha1.AllowedNamespaces{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "payments"}}}, true, false},
		{"another label", computev1alpha1.AllowedNamespaces{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "web"}}}, false, false},
		{"the empty selector allows all", computev1alpha1.AllowedNamespaces{Selector: &metav1.LabelSelector{}}, true, false},
		{"an invalid selector allows nothing", computev1alpha1.AllowedNamespaces{Selector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: "Near"}}}}, false, true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := namespaceAllowed(&computev1alpha1.AWSAccount{Spec: computev1alpha1.AWSAccountSpec{AllowedNamespaces: tc.allowed}}, ns)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("namespaceAllowed = %v, %v; want %v, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestEventsFromAWorkloadAccountReachTheObjectThatUsesIt(t *testing.T) {
	t.Parallel()
	h, a := accountAHarness(t, harnessOptions{events: true, tweak: func(r *EC2InstanceReconciler) {
		r.ResyncPeriod = time.Hour
		r.AttributeResyncPeriod = time.Hour
	}})
	h.waitAccount(a.Name, computev1alpha1.ReasonVerified)
	h.createIn(a, "evented")
	id := h.waitReady("evented").Status.InstanceID

	m := h.mark("evented")
	if err := h.world.sims[workloadA].StopInstance(id); err != nil {
		t.Fatal(err)
	}
	// With a one-hour resync only the event can explain a restart this soon.
	h.waitEventSince(m, computev1alpha1.ReasonStarting)
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
	if n := h.world.sims[workloadA].Calls("StartInstances"); n != 1 {
		t.Errorf("StartInstances in account A = %d, want 1", n)
	}
}

func TestAnObjectGivenItsAccountByItsNamespaceKeepsItFromTheFirstPass(t *testing.T) {
	t.Parallel()
	h, a := accountAHarness(t, harnessOptions{})
	h.waitAccount(a.Name, computev1alpha1.ReasonVerified)
	annotateNamespace(t, h, h.ns, map[string]string{computev1alpha1.DefaultAccountAnnotation: a.Name})

	// Allowed from the start, the first pass adds the finalizer and launches: the
	// account it chose must be in the launch record, or the next pass would look for
	// the instance with the operator's own credentials.
	h.create(h.instance("defaulted"))
	got := h.waitReady("defaulted")
	if got.Status.Account != a.Name || got.Status.AccountID != workloadA {
		t.Errorf("status account %q (%s), want %q (%s)", got.Status.Account, got.Status.AccountID, a.Name, workloadA)
	}
	if live := h.world.live(workloadA); len(live) != 1 || live[0] != got.Status.InstanceID {
		t.Errorf("account A's live instances = %v, want [%s]", live, got.Status.InstanceID)
	}
	if n := h.sim.Calls("RunInstances") + h.sim.Calls("DescribeInstances"); n != 0 {
		t.Errorf("%d calls with the operator's own credentials, want 0", n)
	}
}

func TestAdoptionInANamespaceWithADefaultAccountLooksInThatAccount(t *testing.T) {
	t.Parallel()
	h, a := accountAHarness(t, harnessOptions{})
	h.waitAccount(a.Name, computev1alpha1.ReasonVerified)
	annotateNamespace(t, h, h.ns, map[string]string{computev1alpha1.DefaultAccountAnnotation: a.Name})
	// Another tool's instance in account A.
	c, err := h.clients.ForAccount(context.Background(), awsaccount.AssumedRole(a), ec2sim.DefaultRegion)
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := c.RunInstance(context.Background(), ec2.LaunchRequest{ClientToken: "legacy", ImageID: ec2sim.DefaultImageID,
		InstanceType: "t3.micro", SubnetID: ec2sim.DefaultSubnetIDs[0], Tags: map[string]string{"Name": "legacy"}})
	if err != nil {
		t.Fatal(err)
	}

	obj := h.instance("adopter")
	obj.Spec.InstanceID = legacy.ID
	h.create(obj)
	got := h.waitReady("adopter")
	if got.Status.Account != a.Name || got.Status.AccountID != workloadA {
		t.Errorf("adopted through account %q (%s), want %q (%s)", got.Status.Account, got.Status.AccountID, a.Name, workloadA)
	}
	if tags := h.world.sims[workloadA].Instances()[0].Tags; tags[ec2.TagOwnerUID] != string(got.UID) {
		t.Errorf("the adopted instance's tags %v lack the owner", tags)
	}
	if n := h.sim.Calls("DescribeInstances") + h.sim.Calls("CreateTags"); n != 0 {
		t.Errorf("%d calls with the operator's own credentials, want 0", n)
	}
}

func TestRetainReleasesAnObjectWhoseAccountNoLongerAllowsItsNamespace(t *testing.T) {
	t.Parallel()
	h, a := accountAHarness(t, harnessOptions{})
	h.createIn(a, "orphan")
	id := h.waitReady("orphan").Status.InstanceID

	// The administrator withdraws the namespace's access: the object stops acting.
	acct, err := h.getAccount(a.Name)
	if err != nil {
		t.Fatal(err)
	}
	// The mark comes before the update: the operator may react before this test
	// reads the object again, and a mark taken after that would wait for a change
	// that has already happened.
	m := h.mark("orphan")
	acct.Spec.AllowedNamespaces.Names = []string{"someone-else"}
	if err := h.k8s.Update(context.Background(), acct); err != nil {
		t.Fatal(err)
	}
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonAccountNotAllowed)

	// Deleting it with Retain cannot untag the instance without the account, and must
	// not wait for the account forever: it is released, the instance left running.
	h.update("orphan", func(o *computev1alpha1.EC2Instance) { o.Spec.DeletionPolicy = computev1alpha1.DeletionPolicyRetain })
	h.deleteObject("orphan")
	h.waitGone("orphan")
	inst, ok := h.world.sims[workloadA].Instance(id)
	if !ok || inst.State != ec2sim.StateRunning {
		t.Errorf("the retained instance is %+v, want it running", inst)
	}
	if n := h.world.sims[workloadA].Calls("TerminateInstances"); n != 0 {
		t.Errorf("%d TerminateInstances for a retained instance", n)
	}
}

// BenchmarkFleetAcrossTwoAccounts launches a fleet split between two AWSAccounts and
// reports, per instance, the EC2 calls and API server writes of the launch, the STS
// calls in all, and the DescribeInstances per instance per resync at rest: each
// account's client batches its own instances' lookups.
func BenchmarkFleetAcrossTwoAccounts(b *testing.B) {
	fleet := benchFleet()
	const resync = 2 * time.Second
	for range b.N {
		h := newHarness(b, harnessOptions{accounts: true, tweak: func(r *EC2InstanceReconciler) {
			r.ResyncPeriod = resync
			r.AttributeResyncPeriod = time.Hour
			r.MaxConcurrentReconciles = 4
		}})
		h.timeout = 3*time.Minute + time.Duration(fleet)*100*time.Millisecond
		allowed := computev1alpha1.AllowedNamespaces{Names: []string{h.ns}}
		accounts := []*computev1alpha1.AWSAccount{h.account("a", roleA, externalIDA, allowed), h.account("b", roleB, externalIDB, allowed)}
		for _, a := range accounts {
			h.waitAccount(a.Name, computev1alpha1.ReasonVerified)
		}
		calls := func(op string) int {
			return h.world.sims[workloadA].Calls(op) + h.world.sims[workloadB].Calls(op)
		}
		writes := h.apiWrites.Load()
		for i := range fleet {
			obj := h.instance(fmt.Sprintf("fleet-%03d", i))
			obj.Spec.AccountRef = &computev1alpha1.AccountReference{Name: accounts[i%2].Name}
			h.create(obj)
		}
		for i := range fleet {
			h.waitCondition(fmt.Sprintf("fleet-%03d", i), computev1alpha1.ConditionSynced, "True", computev1alpha1.ReasonInSync)
		}
		per := func(n int) float64 { return float64(n) / float64(fleet) }
		b.ReportMetric(per(calls("RunInstances")), "runs/instance")
		b.ReportMetric(per(calls("DescribeInstances")), "create-describes/instance")
		b.ReportMetric(per(int(h.apiWrites.Load()-writes)), "create-writes/instance")
		b.ReportMetric(float64(h.world.sts.Calls("AssumeRole")), "assume-role-calls")
		if n := h.sim.Calls("RunInstances") + h.sim.Calls("DescribeInstances"); n != 0 {
			b.Fatalf("%d calls with the operator's own credentials", n)
		}

		time.Sleep(resync)
		for _, s := range h.world.sims {
			s.ResetCalls()
		}
		assumed, restWrites := h.world.sts.Calls("AssumeRole"), h.apiWrites.Load()
		time.Sleep(3 * resync)
		b.ReportMetric(per(calls("DescribeInstances"))/3, "rest-describes/instance/resync")
		b.ReportMetric(float64(h.world.sts.Calls("AssumeRole")-assumed), "rest-assume-role-calls")
		b.ReportMetric(float64(h.apiWrites.Load()-restWrites), "rest-api-writes")
		h.stopManager()
	}
}
