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
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/converge"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// publishImage adds an Amazon-owned image to the emulator.
func (h *harness) publishImage(id, name, arch string, created time.Time) {
	h.t.Helper()
	if err := h.sim.AddImageWith(ec2sim.ImageSpec{ID: id, Name: name, Architecture: arch, OwnerID: "137112412989", OwnerAlias: "amazon",
		CreationDate: created, RootDeviceName: "/dev/xvda", RootSizeGiB: 8, ImdsSupport: "v2.0"}); err != nil {
		h.t.Fatal(err)
	}
}

func TestImageSelectorLaunchesTheNewestMatchingImageAndKeepsIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h.publishImage("ami-0000000000000a001", "al2023-ami-2026.1-x86_64", "x86_64", day)
	h.publishImage("ami-0000000000000a002", "al2023-ami-2026.2-x86_64", "x86_64", day.AddDate(0, 1, 0))
	h.publishImage("ami-0000000000000a003", "al2023-ami-2026.3-arm64", "arm64", day.AddDate(0, 2, 0))
	obj := h.instance("selected")
	obj.Spec.ImageID = ""
	obj.Spec.ImageSelector = &computev1alpha1.ImageSelector{Owners: []string{"amazon"}, Name: "al2023-ami-*", Architecture: "x86_64"}
	h.create(obj)
	got := h.waitReady("selected")
	if got.Status.ImageID != "ami-0000000000000a002" || got.Status.ImageName != "al2023-ami-2026.2-x86_64" ||
		h.simInstance(got.Status.InstanceID).ImageID != "ami-0000000000000a002" {
		t.Fatalf("launched %s (%s), want the newest x86_64 image ami-0000000000000a002", got.Status.ImageID, got.Status.ImageName)
	}

	// A newer image is published: the running instance stays on the one it has.
	h.publishImage("ami-0000000000000a004", "al2023-ami-2026.4-x86_64", "x86_64", day.AddDate(0, 3, 0))
	m := h.mark("selected")
	h.update("selected", func(o *computev1alpha1.EC2Instance) { o.Spec.Tags["touch"] = "1" })
	h.waitEventSince(m, "DriftCorrected")
	if st := h.get("selected").Status; st.ImageID != "ami-0000000000000a002" || h.sim.Calls("RunInstances") != 1 {
		t.Errorf("image %s after a newer one was published (%d launches)", st.ImageID, h.sim.Calls("RunInstances"))
	}
}

func TestImagesThatCannotRunAreRefusedBeforeLaunch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	none := h.instance("noimage")
	none.Spec.ImageID = ""
	none.Spec.ImageSelector = &computev1alpha1.ImageSelector{Owners: []string{"amazon"}, Name: "does-not-exist-*"}
	h.create(none)
	got := h.waitCondition("noimage", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonImageNotFound)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "does-not-exist-*") {
		t.Errorf("Ready = %+v, want the selector named", c)
	}

	arm := h.instance("wrongarch")
	arm.Spec.ImageID = ec2sim.ArmImageID // arm64, and t3.micro is x86_64
	h.create(arm)
	got = h.waitCondition("wrongarch", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonArchitectureMismatch)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "arm64") || !strings.Contains(c.Message, "t3.micro") {
		t.Errorf("Ready = %+v, want the architectures named", c)
	}
	h.waitEvent("wrongarch", computev1alpha1.ReasonArchitectureMismatch)
	if n := h.sim.Calls("RunInstances"); n != 0 {
		t.Errorf("RunInstances called %d times", n)
	}
	// Instance types and images are described once each, whatever the retries.
	if n := h.sim.Calls("DescribeInstanceTypes"); n != 1 {
		t.Errorf("DescribeInstanceTypes called %d times, want 1 (cached)", n)
	}
}

func TestHibernationStopsWithHibernateAndStartsAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("sleepy")
	obj.Spec.InstanceType = "m5.large"
	obj.Spec.RootVolume = &computev1alpha1.RootVolume{SizeGiB: ptr.To[int32](20), Encrypted: ptr.To(true)}
	obj.Spec.Hibernation = ptr.To(true)
	h.create(obj)
	id := h.waitReady("sleepy").Status.InstanceID
	if !h.simInstance(id).HibernationConfigured {
		t.Fatal("the instance was not launched for hibernation")
	}

	m := h.mark("sleepy")
	h.update("sleepy", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateHibernated })
	got := h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonHibernated)
	inst := h.simInstance(id)
	if inst.State != "stopped" || inst.StateReasonCode != "Client.UserInitiatedHibernate" {
		t.Errorf("instance %s with reason %s, want stopped by hibernation", inst.State, inst.StateReasonCode)
	}
	if got.Status.State != "stopped" || !strings.Contains(got.Status.StateReason, "hibernate") {
		t.Errorf("status %s / %q, want stopped with the hibernation reason", got.Status.State, got.Status.StateReason)
	}

	m = h.mark("sleepy")
	h.update("sleepy", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateRunning })
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
}

func TestHibernationAndCPUOptionsTheTypeCannotHonourAreRefusedBeforeLaunch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	small := h.instance("smallroot")
	small.Spec.InstanceType = "r6i.large" // 16 GiB of memory
	small.Spec.RootVolume = &computev1alpha1.RootVolume{SizeGiB: ptr.To[int32](10), Encrypted: ptr.To(true)}
	small.Spec.Hibernation = ptr.To(true)
	h.create(small)
	got := h.waitCondition("smallroot", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonInvalidSpec)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "spec.rootVolume.sizeGiB") {
		t.Errorf("Ready = %+v, want the field named", c)
	}

	cores := h.instance("cores")
	cores.Spec.InstanceType = "m5.large"
	cores.Spec.CPUOptions = &computev1alpha1.CPUOptions{CoreCount: ptr.To[int32](4), ThreadsPerCore: ptr.To[int32](1)}
	h.create(cores)
	got = h.waitCondition("cores", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonInvalidSpec)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "spec.cpuOptions.coreCount") {
		t.Errorf("Ready = %+v, want the field named", c)
	}
	if n := h.sim.Calls("RunInstances"); n != 0 {
		t.Errorf("RunInstances called %d times", n)
	}

	// A valid choice (cpuOptions is immutable: a new object) launches with it.
	valid := h.instance("cores-ok")
	valid.Spec.InstanceType = "m5.large"
	valid.Spec.CPUOptions = &computev1alpha1.CPUOptions{CoreCount: ptr.To[int32](1), ThreadsPerCore: ptr.To[int32](1)}
	h.create(valid)
	inst := h.simInstance(h.waitReady("cores-ok").Status.InstanceID)
	if inst.CoreCount != 1 || inst.ThreadsPerCore != 1 {
		t.Errorf("CPU options %d cores x %d threads, want 1 x 1", inst.CoreCount, inst.ThreadsPerCore)
	}

	// Another thread count: EC2 changes CPU options of a stopped instance only, so
	// the change waits for the next stop.
	m := h.mark("cores-ok")
	h.update("cores-ok", func(o *computev1alpha1.EC2Instance) { o.Spec.CPUOptions.ThreadsPerCore = ptr.To[int32](2) })
	h.waitConditionSince(m, computev1alpha1.ConditionSynced, metav1.ConditionFalse, converge.ReasonPendingStop)
	h.update("cores-ok", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateStopped })
	h.eventually(h.timeout, func() string {
		if r := h.simInstance(inst.ID); r.ThreadsPerCore != 2 || r.State != "stopped" {
			return fmt.Sprintf("instance %s with %d threads per core", r.State, r.ThreadsPerCore)
		}
		return ""
	})
}

