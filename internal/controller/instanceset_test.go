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
	"slices"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// These tests run EC2InstanceSets through the real API server, the set and
// EC2Instance reconcilers of one manager, and the EC2 emulator. envtest runs no
// garbage collector, so deleting a set (whose instances go by their owner
// reference) is tested on the real node (test/cluster).

// newSet returns a set of replicas instances of the harness's usual instance.
func (h *harness) newSet(name string, replicas int32) *computev1alpha1.EC2InstanceSet {
	set := &computev1alpha1.EC2InstanceSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns},
		Spec: computev1alpha1.EC2InstanceSetSpec{
			Replicas: ptr.To(replicas),
			Template: computev1alpha1.EC2InstanceTemplate{
				Metadata: computev1alpha1.EC2InstanceTemplateMetadata{Labels: map[string]string{"tier": "web"}},
				Spec:     h.instance("unused").Spec,
			},
		},
	}
	if err := h.k8s.Create(context.Background(), set); err != nil {
		h.t.Fatalf("creating set %s: %v", name, err)
	}
	return set
}

func (h *harness) getSet(name string) *computev1alpha1.EC2InstanceSet {
	h.t.Helper()
	set := &computev1alpha1.EC2InstanceSet{}
	if err := h.k8s.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, set); err != nil {
		h.t.Fatalf("getting set %s: %v", name, err)
	}
	return set
}

// updateSet applies mutate to the latest version of the set, retrying conflicts.
func (h *harness) updateSet(name string, mutate func(*computev1alpha1.EC2InstanceSet)) {
	h.t.Helper()
	for range 10 {
		set := h.getSet(name)
		mutate(set)
		if err := h.k8s.Update(context.Background(), set); err == nil {
			return
		} else if !strings.Contains(err.Error(), "the object has been modified") {
			h.t.Fatalf("updating set %s: %v", name, err)
		}
	}
	h.t.Fatalf("updating set %s: too many conflicts", name)
}

// setMembers lists the EC2Instances the set's selector selects.
func (h *harness) setMembers(name string) []computev1alpha1.EC2Instance {
	h.t.Helper()
	list := &computev1alpha1.EC2InstanceList{}
	if err := h.k8s.List(context.Background(), list, client.InNamespace(h.ns),
		client.MatchingLabels{computev1alpha1.InstanceSetLabel: name}); err != nil {
		h.t.Fatal(err)
	}
	return list.Items
}

// describeMembers says, for a failure message, where each instance of a set is: its
// generation, the one its status observed, and its Ready condition.
func (h *harness) describeMembers(name string) string {
	var out []string
	for _, m := range h.setMembers(name) {
		ready := meta.FindStatusCondition(m.Status.Conditions, computev1alpha1.ConditionReady)
		desc := fmt.Sprintf("%s generation %d observed %d", m.Name, m.Generation, m.Status.ObservedGeneration)
		if ready != nil {
			desc += fmt.Sprintf(" Ready=%s %s (%s) since %s", ready.Status, ready.Reason, ready.Message, ready.LastTransitionTime.UTC().Format(time.TimeOnly))
		}
		if m.DeletionTimestamp != nil {
			desc += " deleting"
		}
		out = append(out, desc)
	}
	return strings.Join(out, "; ")
}

// waitSetSettled waits until the set reports Ready: replicas instances of its
// current template, all available, and returns it.
func (h *harness) waitSetSettled(name string, replicas int32) *computev1alpha1.EC2InstanceSet {
	h.t.Helper()
	var set *computev1alpha1.EC2InstanceSet
	h.eventually(h.timeout, func() string {
		set = h.getSet(name)
		st := set.Status
		ready := meta.IsStatusConditionTrue(st.Conditions, computev1alpha1.ConditionReady)
		if !ready || st.ObservedGeneration != set.Generation || st.Replicas != replicas || st.AvailableReplicas != replicas || st.UpdatedReplicas != replicas {
			return fmt.Sprintf("set %s: want %d instances settled, status %+v; its instances: %s", name, replicas, st, h.describeMembers(name))
		}
		return ""
	})
	return set
}

// readyMembers counts the set's instances that are Ready and not being deleted.
func readyMembers(members []computev1alpha1.EC2Instance) int {
	n := 0
	for _, m := range members {
		if m.DeletionTimestamp == nil && meta.IsStatusConditionTrue(m.Status.Conditions, computev1alpha1.ConditionReady) {
			n++
		}
	}
	return n
}

