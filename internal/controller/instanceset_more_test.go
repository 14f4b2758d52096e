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
	"maps"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// newSetWith creates a set like newSet's, changed by mutate first.
func (h *harness) newSetWith(name string, replicas int32, mutate func(*computev1alpha1.EC2InstanceSet)) {
	h.t.Helper()
	set := &computev1alpha1.EC2InstanceSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns},
		Spec: computev1alpha1.EC2InstanceSetSpec{
			Replicas: ptr.To(replicas),
			Template: computev1alpha1.EC2InstanceTemplate{Spec: h.instance("unused").Spec},
		},
	}
	mutate(set)
	if err := h.k8s.Create(context.Background(), set); err != nil {
		h.t.Fatalf("creating set %s: %v", name, err)
	}
}

// deleteSet deletes a set and then its EC2Instances, as the garbage collector (which
// envtest lacks) does.
func (h *harness) deleteSet(name string) {
	h.t.Helper()
	if err := h.k8s.Delete(context.Background(), h.getSet(name)); err != nil {
		h.t.Fatal(err)
	}
	if err := h.k8s.DeleteAllOf(context.Background(), &computev1alpha1.EC2Instance{}, client.InNamespace(h.ns),
		client.MatchingLabels{computev1alpha1.InstanceSetLabel: name}); err != nil {
		h.t.Fatal(err)
	}
	h.eventually(h.timeout, func() string {
		if n := len(h.setMembers(name)); n > 0 {
			return fmt.Sprintf("%d EC2Instances of set %s left", n, name)
		}
		return ""
	})
}

func TestOnDeleteReplacesOnlyTheInstancesTheUserDeletes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.timeout = 60 * time.Second
	const newImage = "ami-0aaaaaaaaaaaaaaa1"
	h.sim.AddImage(newImage, "al2023-next-x86_64", "x86_64")
	h.newSetWith("batch", 2, func(s *computev1alpha1.EC2InstanceSet) {
		s.Spec.Strategy.Type = computev1alpha1.OnDelete
	})
	h.waitSetSettled("batch", 2)
	launches := h.sim.Calls("RunInstances")
	h.updateSet("batch", func(s *computev1alpha1.EC2InstanceSet) { s.Spec.Template.Spec.ImageID = newImage })
	// Nothing is replaced on its own: the set says so, with both instances Ready.
	h.eventually(h.timeout, func() string {
		set := h.getSet("batch")
		if set.Status.ObservedGeneration != set.Generation || set.Status.UpdatedReplicas != 0 || set.Status.ReadyReplicas != 2 {
			return fmt.Sprintf("status %+v", set.Status)
		}
		return ""
	})
	time.Sleep(2 * time.Second) // the shipped set resyncs on its instances' changes; give it time to act wrongly
	if n := h.sim.Calls("RunInstances"); n != launches {
		t.Fatalf("OnDelete launched %d instances before anything was deleted", n-launches)
	}
	members := h.setMembers("batch")
	h.deleteObject(members[0].Name)
	h.eventually(h.timeout, func() string {
		set := h.getSet("batch")
		if set.Status.UpdatedReplicas != 1 || set.Status.ReadyReplicas != 2 {
			return fmt.Sprintf("status %+v; want one instance of the new image and two Ready", set.Status)
		}
		return ""
	})
	for _, m := range h.setMembers("batch") {
		if m.Name == members[1].Name && m.Spec.ImageID == newImage {
			t.Errorf("the instance nobody deleted was moved to the new image")
		}
	}
}

func TestDeletingASetFollowsEachInstancesDeletionPolicy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.timeout = 60 * time.Second
	for name, policy := range map[string]computev1alpha1.DeletionPolicy{
		"kept": computev1alpha1.DeletionPolicyRetain, "gone": computev1alpha1.DeletionPolicyDelete} {
		h.newSetWith(name, 2, func(s *computev1alpha1.EC2InstanceSet) { s.Spec.Template.Spec.DeletionPolicy = policy })
	}
	ids := map[string][]string{}
	for _, name := range []string{"kept", "gone"} {
		h.waitSetSettled(name, 2)
		for _, m := range h.setMembers(name) {
			ids[name] = append(ids[name], m.Status.InstanceID)
		}
		h.deleteSet(name)
	}
	for _, id := range ids["kept"] {
		inst := h.simInstance(id)
		if inst.State != ec2sim.StateRunning || inst.Tags[ec2.TagOwnerUID] != "" {
			t.Errorf("retained instance %s: %s, tags %v; want it running without ownership tags", id, inst.State, inst.Tags)
		}
	}
	for _, id := range ids["gone"] {
		if s := h.terminating(id); s != "" {
			t.Errorf("deleted instance %s: %s", id, s)
		}
	}
}

