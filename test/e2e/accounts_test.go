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

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/localenv"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/simworld"
	"github.com/ec2-operator/ec2-operator/internal/sim/stssim"
)

// The accounts of the multi-account test. The manager's own key ("sandbox", from
// env.ManagerEnv) is an IAM user of operatorAccount, which may assume one role in
// each workload account, each guarded by its own external ID.
const (
	e2eOperatorAccount = "111111111111"
	e2eAccountA        = "222222222222"
	e2eRoleA           = "arn:aws:iam::222222222222:role/ec2-operator"
	e2eAccountB        = "333333333333"
	e2eRoleB           = "arn:aws:iam::333333333333:role/ec2-operator"
)

// TestTwoAccountsAndThreeNamespaces runs the manager binary against an STS endpoint
// and an EC2 endpoint that routes each request to the account its credentials act in.
// Two AWSAccounts each allow one namespace (one by name, one by label); a third
// namespace is allowed by neither. Instances land in their namespace's account; the
// third namespace's object names an account and is refused without any AWS call; an
// account in use cannot be deleted until its instances are gone.
//
// It does not run in parallel: AWSAccounts are cluster-scoped, and every manager of
// the parallel tests would reconcile them too (with credentials that cannot assume
// these roles). Go starts the parallel tests only after the sequential ones finish.
func TestTwoAccountsAndThreeNamespaces(t *testing.T) {
	clock := ec2sim.Config{PendingDuration: 300 * time.Millisecond, StoppingDuration: 300 * time.Millisecond, ShuttingDownDuration: 300 * time.Millisecond}
	opts := []simworld.Option{simworld.STS(stssim.Config{Seed: 7}),
		simworld.User(e2eOperatorAccount, "sandbox", "sandbox"),
		simworld.Role(e2eRoleA, "team-a-ext", "sandbox"),
		simworld.Role(e2eRoleB, "team-b-ext", "sandbox")}
	for i, id := range []string{e2eOperatorAccount, e2eAccountA, e2eAccountB} {
		c := clock
		c.Seed = int64(100 + i)
		opts = append(opts, simworld.Account(id, c))
	}
	world := simworld.New(t, opts...)
	sims := world.Sims

	teamA, teamB, nobody := newNamespace(t, "team-a"), newNamespace(t, "team-b"), newNamespace(t, "nobody")
	kubectl(t, "", "label", "namespace", teamB, "team=b")
	suffix := strings.TrimPrefix(teamA, "e2e-team-a-")
	acctA, acctB := "team-a-"+suffix, "team-b-"+suffix
	kubectl(t, fmt.Sprintf(`apiVersion: compute.ec2-operator.dev/v1alpha1
kind: AWSAccount
metadata:
  name: %s
spec:
  roleArn: %s
  externalId: team-a-ext
  allowedNamespaces:
    names: [%s]
---
apiVersion: compute.ec2-operator.dev/v1alpha1
kind: AWSAccount
metadata:
  name: %s
spec:
  roleArn: %s
  externalId: team-b-ext
  defaultRegion: %s
  allowedNamespaces:
    selector:
      matchLabels:
        team: b
`, acctA, e2eRoleA, teamA, acctB, e2eRoleB, ec2sim.DefaultRegion), "apply", "-f", "-")
	removeAccountsAtCleanup(t, acctA, acctB)

	environ := append(env.ManagerEnv(), "AWS_ENDPOINT_URL_EC2="+world.EC2URL)
	startManagerWithEnv(t, "accounts", teamA+","+teamB+","+nobody, environ, "--sts-endpoint="+world.STSURL)
	kubectl(t, "", "wait", "--for=condition=Ready", "awsaccount/"+acctA, "awsaccount/"+acctB, kubectlWait)
	listed := kubectl(t, "", "get", "awsaccounts", acctA, acctB)
	for _, want := range []string{e2eAccountA, e2eAccountB} {
		if !strings.Contains(listed, want) {
			t.Errorf("kubectl get awsaccounts does not show account %s:\n%s", want, listed)
		}
	}

	withAccount := func(ns, name, account string) string {
		return strings.Replace(instanceManifest(ns, name), "spec:\n", "spec:\n  accountRef:\n    name: "+account+"\n", 1)
	}
	kubectl(t, withAccount(teamA, "web", acctA)+"---\n"+withAccount(teamB, "web", acctB)+"---\n"+withAccount(nobody, "web", acctA), "apply", "-f", "-")
	inA, inB := waitReady(t, teamA, "web"), waitReady(t, teamB, "web")
	if inA.Status.AccountID != e2eAccountA || inB.Status.AccountID != e2eAccountB {
		t.Errorf("status.accountId: %s in %s, %s in %s", inA.Status.AccountID, teamA, inB.Status.AccountID, teamB)
	}
	for account, want := range map[string]string{e2eAccountA: inA.Status.InstanceID, e2eAccountB: inB.Status.InstanceID, e2eOperatorAccount: ""} {
		var live []string
		for _, r := range sims[account].Instances() {
			if r.State != ec2sim.StateTerminated {
				live = append(live, r.ID)
			}
		}
		if (want == "" && len(live) != 0) || (want != "" && (len(live) != 1 || live[0] != want)) {
			t.Errorf("account %s holds %v, want [%s]", account, live, want)
		}
	}

	kubectl(t, "", "wait", "--for=jsonpath={.status.conditions[?(@.type==\"Ready\")].reason}=AccountNotAllowed", "-n", nobody, "ec2/web", kubectlWait)
	refused := getInstance(t, nobody, "web")
	if refused.Status.InstanceID != "" || !strings.Contains(readyCondition(refused).Message, nobody) {
		t.Errorf("the refused object: instance %q, Ready %+v", refused.Status.InstanceID, readyCondition(refused))
	}
	if events := kubectl(t, "", "get", "events", "-n", nobody); !strings.Contains(events, "AccountNotAllowed") {
		t.Errorf("no AccountNotAllowed event in %s:\n%s", nobody, events)
	}
	// Two launches (one may be sent again under its own client token, which EC2
	// answers with the same instance); no request in any account for the refused
	// namespace.
	tokens := world.ClientTokens("RunInstances")
	for _, r := range world.RequestsCarrying(nobody) {
		t.Errorf("%s carries the refused namespace %s: %v", r.Operation, nobody, r.Params)
	}
	if len(tokens) != 2 {
		t.Errorf("RunInstances client tokens across accounts = %v, want two", tokens)
	}

	// An account in use is not deleted until no object uses it.
	kubectl(t, "", "delete", "awsaccount", acctB, "--wait=false")
	eventually(t, waitTimeout, func() string {
		a := &computev1alpha1.AWSAccount{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Name: acctB}, a); err != nil {
			return err.Error()
		}
		if c := meta.FindStatusCondition(a.Status.Conditions, computev1alpha1.ConditionDeletionBlocked); c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Sprintf("AWSAccount %s conditions %+v", acctB, a.Status.Conditions)
		}
		return ""
	})
	kubectl(t, "", "delete", "ec2", "web", "-n", teamB, kubectlWait)
	kubectl(t, "", "delete", "ec2", "web", "-n", teamA, kubectlWait)
	kubectl(t, "", "delete", "ec2", "web", "-n", nobody, kubectlWait)
	eventually(t, waitTimeout, func() string {
		err := k8s.Get(context.Background(), client.ObjectKey{Name: acctB}, &computev1alpha1.AWSAccount{})
		if !apierrors.IsNotFound(err) {
			return fmt.Sprintf("AWSAccount %s is still there once unused (%v)", acctB, err)
		}
		return ""
	})
	for account, s := range sims {
		for _, r := range s.Instances() {
			if r.State != ec2sim.StateTerminated && r.State != ec2sim.StateShuttingDown {
				t.Errorf("account %s: instance %s is %s after deletion", account, r.ID, r.State)
			}
		}
	}
	kubectl(t, "", "delete", "awsaccount", acctA, kubectlWait)
}

