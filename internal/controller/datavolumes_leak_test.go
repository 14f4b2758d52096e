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

// loseCreateVolumeAnswers makes every CreateVolume take effect in EC2 and then fail
// with an InternalError, as a call whose answer was lost looks to the operator, and
// returns the function that ends it.
func (h *harness) loseCreateVolumeAnswers() (restore func()) {
	return h.sim.InjectFault(ec2sim.Fault{Operation: "CreateVolume", Code: "InternalError", AfterEffect: true})
}

// waitUnrecordedVolumes waits until EC2 holds n data volumes while the object's status
// names none of them: each device of devices has its client token recorded, and no
// volume ID.
func (h *harness) waitUnrecordedVolumes(name string, n int, devices ...string) {
	h.t.Helper()
	h.eventually(h.timeout, func() string {
		if got := len(h.dataVolumes()); got != n {
			return fmt.Sprintf("%d data volumes in EC2, want %d", got, n)
		}
		obj := h.get(name)
		for _, dev := range devices {
			if e := volumeStatus(obj, dev); e == nil || e.ClientToken == "" || e.VolumeID != "" {
				return fmt.Sprintf("status of %s = %+v, want a client token and no volume ID", dev, e)
			}
		}
		return ""
	})
}

// createVolumeTokens lists the client tokens of the CreateVolume calls EC2 received,
// in order, once each.
func (h *harness) createVolumeTokens() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range h.sim.Requests() {
		if tok := r.Params.Get("ClientToken"); r.Operation == "CreateVolume" && !seen[tok] {
			seen[tok] = true
			out = append(out, tok)
		}
	}
	return out
}

// A volume whose CreateVolume answer was lost goes with its object as one status
// recorded would: deleted with the instance, or released (its ownership tags
// replaced by the released-from tag) when the spec keeps it (deleteOnTermination
// false) or the object is deleted with deletionPolicy Retain.
func TestAVolumeWhoseCreationAnswerWasLostDoesNotOutliveItsObject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		policy computev1alpha1.DeletionPolicy
		keep   bool
	}{
		{name: "Delete", policy: computev1alpha1.DeletionPolicyDelete},
		{name: "DeleteKeepingTheVolume", policy: computev1alpha1.DeletionPolicyDelete, keep: true},
		{name: "Retain", policy: computev1alpha1.DeletionPolicyRetain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkLostVolumeGoesWithTheObject(t, tc.policy, tc.keep)
		})
	}
}

func checkLostVolumeGoesWithTheObject(t *testing.T, policy computev1alpha1.DeletionPolicy, keep bool) {
	h := newHarness(t, harnessOptions{})
	obj := h.instance("lost")
	obj.Spec.DeletionPolicy = policy
	h.create(obj)
	id := h.waitReady("lost").Status.InstanceID

	// EC2 creates the volume, and the operator never hears of it.
	defer h.loseCreateVolumeAnswers()()
	h.update("lost", func(o *computev1alpha1.EC2Instance) {
		o.Spec.Volumes = []computev1alpha1.DataVolume{{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10), DeleteOnTermination: ptr.To(!keep)}}
	})
	h.waitUnrecordedVolumes("lost", 1, "/dev/sdf")

	h.deleteObject("lost")
	h.waitGone("lost")
	// The finalizer goes only once the volume is dealt with: no waiting here.
	vols := h.dataVolumes()
	released := keep || policy == computev1alpha1.DeletionPolicyRetain
	switch {
	case !released && len(vols) != 0:
		t.Errorf("the volume outlived the object: %+v", vols)
	case released && len(vols) != 1:
		t.Errorf("%d data volumes after the deletion, want the one created", len(vols))
	}
	for vid, v := range vols {
		if released && (v.Tags[ec2.TagOwnerUID] != "" || v.Tags[ec2.TagCluster] != "" || v.Tags[ec2.TagReleased] != id) {
			t.Errorf("volume %s keeps tags %v, want its ownership tags removed and released-from %s", vid, v.Tags, id)
		}
	}
	state := h.simInstance(id).State
	if terminated := state == ec2sim.StateShuttingDown || state == ec2sim.StateTerminated; terminated != (policy == computev1alpha1.DeletionPolicyDelete) {
		t.Errorf("instance %s is %s after a deletion with policy %s", id, state, policy)
	}
}

