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
	"time"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// lookupsBefore counts, among the DescribeInstances calls that came before the first
// call of op, those filtered by client token or owner UID (an object's own lookups)
// and those listing a namespace (shared by every object created together).
func lookupsBefore(h *harness, op string) (own, namespace int) {
	for _, r := range h.sim.Requests() {
		if r.Operation == op {
			return own, namespace
		}
		if r.Operation != "DescribeInstances" {
			continue
		}
		for k, v := range r.Params {
			if !strings.HasPrefix(k, "Filter.") || !strings.HasSuffix(k, ".Name") {
				continue
			}
			switch v[0] {
			case "client-token", "tag:" + ec2.TagOwnerUID:
				own++
			case "tag:" + ec2.TagOwnerNamespace:
				namespace++
			}
		}
	}
	return own, namespace
}

func TestANewObjectIsLaunchedWithoutALookupAndWrittenThreeTimes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{sim: ec2sim.Config{PendingDuration: time.Nanosecond}})
	h.create(h.instance("fresh"))
	got := h.waitReady("fresh")
	// Nothing can have been launched for a new object yet; only the namespace is
	// listed once, for an instance of an earlier object with the same name (a restore).
	if own, ns := lookupsBefore(h, "RunInstances"); own != 0 || ns > 1 {
		t.Errorf("%d lookups of the object's own and %d of its namespace before launching it", own, ns)
	}
	// The finalizer, the launch record, and the instance with Ready (it was running
	// by the pass after the launch).
	if n := h.apiWrites.Load(); n != 3 {
		t.Errorf("%d writes to the object, want 3", n)
	}
	if n := h.sim.Calls("DescribeInstanceAttribute"); n != 0 {
		t.Errorf("%d DescribeInstanceAttribute calls: what was set at launch is known", n)
	}
	if got.Status.InstanceID == "" || got.Status.ClientToken == "" || got.Status.LastLaunchAttempt == nil {
		t.Errorf("status lacks the launch record or the instance: %+v", got.Status)
	}
}

func TestDeleteTerminatesWithoutReadingAttributesAndReleasesOnTheAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{sim: ec2sim.Config{ShuttingDownDuration: time.Hour}})
	h.create(h.instance("quick"))
	id := h.waitReady("quick").Status.InstanceID
	h.sim.ResetCalls()
	h.deleteObject("quick")
	h.waitGone("quick")
	if s := h.terminating(id); s != "" {
		t.Fatalf("instance is %s", s)
	}
	if n := h.sim.Calls("DescribeInstanceAttribute"); n != 0 {
		t.Errorf("%d DescribeInstanceAttribute calls: termination protection is handled when EC2 refuses", n)
	}
	// TerminateInstances answers shutting-down (which lasts an hour here): the object
	// is released on that answer, not after describing the instance again.
	if n := h.sim.Calls("TerminateInstances"); n != 1 {
		t.Errorf("%d TerminateInstances calls, want 1", n)
	}
}

func TestAManagerStartingWithAFleetDescribesItInOneCall(t *testing.T) {
	t.Parallel()
	const fleet = 10
	h := newHarness(t, harnessOptions{tweak: func(r *EC2InstanceReconciler) {
		r.ResyncPeriod = time.Minute
		r.AttributeResyncPeriod = time.Hour
	}})
	for i := range fleet {
		h.create(h.instance(fmt.Sprintf("fleet-%d", i)))
	}
	for i := range fleet {
		h.waitCondition(fmt.Sprintf("fleet-%d", i), computev1alpha1.ConditionSynced, "True", computev1alpha1.ReasonInSync)
	}
	h.stopManager()
	h.sim.ResetCalls()
	writes, reconciles := h.apiWrites.Load(), h.reconciles.Load()
	h.startManager()
	h.eventually(h.timeout, func() string {
		return unless(h.reconciles.Load()-reconciles >= fleet, "%d reconciles after the restart", h.reconciles.Load()-reconciles)
	})
	time.Sleep(time.Second) // the passes finish
	calls := h.sim.CallCounts()
	if calls["DescribeInstances"] > 1 || len(calls) > 1 {
		t.Errorf("a restart with %d settled instances cost %v, want one DescribeInstances", fleet, calls)
	}
	if n := h.apiWrites.Load() - writes; n != 0 {
		t.Errorf("%d writes after a restart with nothing to change", n)
	}
}

func TestLaunchesWaitForTheRunInstancesBudgetAndAreNeverThrottled(t *testing.T) {
	t.Parallel()
	limits, err := ec2limits.Documented().Parse("RunInstances=2/2")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, harnessOptions{limits: &limits, sim: ec2sim.Config{PendingDuration: time.Nanosecond},
		tweak: func(r *EC2InstanceReconciler) { r.MaxConcurrentReconciles = 4 }})
	const n = 8
	for i := range n {
		h.create(h.instance(fmt.Sprintf("queued-%d", i)))
	}
	for i := range n {
		h.waitReady(fmt.Sprintf("queued-%d", i))
	}
	if refused := h.sim.ThrottledCalls(); len(refused) != 0 {
		t.Errorf("EC2 refused calls the operator should have held back: %v", refused)
	}
	if got := h.sim.Calls("RunInstances"); got != n {
		t.Errorf("%d RunInstances for %d objects", got, n)
	}
	if w := h.apiWrites.Load(); w > 3*n {
		t.Errorf("%d writes for %d objects: waiting for the budget must not write", w, n)
	}
}