// TestTheSampleAccountWorksInTheLocalWorld applies the shipped AWSAccount sample to
// the local environment that `make sandbox` runs, which emulates its account and role,
// and launches the shipped EC2Instance sample through it from a namespace that the
// sample allows by label and names as its default account. Sequential for the same
// reason as TestTwoAccountsAndThreeNamespaces.
func TestTheSampleAccountWorksInTheLocalWorld(t *testing.T) {
	sample := filepath.Join(projectRoot, "config", "samples", "compute_v1alpha1_awsaccount.yaml")
	ns := newNamespace(t, "payments")
	kubectl(t, "", "label", "namespace", ns, "team=payments")
	kubectl(t, "", "annotate", "namespace", ns, computev1alpha1.DefaultAccountAnnotation+"=payments")
	removeAccountsAtCleanup(t, "payments")
	startManager(t, "sample-account", ns)
	kubectl(t, "", "apply", "-f", sample)
	kubectl(t, "", "wait", "--for=condition=Ready", "awsaccount/payments", kubectlWait)
	a := &computev1alpha1.AWSAccount{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Name: "payments"}, a); err != nil {
		t.Fatal(err)
	}
	if a.Status.AccountID != localenv.SampleAccountID || a.Spec.RoleARN != localenv.SampleRoleARN || a.Spec.ExternalID != localenv.SampleExternalID {
		t.Errorf("the sample (role %s, external ID %s) verified as account %q; the local world emulates %s, %s, %s",
			a.Spec.RoleARN, a.Spec.ExternalID, a.Status.AccountID, localenv.SampleRoleARN, localenv.SampleExternalID, localenv.SampleAccountID)
	}

	kubectl(t, "", "apply", "-n", ns, "-f", filepath.Join(projectRoot, "config", "samples", "compute_v1alpha1_ec2instance.yaml"))
	if out, err := tryKubectl("", "wait", "-n", ns, "--for=condition=Ready", "ec2/web-1", kubectlWait); err != nil {
		t.Fatalf("%v: %s\n%s", err, out, kubectl(t, "", "get", "ec2", "web-1", "-n", ns, "-o", "yaml"))
	}
	obj := getInstance(t, ns, "web-1")
	if obj.Status.Account != "payments" || obj.Status.AccountID != localenv.SampleAccountID {
		t.Errorf("web-1 runs in account %q (%s), want payments (%s)", obj.Status.Account, obj.Status.AccountID, localenv.SampleAccountID)
	}
	found := false
	for _, r := range env.SampleSim.Instances() {
		found = found || r.ID == obj.Status.InstanceID
	}
	if !found {
		t.Errorf("instance %s is not in the sample account's emulator", obj.Status.InstanceID)
	}
	kubectl(t, "", "delete", "ec2", "web-1", "-n", ns, kubectlWait)
	kubectl(t, "", "delete", "awsaccount", "payments", kubectlWait)
}

// removeAccountsAtCleanup deletes the AWSAccounts when the test ends, finalizers and
// all: should the test fail half-way, no account may outlive it with a finalizer that
// no manager removes.
func removeAccountsAtCleanup(t *testing.T, names ...string) {
	t.Cleanup(func() {
		for _, name := range names {
			a := &computev1alpha1.AWSAccount{}
			if err := k8s.Get(context.Background(), client.ObjectKey{Name: name}, a); err == nil {
				a.Finalizers = nil
				_ = k8s.Update(context.Background(), a)
				_ = k8s.Delete(context.Background(), a)
			}
		}
	})
}