func TestLifecycleOptionsAtLaunchAndTheirDrift(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("options")
	obj.Spec.DisableAPIStop = ptr.To(true)
	obj.Spec.InstanceInitiatedShutdownBehavior = "terminate"
	obj.Spec.MaintenanceOptions = &computev1alpha1.MaintenanceOptions{AutoRecovery: "disabled"}
	obj.Spec.PrivateDNSNameOptions = &computev1alpha1.PrivateDNSNameOptions{HostnameType: "resource-name", EnableResourceNameDNSARecord: true}
	obj.Spec.CreditSpecification = &computev1alpha1.CreditSpecification{CPUCredits: "standard"}
	obj.Spec.MetadataOptions = &computev1alpha1.MetadataOptions{InstanceMetadataTags: "enabled", HTTPProtocolIPv6: "enabled"}
	h.create(obj)
	got := h.waitReady("options")
	inst := h.simInstance(got.Status.InstanceID)
	o := inst.InstanceOptions
	if !o.DisableAPIStop || o.ShutdownBehavior != "terminate" || o.AutoRecovery != "disabled" || o.HostnameType != "resource-name" ||
		!o.ResourceNameDNSA || o.CPUCredits != "standard" || inst.MetadataOptions.InstanceMetadataTags != "enabled" || inst.MetadataOptions.HTTPProtocolIPv6 != "enabled" {
		t.Fatalf("launched with %+v, metadata %+v", o, inst.MetadataOptions)
	}
	if !strings.HasPrefix(got.Status.PrivateDNSName, inst.ID) {
		t.Errorf("private DNS name %q, want the resource name", got.Status.PrivateDNSName)
	}

	// Changed in place: the credit option, without a stop.
	m := h.mark("options")
	h.update("options", func(o *computev1alpha1.EC2Instance) { o.Spec.CreditSpecification.CPUCredits = "unlimited" })
	note := h.waitEventSince(m, "DriftCorrected")
	if !strings.Contains(note, "cpuCredits") {
		t.Errorf("event %q", note)
	}
	h.eventually(h.timeout, func() string {
		if c := h.simInstance(inst.ID).CPUCredits; c != "unlimited" {
			return "credits " + c
		}
		return ""
	})
	if n := h.sim.Calls("StopInstances"); n != 0 {
		t.Errorf("StopInstances called %d times for an in-place change", n)
	}

	// Stop protection turned off outside Kubernetes: turned on again.
	m = h.mark("options")
	if err := h.ec2Client().SetStopProtection(context.Background(), inst.ID, false); err != nil {
		t.Fatal(err)
	}
	note = h.waitEventSince(m, "DriftCorrected")
	if !strings.Contains(note, "disableApiStop") {
		t.Errorf("event %q", note)
	}

	// The hostname type changes only while stopped: it waits for the next stop.
	m = h.mark("options")
	h.update("options", func(o *computev1alpha1.EC2Instance) { o.Spec.PrivateDNSNameOptions.HostnameType = "ip-name" })
	h.waitConditionSince(m, computev1alpha1.ConditionSynced, metav1.ConditionFalse, converge.ReasonPendingStop)
}

func TestShutdownFromInsideWithTerminateIsReplacedLikeAnOutsideTermination(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("halt")
	obj.Spec.InstanceInitiatedShutdownBehavior = "terminate"
	h.create(obj)
	first := h.waitReady("halt").Status.InstanceID
	m := h.mark("halt")
	if err := h.sim.ShutdownFromOS(first); err != nil {
		t.Fatal(err)
	}
	note := h.waitEventSince(m, computev1alpha1.ReasonTerminatedOutOfBand)
	if !strings.Contains(note, "Instance initiated shutdown") {
		t.Errorf("event %q, want EC2's state reason", note)
	}
	h.eventually(h.timeout, func() string {
		st := h.get("halt").Status
		if st.InstanceID == "" || st.InstanceID == first || st.Recreations != 1 || st.State != "running" {
			return "not replaced yet"
		}
		return ""
	})
}

