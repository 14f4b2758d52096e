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
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// TestCredentialsMovedToAnotherAccountLaunchNothing: a fleet launched with the
// operator's own credentials records their account; a manager started with
// credentials of another account (the router sends their calls to that account's
// emulator, where the instances do not exist) reports AccountMismatch on every object
// and launches nothing, in either account. Shipped resync periods: the restart is the
// event, and nothing waits for a periodic pass.
func TestCredentialsMovedToAnotherAccountLaunchNothing(t *testing.T) {
	t.Parallel()
	const fleet = 20
	h := newHarness(t, harnessOptions{accounts: true, tweak: func(r *EC2InstanceReconciler) {
		r.ResyncPeriod, r.AttributeResyncPeriod = DefaultResyncPeriod, DefaultAttributeResyncPeriod
	}})
	for i := range fleet {
		h.create(h.instance(fmt.Sprintf("web-%d", i)))
	}
	for i := range fleet {
		if got := h.waitReady(fmt.Sprintf("web-%d", i)); got.Status.AccountID != operatorAccount {
			t.Fatalf("web-%d recorded account %q, want the operator's %s", i, got.Status.AccountID, operatorAccount)
		}
	}
	launched := h.world.totalCalls()

	// The credentials now act in account A (a rotated Secret, another profile).
	h.stopManager()
	h.world.sts.AddUser(workloadA, "AKIDMOVEDTOA", operatorSecret)
	h.accessKey = "AKIDMOVEDTOA"
	h.startManager()
	for i := range fleet {
		got := h.waitCondition(fmt.Sprintf("web-%d", i), computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonAccountMismatch)
		if msg := findCondition(got, computev1alpha1.ConditionReady).Message; !strings.Contains(msg, workloadA) || !strings.Contains(msg, operatorAccount) {
			t.Errorf("web-%d: Ready says %q; want both accounts named", i, msg)
		}
	}
	for id, sim := range h.world.sims {
		if n := sim.Calls("RunInstances"); id != operatorAccount && n != 0 {
			t.Errorf("account %s: RunInstances called %d times after the credentials moved", id, n)
		}
		if n := sim.Calls("TerminateInstances"); n != 0 {
			t.Errorf("account %s: TerminateInstances called %d times", id, n)
		}
	}
	if n := h.world.sims[operatorAccount].Calls("RunInstances"); n != fleet {
		t.Errorf("RunInstances in the operator's account: %d, want the %d launches before the move", n, fleet)
	}
	t.Logf("EC2 calls: %d for the fleet's launch, %d after the move", launched, h.world.totalCalls()-launched)
}
