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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// dataVolumes returns the emulator's volumes other than root volumes, by ID.
func (h *harness) dataVolumes() map[string]ec2sim.VolumeRecord {
	roots := map[string]bool{}
	for _, in := range h.sim.Instances() {
		roots[in.RootVolumeID] = true
	}
	out := map[string]ec2sim.VolumeRecord{}
	for _, v := range h.sim.Volumes() {
		if !roots[v.ID] {
			out[v.ID] = v
		}
	}
	return out
}

// volumeStatus returns the object's status entry for device, or nil.
func volumeStatus(obj *computev1alpha1.EC2Instance, device string) *computev1alpha1.VolumeStatus {
	for i := range obj.Status.Volumes {
		if obj.Status.Volumes[i].DeviceName == device {
			return &obj.Status.Volumes[i]
		}
	}
	return nil
}

// waitVolumeAttached waits until status reports the volume at device attached and the
// object Ready, and returns the entry.
func (h *harness) waitVolumeAttached(name, device string) computev1alpha1.VolumeStatus {
	h.t.Helper()
	var got computev1alpha1.VolumeStatus
	h.eventually(h.timeout, func() string {
		obj := h.get(name)
		e := volumeStatus(obj, device)
		ready := readyTrue(obj)
		if e == nil || e.VolumeID == "" || e.AttachmentState != "attached" || !ready {
			return fmt.Sprintf("%s: volume %s not attached and Ready: %+v, conditions %+v", name, device, obj.Status.Volumes, obj.Status.Conditions)
		}
		got = *e
		return ""
	})
	return got
}

func readyTrue(obj *computev1alpha1.EC2Instance) bool {
	for _, c := range obj.Status.Conditions {
		if c.Type == computev1alpha1.ConditionReady {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

func TestDataVolumesAreLaunchedWithTheInstanceTaggedAtLaunch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("vols")
	obj.Spec.Volumes = []computev1alpha1.DataVolume{
		{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](20), IOPS: ptr.To[int32](4000)},
		{DeviceName: "/dev/sdg", SizeGiB: ptr.To[int32](150), Type: "st1", DeleteOnTermination: ptr.To(false)},
	}
	h.create(obj)
	f := h.waitVolumeAttached("vols", "/dev/sdf")
	g := h.waitVolumeAttached("vols", "/dev/sdg")
	got := h.get("vols")

	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("RunInstances called %d times", n)
	}
	for _, op := range []string{"CreateVolume", "AttachVolume", "CreateTags"} {
		if n := h.sim.Calls(op); n != 0 {
			t.Errorf("%s called %d times: launch-time volumes are created, attached and tagged by RunInstances", op, n)
		}
	}
	if f.SizeGiB != 20 || f.Type != "gp3" || f.IOPS != 4000 || !f.DeleteOnTermination {
		t.Errorf("status of /dev/sdf = %+v", f)
	}
	if g.SizeGiB != 150 || g.Type != "st1" || g.DeleteOnTermination {
		t.Errorf("status of /dev/sdg = %+v", g)
	}
	for _, id := range []string{f.VolumeID, g.VolumeID} {
		v, ok := h.sim.Volume(id)
		if !ok || v.Tags[ec2.TagOwnerUID] != string(got.UID) || v.Tags["team"] != "platform" || v.Tags["Name"] != "vols" {
			t.Errorf("volume %s not tagged at launch: %+v", id, v.Tags)
		}
	}
	if got.Status.RootVolumeID == "" || got.Status.RootVolumeID == f.VolumeID {
		t.Errorf("rootVolumeId %q", got.Status.RootVolumeID)
	}
}

func TestVolumeAddedLaterIsCreatedInTheZoneTaggedAttachedAndGoesWithTheInstance(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("grow"))
	id := h.waitReady("grow").Status.InstanceID

	h.update("grow", func(o *computev1alpha1.EC2Instance) {
		o.Spec.Volumes = []computev1alpha1.DataVolume{{DeviceName: "/dev/sdh", SizeGiB: ptr.To[int32](50)}}
	})
	e := h.waitVolumeAttached("grow", "/dev/sdh")
	h.waitEvent("grow", "VolumeCreated")

	inst := h.simInstance(id)
	vol, ok := h.sim.Volume(e.VolumeID)
	if !ok || vol.AZ != inst.AZ || vol.SizeGiB != 50 || vol.Tags[ec2.TagOwnerUID] == "" || vol.Tags["team"] != "platform" {
		t.Fatalf("volume %+v, instance in %s", vol, inst.AZ)
	}
	if e.ClientToken == "" {
		t.Error("the CreateVolume client token is not recorded in status")
	}
	h.eventually(h.timeout, func() string {
		for _, bd := range h.simInstance(id).BlockDevices {
			if bd.VolumeID == e.VolumeID && bd.DeleteOnTermination {
				return ""
			}
		}
		return "the attached volume does not go with the instance (deleteOnTermination)"
	})
	if n := h.sim.Calls("CreateVolume"); n != 1 {
		t.Errorf("CreateVolume called %d times", n)
	}

	h.deleteObject("grow")
	h.waitGone("grow")
	h.eventually(h.timeout, func() string {
		if _, ok := h.sim.Volume(e.VolumeID); ok {
			return "the volume outlived its instance"
		}
		return ""
	})
}