func TestASetLaunchesItsInstancesAndScales(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.timeout = 60 * time.Second
	h.newSet("web", 3)
	set := h.waitSetSettled("web", 3)
	if set.Status.Selector != computev1alpha1.InstanceSetLabel+"=web" || set.Status.TemplateHash == "" {
		t.Errorf("status selector %q, hash %q", set.Status.Selector, set.Status.TemplateHash)
	}
	for _, c := range []string{computev1alpha1.ConditionAvailable, computev1alpha1.ConditionProgressing} {
		if !meta.IsStatusConditionTrue(set.Status.Conditions, c) {
			t.Errorf("condition %s not True: %+v", c, set.Status.Conditions)
		}
	}
	if meta.IsStatusConditionTrue(set.Status.Conditions, computev1alpha1.ConditionReconciling) {
		t.Errorf("a settled set is still Reconciling")
	}
	h.wantHealth("EC2InstanceSet", h.ns, "web", "Healthy", "3 instances of the current template")
	for _, m := range h.setMembers("web") {
		owner := metav1.GetControllerOf(&m)
		if owner == nil || owner.UID != set.UID || owner.BlockOwnerDeletion == nil || !*owner.BlockOwnerDeletion {
			t.Errorf("%s: controller reference %+v, want the set, blocking deletion", m.Name, owner)
		}
		if m.Labels["tier"] != "web" || m.Labels[computev1alpha1.TemplateHashLabel] != set.Status.TemplateHash {
			t.Errorf("%s: labels %v", m.Name, m.Labels)
		}
	}
	if n := len(h.liveInstances()); n != 3 {
		t.Errorf("%d live instances in EC2, want 3", n)
	}

	// kubectl scale goes through the scale subresource.
	scale := &autoscalingv1.Scale{}
	if err := h.k8s.SubResource("scale").Get(context.Background(), set, scale); err != nil {
		t.Fatal(err)
	}
	if scale.Status.Replicas != 3 || scale.Status.Selector != set.Status.Selector {
		t.Errorf("scale status %+v", scale.Status)
	}
	scale.Spec.Replicas = 5
	if err := h.k8s.SubResource("scale").Update(context.Background(), set, client.WithSubResourceBody(scale)); err != nil {
		t.Fatal(err)
	}
	h.waitSetSettled("web", 5)

	h.updateSet("web", func(s *computev1alpha1.EC2InstanceSet) { s.Spec.Replicas = ptr.To[int32](2) })
	h.waitSetSettled("web", 2)
	h.eventually(h.timeout, func() string {
		if n := len(h.liveInstances()); n != 2 {
			return fmt.Sprintf("%d live instances in EC2 after scaling to 2", n)
		}
		return ""
	})
}

func TestARollingImageChangeKeepsEveryInstanceReady(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.timeout = 90 * time.Second
	const replicas = 4
	h.sim.AddImage("ami-0aaaaaaaaaaaaaaa1", "al2023-next-x86_64", "x86_64")
	set := h.newSet("app", replicas)
	set = h.waitSetSettled("app", replicas)
	oldHash := set.Status.TemplateHash
	var oldIDs []string
	for _, m := range h.setMembers("app") {
		oldIDs = append(oldIDs, m.Status.InstanceID)
	}
	launches := h.sim.Calls("RunInstances")

	h.updateSet("app", func(s *computev1alpha1.EC2InstanceSet) {
		s.Spec.Template.Spec.ImageID = "ami-0aaaaaaaaaaaaaaa1"
		s.Spec.Strategy.RollingUpdate = &computev1alpha1.RollingUpdateEC2InstanceSet{
			MaxSurge: ptr.To(intstr.FromInt32(1)), MaxUnavailable: ptr.To(intstr.FromInt32(0))}
	})
	// Until the set settles on the new template, never fewer than replicas Ready.
	fewest := replicas
	h.eventually(h.timeout, func() string {
		members := h.setMembers("app")
		fewest = min(fewest, readyMembers(members))
		set := h.getSet("app")
		if set.Status.TemplateHash == oldHash || set.Status.UpdatedReplicas != replicas || set.Status.Replicas != replicas ||
			!meta.IsStatusConditionTrue(set.Status.Conditions, computev1alpha1.ConditionReady) {
			return fmt.Sprintf("rolling: status %+v", set.Status)
		}
		return ""
	})
	if fewest < replicas {
		t.Errorf("%d instances were Ready at one point of the replacement, want never fewer than %d", fewest, replicas)
	}
	for _, m := range h.setMembers("app") {
		if slices.Contains(oldIDs, m.Status.InstanceID) {
			t.Errorf("%s kept its old instance %s", m.Name, m.Status.InstanceID)
		}
		if inst := h.simInstance(m.Status.InstanceID); inst.ImageID != "ami-0aaaaaaaaaaaaaaa1" {
			t.Errorf("%s runs image %s", m.Name, inst.ImageID)
		}
	}
	if n := h.sim.Calls("RunInstances") - launches; n != replicas {
		t.Errorf("%d launches for %d replaced instances", n, replicas)
	}
	h.eventually(h.timeout, func() string {
		for _, id := range oldIDs {
			if state := h.simInstance(id).State; state != ec2sim.StateTerminated && state != ec2sim.StateShuttingDown {
				return fmt.Sprintf("old instance %s is %s", id, state)
			}
		}
		return ""
	})
}