func TestASetWhoseInstancesAGuardrailRefusesSaysSoAndLaunchesOnceFixed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{accounts: true})
	h.timeout = 60 * time.Second
	acct := h.guardedAccount(&computev1alpha1.Guardrails{InstanceTypes: []string{"t3.*"}})
	before := h.sim.CallCounts()
	h.newSetWith("big", 3, func(s *computev1alpha1.EC2InstanceSet) {
		s.Spec.Template.Spec.AccountRef = &computev1alpha1.AccountReference{Name: acct.Name}
		s.Spec.Template.Spec.InstanceType = "m5.24xlarge"
	})
	h.eventually(h.timeout, func() string {
		members := h.setMembers("big")
		stuck := 0
		for i := range members {
			if c := meta.FindStatusCondition(members[i].Status.Conditions, computev1alpha1.ConditionStalled); c != nil &&
				c.Status == metav1.ConditionTrue && c.Reason == computev1alpha1.ReasonGuardrailViolation {
				stuck++
			}
		}
		set := h.getSet("big")
		if stuck != 3 || meta.IsStatusConditionTrue(set.Status.Conditions, computev1alpha1.ConditionReady) || set.Status.ReadyReplicas != 0 {
			return fmt.Sprintf("%d of 3 instances stalled on the guardrail; set status %+v", stuck, set.Status)
		}
		return ""
	})
	if after := h.sim.CallCounts(); after["RunInstances"] != before["RunInstances"] || !maps.Equal(before, after) {
		t.Errorf("instances refused by a guardrail called EC2: before %v, after %v", before, after)
	}
	// The type is one an instance takes in place: fixing the template fixes them all.
	h.updateSet("big", func(s *computev1alpha1.EC2InstanceSet) { s.Spec.Template.Spec.InstanceType = "t3.micro" })
	h.waitSetSettled("big", 3)
	if n := len(h.liveInstances()); n != 3 {
		t.Errorf("%d live instances, want 3", n)
	}
}

// TestASetCorrectsAStatusNotItsOwn: a set's pass compares the status it computes with
// the set as its cache holds it, and writes only a difference. A cache that has not
// seen the set's last status write yet (the pass runs on an instance's event) holds an
// older status: when that equals the new one, nothing is written, and the server keeps
// the status in between, say one of two instances ready, although both are. The set's
// own status changes therefore reconcile it too. Here the status in between is
// written by the test, as a pass from a stale cache would have left it.
func TestASetCorrectsAStatusNotItsOwn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.timeout = 60 * time.Second
	h.newSet("api", 2)
	set := h.waitSetSettled("api", 2)
	base := set.DeepCopy()
	set.Status.ReadyReplicas, set.Status.AvailableReplicas = 1, 1
	meta.SetStatusCondition(&set.Status.Conditions, metav1.Condition{Type: computev1alpha1.ConditionReady, Status: metav1.ConditionFalse,
		Reason: "WaitingForInstances", Message: "1 of 2 instances available", ObservedGeneration: set.Generation})
	if err := h.k8s.Status().Patch(context.Background(), set, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	// Well within the EC2Instance resync (which changes nothing here, so writes
	// nothing that would wake the set), and no set requeue is pending.
	h.timeout = 10 * time.Second
	settled := h.waitSetSettled("api", 2)
	// Its own write reconciles the set again, which must find nothing to write: a
	// write would wake it once more, for ever.
	time.Sleep(2 * time.Second)
	if rv := h.getSet("api").ResourceVersion; rv != settled.ResourceVersion {
		t.Errorf("the settled set was written again (resourceVersion %s, then %s)", settled.ResourceVersion, rv)
	}
}