func TestASpecEditAfterALostCreateVolumeAnswerIsNotRefusedForEver(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("lostedit"))
	h.waitReady("lostedit")

	restore := h.loseCreateVolumeAnswers()
	h.update("lostedit", func(o *computev1alpha1.EC2Instance) {
		o.Spec.Volumes = []computev1alpha1.DataVolume{{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10)}}
	})
	h.waitUnrecordedVolumes("lostedit", 1, "/dev/sdf")
	// The user grows the volume before the operator tries again: the request it would
	// repeat is not the one EC2 carried out.
	h.stopManager()
	h.update("lostedit", func(o *computev1alpha1.EC2Instance) { o.Spec.Volumes[0].SizeGiB = ptr.To[int32](20) })
	restore()
	h.startManager()

	e := h.waitVolumeAttached("lostedit", "/dev/sdf")
	h.eventually(h.timeout, func() string {
		if v, _ := h.sim.Volume(e.VolumeID); v.SizeGiB != 20 {
			return fmt.Sprintf("volume %s has %d GiB, want the spec's 20", e.VolumeID, v.SizeGiB)
		}
		return ""
	})
	if n := len(h.dataVolumes()); n != 1 {
		t.Errorf("%d data volumes, want 1: the volume of the lost answer leaked", n)
	}
	for _, r := range h.sim.Requests() {
		if r.Operation == "CreateVolume" && r.ErrorCode == "IdempotentParameterMismatch" {
			t.Errorf("CreateVolume reused a client token with other parameters: %v", r.Params)
		}
	}
}

func TestAClientTokenEC2RefusedIsNotSentAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("spent"))
	h.waitReady("spent")

	defer h.sim.InjectFault(ec2sim.Fault{Operation: "CreateVolume", Code: "IdempotentParameterMismatch", Times: 1})()
	m := h.mark("spent")
	h.update("spent", func(o *computev1alpha1.EC2Instance) {
		o.Spec.Volumes = []computev1alpha1.DataVolume{{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10)}}
	})
	h.waitEventSince(m, computev1alpha1.ReasonIdempotencyConflict)
	h.waitVolumeAttached("spent", "/dev/sdf")
	if tokens := h.createVolumeTokens(); len(tokens) != 2 {
		t.Errorf("CreateVolume was sent with the client tokens %v, want a new one after the refused one", tokens)
	}
}

// checkFailedCreationIsReplaced adds a volume whose creation EC2 fails as how says,
// and checks that the operator reports it (Ready False with VolumeNotFound, and an
// event) and creates a new volume under a new client token, without a loop of calls.
func checkFailedCreationIsReplaced(t *testing.T, how ec2sim.VolumeFailure) {
	h := newHarness(t, harnessOptions{
		sim:   ec2sim.Config{VolumeCreateDuration: 300 * time.Millisecond},
		tweak: func(r *EC2InstanceReconciler) { r.VisibilityGracePeriod = time.Second },
	})
	h.create(h.instance("failvol"))
	h.waitReady("failvol")

	h.sim.FailNextVolumeCreation(how)
	m := h.mark("failvol")
	h.update("failvol", func(o *computev1alpha1.EC2Instance) {
		o.Spec.Volumes = []computev1alpha1.DataVolume{{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10)}}
	})
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonVolumeNotFound)
	note := h.waitEventSince(m, computev1alpha1.ReasonVolumeNotFound)
	e := h.waitVolumeAttached("failvol", "/dev/sdf")

	tokens := h.createVolumeTokens()
	if len(tokens) != 2 || e.ClientToken != tokens[1] {
		t.Errorf("CreateVolume client tokens %v, status %q: want a second volume under a new token", tokens, e.ClientToken)
	}
	if n := h.sim.Calls("CreateVolume"); n != 2 {
		t.Errorf("CreateVolume called %d times, want 2", n)
	}
	if vols := h.dataVolumes(); len(vols) != 1 {
		t.Errorf("%d data volumes, want only the new one: %+v", len(vols), vols)
	}
	t.Logf("reported: %s", note)
}

func TestAVolumeThatVanishesWhileCreatingIsReportedAndCreatedAgain(t *testing.T) {
	t.Parallel()
	checkFailedCreationIsReplaced(t, ec2sim.VolumeVanishes)
}

func TestAVolumeWhoseCreationEndsInErrorIsReportedDeletedAndCreatedAgain(t *testing.T) {
	t.Parallel()
	checkFailedCreationIsReplaced(t, ec2sim.VolumeErrors)
}