func TestCrashBetweenCreateVolumeAndAttachVolumeAttachesTheSameVolumeOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("crashvol"))
	h.waitReady("crashvol")

	// EC2 creates the volume, but the operator dies before hearing about it.
	h.addVolumeAndCrashBeforeTheAnswer("crashvol")
	if n := len(h.dataVolumes()); n != 1 {
		t.Fatalf("%d data volumes after the lost answer, want 1", n)
	}
	if e := volumeStatus(h.get("crashvol"), "/dev/sdf"); e == nil || e.ClientToken == "" || e.VolumeID != "" {
		t.Fatalf("status before the restart = %+v, want the client token recorded and no volume ID", e)
	}

	h.startManager()
	e := h.waitVolumeAttached("crashvol", "/dev/sdf")
	vols := h.dataVolumes()
	if len(vols) != 1 {
		t.Fatalf("%d data volumes after the restart, want the one created before the crash", len(vols))
	}
	if _, ok := vols[e.VolumeID]; !ok {
		t.Errorf("status names %s, which is not the volume created before the crash", e.VolumeID)
	}
	if n := h.sim.Calls("AttachVolume"); n != 1 {
		t.Errorf("AttachVolume called %d times, want 1", n)
	}
}

func TestVolumeChangesAreAppliedInPlace(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("modify")
	obj.Spec.Volumes = []computev1alpha1.DataVolume{{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](20)}}
	h.create(obj)
	e := h.waitVolumeAttached("modify", "/dev/sdf")

	m := h.mark("modify")
	h.update("modify", func(o *computev1alpha1.EC2Instance) {
		o.Spec.Volumes[0].SizeGiB = ptr.To[int32](40)
		o.Spec.Volumes[0].Type = "io2"
		o.Spec.Volumes[0].IOPS = ptr.To[int32](8000)
	})
	h.waitEventSince(m, "DriftCorrected")
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, "")
	h.eventually(h.timeout, func() string {
		v, _ := h.sim.Volume(e.VolumeID)
		if v.SizeGiB != 40 || v.VolumeType != "io2" || v.IOPS != 8000 {
			return fmt.Sprintf("volume is %s %d GiB %d IOPS", v.VolumeType, v.SizeGiB, v.IOPS)
		}
		return ""
	})
	if got := volumeStatus(h.get("modify"), "/dev/sdf"); got.SizeGiB != 40 || got.Type != "io2" || got.IOPS != 8000 {
		t.Errorf("status = %+v", got)
	}
	if n := h.sim.Calls("ModifyVolume"); n != 1 {
		t.Errorf("ModifyVolume called %d times, want one call for all three changes", n)
	}
}

func TestRemovedVolumesAreDetachedThenDeletedOrReleased(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("shrink")
	obj.Spec.Volumes = []computev1alpha1.DataVolume{
		{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10)},
		{DeviceName: "/dev/sdg", SizeGiB: ptr.To[int32](10), DeleteOnTermination: ptr.To(false)},
	}
	h.create(obj)
	f := h.waitVolumeAttached("shrink", "/dev/sdf")
	g := h.waitVolumeAttached("shrink", "/dev/sdg")
	id := h.get("shrink").Status.InstanceID

	m := h.mark("shrink")
	h.update("shrink", func(o *computev1alpha1.EC2Instance) { o.Spec.Volumes = nil })
	h.eventually(h.timeout, func() string {
		if obj := h.get("shrink"); len(obj.Status.Volumes) > 0 || !readyTrue(obj) {
			return fmt.Sprintf("volumes still in status: %+v", obj.Status.Volumes)
		}
		return ""
	})
	h.waitEventSince(m, "VolumeReleased")
	if _, ok := h.sim.Volume(f.VolumeID); ok {
		t.Errorf("volume %s (deleteOnTermination true) was not deleted", f.VolumeID)
	}
	kept, ok := h.sim.Volume(g.VolumeID)
	if !ok || kept.State != "available" || kept.Tags[ec2.TagReleased] != id || kept.Tags[ec2.TagOwnerUID] != "" {
		t.Errorf("volume %s (deleteOnTermination false) = %+v, want available, released, without ownership tags", g.VolumeID, kept)
	}
	if n := len(h.simInstance(id).BlockDevices); n != 1 {
		t.Errorf("instance has %d block devices, want only its root", n)
	}
	if got := h.get("shrink").Status.VolumeRemovals; got != 2 {
		t.Errorf("volumeRemovals = %d, want 2", got)
	}
}