func TestATemplateChangeEveryInstanceCanTakeIsAppliedInPlace(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.timeout = 60 * time.Second
	h.newSet("cache", 2)
	set := h.waitSetSettled("cache", 2)
	ids := map[string]string{}
	for _, m := range h.setMembers("cache") {
		ids[m.Name] = m.Status.InstanceID
	}
	launches := h.sim.Calls("RunInstances")
	h.updateSet("cache", func(s *computev1alpha1.EC2InstanceSet) { s.Spec.Template.Spec.Tags["owner"] = "team-b" })
	h.eventually(h.timeout, func() string {
		for name, id := range ids {
			if tag := h.simInstance(id).Tags["owner"]; tag != "team-b" {
				return fmt.Sprintf("%s (%s): tag owner=%q", name, id, tag)
			}
		}
		return ""
	})
	if got := h.waitSetSettled("cache", 2); got.Status.TemplateHash != set.Status.TemplateHash {
		t.Errorf("a tag change changed the template hash")
	}
	if n := h.sim.Calls("RunInstances"); n != launches {
		t.Errorf("a tag change launched %d instances", n-launches)
	}
}

func TestASetReplacesAnInstanceDeletedUnderIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.timeout = 60 * time.Second
	h.newSet("queue", 2)
	h.waitSetSettled("queue", 2)
	victim := h.setMembers("queue")[0].Name
	h.deleteObject(victim)
	h.waitGone(victim)
	h.waitSetSettled("queue", 2)
	if n := len(h.liveInstances()); n != 2 {
		t.Errorf("%d live instances in EC2, want 2", n)
	}
}

func TestAnInstanceTheAPIServerRefusesStallsTheSet(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.timeout = 60 * time.Second
	h.newSet("db", 1)
	h.updateSet("db", func(s *computev1alpha1.EC2InstanceSet) {
		s.Spec.Template.Spec.RootVolume = &computev1alpha1.RootVolume{SizeGiB: ptr.To[int32](40)}
	})
	h.waitSetSettled("db", 1)
	// EBS volumes cannot shrink: an EC2Instance refuses a smaller root volume, and
	// the set says so instead of replacing the instance or retrying in a loop.
	h.updateSet("db", func(s *computev1alpha1.EC2InstanceSet) { s.Spec.Template.Spec.RootVolume.SizeGiB = ptr.To[int32](20) })
	h.eventually(h.timeout, func() string {
		c := meta.FindStatusCondition(h.getSet("db").Status.Conditions, computev1alpha1.ConditionStalled)
		if c == nil || c.Status != metav1.ConditionTrue || c.Reason != "InstanceRefused" || !strings.Contains(c.Message, "can only grow") {
			return fmt.Sprintf("want Stalled InstanceRefused with the API server's message, got %+v", c)
		}
		return ""
	})
	h.wantHealth("EC2InstanceSet", h.ns, "db", "Degraded", "can only grow")
	h.waitSetEvent("db", "InstanceRefused")
}

// waitSetEvent waits for an event with the reason on the set.
func (h *harness) waitSetEvent(name, reason string) {
	h.t.Helper()
	h.eventually(h.timeout, func() string {
		list := &eventsv1.EventList{}
		if err := h.k8s.List(context.Background(), list, client.InNamespace(h.ns)); err != nil {
			return err.Error()
		}
		for _, e := range list.Items {
			if e.Regarding.Kind == "EC2InstanceSet" && e.Regarding.Name == name && e.Reason == reason {
				return ""
			}
		}
		return fmt.Sprintf("no %s event on set %s", reason, name)
	})
}
