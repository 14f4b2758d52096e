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

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// imdsTagsOK says what is wrong with an emulator instance that should expose its tags
// in instance metadata and carry the object's ownership tags in the IMDS-safe form.
func imdsTagsOK(inst ec2sim.InstanceRecord, uid string) string {
	if inst.MetadataOptions.InstanceMetadataTags != "enabled" {
		return "instanceMetadataTags is " + inst.MetadataOptions.InstanceMetadataTags
	}
	if got := inst.Tags[ec2.TagOwnerUIDSafe]; got != uid {
		return fmt.Sprintf("%s = %q, want %q (tags %v)", ec2.TagOwnerUIDSafe, got, uid, inst.Tags)
	}
	for _, k := range []string{ec2.TagOwnerNamespaceSafe, ec2.TagOwnerNameSafe, ec2.TagClusterSafe} {
		if inst.Tags[k] == "" {
			return "no " + k + " tag"
		}
	}
	for k := range inst.Tags {
		if strings.Contains(k, "/") {
			return "the instance still carries " + k
		}
	}
	return ""
}

// restartAndCheckManaged restarts the manager and checks that the object is still
// Ready on its instance, nothing was launched, and deleting it terminates the instance.
func restartAndCheckManaged(t *testing.T, h *harness, name, id string, runs int) {
	t.Helper()
	h.stopManager()
	h.startManager()
	h.update(name, func(o *computev1alpha1.EC2Instance) { o.Spec.Tags["after"] = "restart" }) // a pass through the watch
	h.eventually(h.timeout, func() string {
		if got := h.simInstance(id).Tags["after"]; got != "restart" {
			return "the restarted manager has not tagged its instance yet"
		}
		return ""
	})
	if got := h.get(name).Status.InstanceID; got != id {
		t.Fatalf("status.instanceId = %s after the restart, want %s", got, id)
	}
	if n := h.sim.CallCounts()["RunInstances"]; n != runs {
		t.Fatalf("RunInstances called %d times, want %d: the instance was relaunched", n, runs)
	}
	h.deleteObject(name)
	h.waitGone(name)
	if s := h.terminating(id); s != "" {
		t.Fatalf("instance %s is %s after the object was deleted", id, s)
	}
}

// An object that exposes its tags in instance metadata launches (EC2 refuses the
// slash in the usual ownership keys then) and reaches Ready, with the safe keys on the
// instance and the usual ones on its volume.
func TestAnInstanceExposingTagsInMetadataReachesReady(t *testing.T) {
	h := newHarness(t, harnessOptions{tweak: func(r *EC2InstanceReconciler) {
		r.ResyncPeriod, r.AttributeResyncPeriod = DefaultResyncPeriod, DefaultAttributeResyncPeriod
	}})
	obj := h.instance("imds")
	obj.Spec.MetadataOptions = &computev1alpha1.MetadataOptions{InstanceMetadataTags: "enabled"}
	h.create(obj)
	got := h.waitReady("imds")
	inst := h.simInstance(got.Status.InstanceID)
	if msg := imdsTagsOK(inst, string(got.UID)); msg != "" {
		t.Fatal(msg)
	}
	for _, v := range h.sim.Volumes() {
		if v.ID == inst.RootVolumeID && v.Tags[ec2.TagOwnerUID] != string(got.UID) {
			t.Fatalf("root volume tags %v, want the slash form of the owner tag", v.Tags)
		}
	}
	restartAndCheckManaged(t, h, "imds", inst.ID, 1)
}

// Turning tags in instance metadata on for a Ready object rewrites its instance's
// ownership tags in place, then enables the option: no relaunch, and the instance is
// still found and managed by a restarted manager.
func TestEnablingTagsInMetadataMigratesTheOwnershipTagsInPlace(t *testing.T) {
	h := newHarness(t, harnessOptions{tweak: func(r *EC2InstanceReconciler) {
		r.ResyncPeriod, r.AttributeResyncPeriod = DefaultResyncPeriod, DefaultAttributeResyncPeriod
	}})
	h.create(h.instance("migrate"))
	ready := h.waitReady("migrate")
	id := ready.Status.InstanceID
	if h.simInstance(id).Tags[ec2.TagOwnerUID] != string(ready.UID) {
		t.Fatalf("before the edit the instance carries %v", h.simInstance(id).Tags)
	}
	runs := h.sim.CallCounts()["RunInstances"]

	h.update("migrate", func(o *computev1alpha1.EC2Instance) {
		o.Spec.MetadataOptions = &computev1alpha1.MetadataOptions{InstanceMetadataTags: "enabled"}
	})
	h.eventually(h.timeout, func() string { return imdsTagsOK(h.simInstance(id), string(ready.UID)) })
	h.waitReady("migrate")
	if n := h.sim.CallCounts()["RunInstances"]; n != runs {
		t.Fatalf("RunInstances called %d times, want %d", n, runs)
	}
	h.waitEvent("migrate", "OwnershipTagsMigrated")
	restartAndCheckManaged(t, h, "migrate", id, runs)
}