func TestDeletingTheObjectKeepsOnlyVolumesMarkedToKeep(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("bye")
	obj.Spec.Volumes = []computev1alpha1.DataVolume{
		{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10)},
		{DeviceName: "/dev/sdg", SizeGiB: ptr.To[int32](10), DeleteOnTermination: ptr.To(false)},
	}
	h.create(obj)
	f := h.waitVolumeAttached("bye", "/dev/sdf")
	g := h.waitVolumeAttached("bye", "/dev/sdg")
	id := h.get("bye").Status.InstanceID

	h.deleteObject("bye")
	h.waitGone("bye")
	h.eventually(h.timeout, func() string {
		if h.simInstance(id).State != ec2sim.StateTerminated {
			return "instance not terminated yet"
		}
		if _, ok := h.sim.Volume(f.VolumeID); ok {
			return "the volume to delete is still there"
		}
		return ""
	})
	kept, ok := h.sim.Volume(g.VolumeID)
	if !ok || kept.Tags[ec2.TagOwnerUID] != "" || kept.Tags[ec2.TagReleased] != id {
		t.Errorf("kept volume %+v, want it released (no ownership tags, released-from %s)", kept, id)
	}
}

func TestUnknownSnapshotIsReportedAndLaunchesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("nosnap")
	obj.Spec.Volumes = []computev1alpha1.DataVolume{{DeviceName: "/dev/sdf", SnapshotID: "snap-0123456789abcdef0"}}
	h.create(obj)
	got := h.waitCondition("nosnap", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonSnapshotNotFound)
	h.waitCondition("nosnap", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonSnapshotNotFound)
	h.waitEvent("nosnap", computev1alpha1.ReasonSnapshotNotFound)
	if n := len(h.liveInstances()); n != 0 {
		t.Errorf("%d instances launched", n)
	}
	if c := got.Status.Conditions; len(c) == 0 {
		t.Fatal("no conditions")
	}

	// The snapshot appears (shared from another account, say): fixing the cause and
	// asking again launches with it.
	h.sim.AddSnapshot("snap-0123456789abcdef0", 12)
	h.update("nosnap", func(o *computev1alpha1.EC2Instance) { o.Spec.Tags["retry"] = "1" })
	e := h.waitVolumeAttached("nosnap", "/dev/sdf")
	if e.SizeGiB != 12 {
		t.Errorf("volume from the snapshot has %d GiB, want the snapshot's 12", e.SizeGiB)
	}
}

func TestAVolumeWhoseCreationAnswerWasLostIsFoundWhenItLeavesTheSpec(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("lostvol"))
	h.waitReady("lostvol")

	// EC2 created the volume, the operator died before hearing of it, and the user
	// removed the volume from the spec meanwhile: its parameters are gone with it.
	h.addVolumeAndCrashBeforeTheAnswer("lostvol")
	h.update("lostvol", func(o *computev1alpha1.EC2Instance) { o.Spec.Volumes = nil })
	if n := len(h.dataVolumes()); n != 1 {
		t.Fatalf("%d data volumes after the lost answer", n)
	}

	h.startManager()
	h.eventually(h.timeout, func() string {
		if n := len(h.dataVolumes()); n != 0 {
			return fmt.Sprintf("%d data volumes left: the lost volume leaked", n)
		}
		if obj := h.get("lostvol"); len(obj.Status.Volumes) != 0 || !readyTrue(obj) {
			return fmt.Sprintf("status volumes %+v", obj.Status.Volumes)
		}
		return ""
	})
}

// addVolumeAndCrashBeforeTheAnswer adds a 10 GiB volume at /dev/sdf to the object and
// stops the manager while EC2's answer to the CreateVolume it sends is withheld: the
// volume exists in EC2, and the operator never heard of it.
func (h *harness) addVolumeAndCrashBeforeTheAnswer(name string) {
	h.t.Helper()
	gate := h.sim.BlockResponse("CreateVolume")
	h.update(name, func(o *computev1alpha1.EC2Instance) {
		o.Spec.Volumes = []computev1alpha1.DataVolume{{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10)}}
	})
	select {
	case <-gate.Arrived():
	case <-time.After(20 * time.Second):
		h.t.Fatal("CreateVolume never arrived")
	}
	h.stopManager()
	gate.Release()
}
