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
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func TestCreateLaunchesOneInstanceTaggedAtLaunchAndReportsItReady(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("web")
	obj.Spec.UserData = "#!/bin/sh\necho hi\n"
	h.create(obj)

	got := h.waitReady("web")
	st := got.Status
	if st.InstanceID == "" || st.State != "running" || st.PrivateIP == "" || st.PrivateDNSName == "" ||
		st.AvailabilityZone != "us-east-1a" || st.InstanceType != "t3.micro" || st.ImageID != ec2sim.DefaultImageID ||
		st.LaunchTime == nil || st.Region != "us-east-1" || st.ObservedGeneration != got.Generation {
		t.Errorf("status is incomplete: %+v", st)
	}
	if want := ec2.ClientToken(string(got.UID), 0); st.ClientToken != want {
		t.Errorf("client token %q, want %q derived from the UID", st.ClientToken, want)
	}
	if !slices.Contains(got.Finalizers, computev1alpha1.Finalizer) {
		t.Errorf("finalizer missing: %v", got.Finalizers)
	}
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("RunInstances called %d times, want 1", n)
	}
	if n := h.sim.Calls("CreateTags"); n != 0 {
		t.Errorf("CreateTags called %d times: every tag should be applied at launch", n)
	}
	inst := h.simInstance(st.InstanceID)
	wantTags := map[string]string{
		"team": "platform", "Name": "web",
		ec2.TagOwnerUID: string(got.UID), ec2.TagOwnerNamespace: h.ns, ec2.TagOwnerName: "web",
	}
	for k, v := range wantTags {
		if inst.Tags[k] != v {
			t.Errorf("instance tag %s=%q, want %q", k, inst.Tags[k], v)
		}
	}
	vol, ok := h.sim.Volume(inst.RootVolumeID)
	if !ok || vol.Tags[ec2.TagOwnerUID] != string(got.UID) || vol.Tags["team"] != "platform" {
		t.Errorf("root volume not tagged at launch: %+v", vol.Tags)
	}
	if inst.MetadataOptions.HTTPTokens != "required" {
		t.Errorf("IMDS tokens %q, want required", inst.MetadataOptions.HTTPTokens)
	}
	if string(inst.UserData) != obj.Spec.UserData {
		t.Errorf("user data not passed at launch")
	}
	h.waitEvent("web", "Launched")
	h.waitCondition("web", computev1alpha1.ConditionSynced, metav1.ConditionTrue, computev1alpha1.ReasonInSync)
}

func TestCrashBetweenRunInstancesAndTheStatusWriteLeavesExactlyOneInstance(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	gate := h.sim.BlockResponse("RunInstances")
	h.create(h.instance("crashy"))

	select {
	case <-gate.Arrived():
	case <-time.After(20 * time.Second):
		t.Fatal("RunInstances never arrived")
	}
	// EC2 has launched the instance, but the operator dies before hearing about it.
	h.stopManager()
	gate.Release()
	if n := len(h.liveInstances()); n != 1 {
		t.Fatalf("want the launched instance to exist, got %d instances", n)
	}
	if id := h.get("crashy").Status.InstanceID; id != "" {
		t.Fatalf("the instance ID %s was recorded although the answer was lost", id)
	}

	h.startManager()
	got := h.waitReady("crashy")
	live := h.liveInstances()
	if len(live) != 1 || live[0].ID != got.Status.InstanceID {
		t.Fatalf("want exactly the first instance, got %d instances (%+v), status %s", len(live), live, got.Status.InstanceID)
	}
}

func TestThrottlingStormDuringCreateEndsWithOneReadyInstance(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	// RunInstances is throttled more often than the SDK retries, so a whole pass fails
	// and the launch is repeated with the same token; meanwhile most other calls fail
	// too, and each failed pass backs off exponentially.
	removeRun := h.sim.InjectFault(ec2sim.Fault{Operation: "RunInstances", Code: "RequestLimitExceeded", HTTPStatus: 503, Times: 7})
	defer removeRun()
	remove := h.sim.InjectFault(ec2sim.Fault{Code: "RequestLimitExceeded", HTTPStatus: 503, Probability: 0.6, Times: 12})
	defer remove()
	h.timeout = 90 * time.Second
	h.create(h.instance("storm"))

	got := h.waitReady("storm")
	live := h.liveInstances()
	if len(live) != 1 || live[0].ID != got.Status.InstanceID {
		t.Fatalf("want one instance after the storm, got %d", len(live))
	}
	if n := h.sim.Calls("RunInstances"); n < 8 {
		t.Errorf("RunInstances was called %d times; the storm should have forced repeated launches", n)
	}
	h.waitEvent("storm", computev1alpha1.ReasonThrottled)
}

func TestDesiredStateStoppedStopsTheInstanceAndRunningStartsItAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("power"))
	id := h.waitReady("power").Status.InstanceID

	m := h.mark("power")
	h.update("power", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateStopped })
	got := h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonStopped)
	if got.Status.State != "stopped" || h.simInstance(id).State != "stopped" {
		t.Fatalf("want a stopped instance, status %s, emulator %s", got.Status.State, h.simInstance(id).State)
	}
	h.waitEventSince(m, computev1alpha1.ReasonStopping)

	m = h.mark("power")
	h.update("power", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateRunning })
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
	if s := h.simInstance(id).State; s != "running" {
		t.Fatalf("emulator says %s", s)
	}
}