func TestCapacityReservationAndPlacementAtLaunchAndReservationChangeAtTheNextStop(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.sim.AddCapacityReservation("cr-0000000000000a001", "t3.micro", "us-east-1a", 2, "targeted", nil)
	h.sim.AddPlacementGroup("analytics", "partition", 3)
	obj := h.instance("reserved")
	obj.Spec.CapacityReservation = &computev1alpha1.CapacityReservation{Target: &computev1alpha1.CapacityReservationTarget{CapacityReservationID: "cr-0000000000000a001"}}
	obj.Spec.Placement = &computev1alpha1.Placement{GroupName: "analytics", PartitionNumber: ptr.To[int32](2)}
	h.create(obj)
	inst := h.simInstance(h.waitReady("reserved").Status.InstanceID)
	if inst.CapacityReservation.ReservationID != "cr-0000000000000a001" || inst.Placement.GroupName != "analytics" || inst.Placement.PartitionNumber != 2 {
		t.Fatalf("reservation %+v, placement %+v", inst.CapacityReservation, inst.Placement)
	}

	m := h.mark("reserved")
	h.update("reserved", func(o *computev1alpha1.EC2Instance) {
		o.Spec.CapacityReservation = &computev1alpha1.CapacityReservation{Preference: "none"}
	})
	h.waitConditionSince(m, computev1alpha1.ConditionSynced, metav1.ConditionFalse, converge.ReasonPendingStop)
	h.update("reserved", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateStopped })
	h.eventually(h.timeout, func() string {
		r := h.simInstance(inst.ID).CapacityReservation
		if r.Preference != "none" || r.TargetID != "" {
			return "reservation still " + r.TargetID + r.Preference
		}
		return ""
	})

	// Another partition: EC2 moves a stopped instance, which it is now.
	h.update("reserved", func(o *computev1alpha1.EC2Instance) { o.Spec.Placement.PartitionNumber = ptr.To[int32](3) })
	h.eventually(h.timeout, func() string {
		if p := h.simInstance(inst.ID).Placement; p.PartitionNumber != 3 || p.GroupName != "analytics" {
			return "placement still " + p.GroupName
		}
		return ""
	})

	unknown := h.instance("nogroup")
	unknown.Spec.Placement = &computev1alpha1.Placement{GroupName: "nowhere"}
	h.create(unknown)
	got := h.waitCondition("nogroup", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonInvalidSpec)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "InvalidPlacementGroup.Unknown") {
		t.Errorf("Ready = %+v, want AWS's code", c)
	}
}

func TestAFullCapacityReservationIsRetriedAsCapacityWithoutLaunchingTwice(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.sim.AddCapacityReservation("cr-0000000000000b001", "t3.micro", "us-east-1a", 1, "targeted", nil)
	target := &computev1alpha1.CapacityReservation{Target: &computev1alpha1.CapacityReservationTarget{CapacityReservationID: "cr-0000000000000b001"}}
	first := h.instance("first")
	first.Spec.CapacityReservation = target
	h.create(first)
	h.waitReady("first")

	second := h.instance("second")
	second.Spec.CapacityReservation = target.DeepCopy()
	h.create(second)
	got := h.waitCondition("second", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonInsufficientCapacity)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "ReservationCapacityExceeded") {
		t.Errorf("Ready = %+v, want AWS's code", c)
	}
	h.waitEvent("second", computev1alpha1.ReasonInsufficientCapacity)
	if c := findCondition(got, computev1alpha1.ConditionStalled); c.Status == metav1.ConditionTrue {
		t.Error("a full reservation stalled the object: capacity frees up, so it must be retried")
	}

	// The first instance stops: its slot frees up and the second launches, once.
	h.update("first", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateStopped })
	h.waitReady("second")
	if n := len(h.liveInstances()); n != 2 {
		t.Errorf("%d live instances, want 2", n)
	}
}

func TestATypeChangeThatStopProtectionRefusesIsReportedNotRetriedHot(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("protected")
	obj.Spec.DisableAPIStop = ptr.To(true)
	h.create(obj)
	id := h.waitReady("protected").Status.InstanceID
	m := h.mark("protected")
	h.update("protected", func(o *computev1alpha1.EC2Instance) { o.Spec.InstanceType = "t3.small" })
	got := h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonUpdateFailed)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "OperationNotPermitted") || !strings.Contains(c.Message, "disableApiStop") {
		t.Errorf("Ready = %+v, want EC2's refusal naming disableApiStop", c)
	}
	h.waitEventSince(m, computev1alpha1.ReasonUpdateFailed)
	if inst := h.simInstance(id); inst.State != "running" || inst.InstanceType != "t3.micro" {
		t.Errorf("instance %s %s, want it left running as it was", inst.State, inst.InstanceType)
	}
}