func TestInstanceStoppedOutsideKubernetesIsStartedAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("oob-stop"))
	id := h.waitReady("oob-stop").Status.InstanceID

	// Ready=True/Available holds before the stop too: only a Ready written after the
	// operator noticed the stop (it leaves Available first) says it was started again.
	m := h.mark("oob-stop")
	if err := h.sim.StopInstance(id); err != nil {
		t.Fatal(err)
	}
	note := h.waitEventSince(m, computev1alpha1.ReasonStarting)
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
	if s := h.simInstance(id).State; s != "running" {
		t.Fatalf("emulator says %s", s)
	}
	if want := "stopped outside Kubernetes"; !strings.Contains(note, want) {
		t.Errorf("event %q does not say %q", note, want)
	}
}

func TestInstanceTerminatedOutsideKubernetesIsReplacedUnderANewToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("oob-term"))
	first := h.waitReady("oob-term")

	m := h.mark("oob-term")
	if err := h.sim.TerminateInstance(first.Status.InstanceID); err != nil {
		t.Fatal(err)
	}
	h.waitEventSince(m, computev1alpha1.ReasonTerminatedOutOfBand)
	var got *computev1alpha1.EC2Instance
	h.eventually(h.timeout, func() string {
		got = h.get("oob-term")
		if got.Status.InstanceID == "" || got.Status.InstanceID == first.Status.InstanceID || got.Status.State != "running" {
			return "no running replacement yet: " + got.Status.InstanceID + " " + got.Status.State
		}
		return ""
	})
	if got.Status.Recreations != 1 || got.Status.ClientToken != ec2.ClientToken(string(got.UID), 1) {
		t.Errorf("want recreation 1 with a new token, got %d %q", got.Status.Recreations, got.Status.ClientToken)
	}
	if n := len(h.liveInstances()); n != 1 {
		t.Errorf("want one live instance, got %d", n)
	}
}

func TestDeleteLiftsTerminationProtectionAndTerminatesTheInstance(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("protected")
	obj.Spec.DisableAPITermination = ptr.To(true)
	h.create(obj)
	id := h.waitReady("protected").Status.InstanceID
	if !h.simInstance(id).DisableAPITermination {
		t.Fatal("termination protection was not set at launch")
	}

	h.deleteObject("protected")
	h.waitGone("protected")
	if s := h.terminating(id); s != "" {
		t.Fatalf("instance is %s after deletion", s)
	}
}

func TestDeleteWithRetainLeavesTheInstanceRunningWithoutOwnershipTags(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("keep")
	obj.Spec.DeletionPolicy = computev1alpha1.DeletionPolicyRetain
	h.create(obj)
	id := h.waitReady("keep").Status.InstanceID

	h.deleteObject("keep")
	h.waitGone("keep")
	inst := h.simInstance(id)
	if inst.State != "running" {
		t.Fatalf("retained instance is %s", inst.State)
	}
	for _, k := range []string{ec2.TagOwnerUID, ec2.TagOwnerNamespace, ec2.TagOwnerName} {
		if _, ok := inst.Tags[k]; ok {
			t.Errorf("ownership tag %s is still on the retained instance", k)
		}
	}
	if inst.Tags["team"] != "platform" {
		t.Errorf("user tags should stay on a retained instance: %v", inst.Tags)
	}
}

func TestDeleteWhileStillPendingTerminatesTheInstance(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{sim: ec2sim.Config{PendingDuration: time.Hour}})
	h.create(h.instance("early"))
	id := h.waitRecorded("early")
	h.deleteObject("early")
	h.waitGone("early")
	if s := h.terminating(id); s != "" {
		t.Fatalf("pending instance is %s after deletion", s)
	}
}

func TestDeleteOfAnInstanceAlreadyGoneReleasesTheObjectAtOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("gone"))
	id := h.waitReady("gone").Status.InstanceID
	h.stopManager()
	if err := h.sim.TerminateInstance(id); err != nil {
		t.Fatal(err)
	}
	h.deleteObject("gone")
	h.startManager()
	h.waitGone("gone")
	if n := h.sim.Calls("TerminateInstances"); n != 0 {
		t.Errorf("TerminateInstances called %d times for an instance already terminated", n)
	}
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("a deleted object must not launch a replacement; RunInstances called %d times", n)
	}
}

func TestDeleteThatAWSRefusesKeepsTheFinalizerAndSaysWhy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("refused"))
	id := h.waitReady("refused").Status.InstanceID
	remove := h.sim.InjectFault(ec2sim.Fault{Operation: "TerminateInstances", Code: "UnauthorizedOperation", HTTPStatus: 403,
		Message: "You are not authorized to perform this operation."})

	m := h.mark("refused")
	h.deleteObject("refused")
	got := h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonAuthFailure)
	if !slices.Contains(got.Finalizers, computev1alpha1.Finalizer) || got.DeletionTimestamp.IsZero() {
		t.Fatalf("the object must wait, with its finalizer, while the instance cannot be terminated: %+v", got.ObjectMeta)
	}
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "UnauthorizedOperation") {
		t.Errorf("the condition does not say why: %q", c.Message)
	}
	if s := h.simInstance(id).State; s != "running" {
		t.Fatalf("instance is %s", s)
	}

	remove() // the permission is granted
	h.waitGone("refused")
	if s := h.terminating(id); s != "" {
		t.Fatalf("instance is %s after deletion", s)
	}
}
