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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/converge"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func TestDriftMadeOutsideKubernetesIsCorrectedFieldByField(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	testCases := []struct {
		field string
		// change is made in EC2 behind the operator's back.
		change func(*ec2sim.InstanceRecord)
		// restored reports what still differs from the spec ("" once restored).
		restored func(ec2sim.InstanceRecord) string
		// keepsReady marks corrections made without leaving Ready (tags): there is no
		// transition to wait for, only the instance and the event to check.
		keepsReady bool
	}{
		{"securityGroupIds",
			func(i *ec2sim.InstanceRecord) { i.SecurityGroupIDs = []string{ec2sim.WebSecurityGroupID} },
			func(i ec2sim.InstanceRecord) string {
				return unless(slices.Equal(i.SecurityGroupIDs, []string{ec2sim.DefaultSecurityGroupID}), "groups %v", i.SecurityGroupIDs)
			}, false},
		{"metadataOptions",
			func(i *ec2sim.InstanceRecord) { i.MetadataOptions.HTTPTokens = "optional" },
			func(i ec2sim.InstanceRecord) string {
				return unless(i.MetadataOptions.HTTPTokens == "required", "httpTokens %s", i.MetadataOptions.HTTPTokens)
			}, false},
		{"monitoring",
			func(i *ec2sim.InstanceRecord) { i.Monitoring = true },
			func(i ec2sim.InstanceRecord) string { return unless(!i.Monitoring, "monitoring on") }, false},
		{"disableApiTermination",
			func(i *ec2sim.InstanceRecord) { i.DisableAPITermination = true },
			func(i ec2sim.InstanceRecord) string {
				return unless(!i.DisableAPITermination, "termination protection on")
			}, false},
		{"tags",
			func(i *ec2sim.InstanceRecord) {
				delete(i.Tags, "team")
				i.Tags["Name"] = "renamed"
				i.Tags["backup"] = "daily" // a foreign tag, which must survive
			},
			func(i ec2sim.InstanceRecord) string {
				return unless(i.Tags["team"] == "platform" && i.Tags["Name"] == i.Tags[ec2.TagOwnerName] && i.Tags["backup"] == "daily",
					"tags %v", i.Tags)
			}, true},
		{"instanceType",
			func(i *ec2sim.InstanceRecord) { i.InstanceType = "t3.small" },
			func(i ec2sim.InstanceRecord) string {
				return unless(i.InstanceType == "t3.micro" && i.State == "running", "%s %s", i.InstanceType, i.State)
			}, false},
	}
	for i, tc := range testCases {
		t.Run(tc.field, func(t *testing.T) {
			name := fmt.Sprintf("drift-%d", i)
			h.create(h.instance(name))
			id := h.waitReady(name).Status.InstanceID
			m := h.mark(name)
			if err := h.sim.ModifyInstance(id, tc.change); err != nil {
				t.Fatal(err)
			}
			h.eventually(h.timeout, func() string { return tc.restored(h.simInstance(id)) })
			note := h.waitEventSince(m, "DriftCorrected")
			if !strings.Contains(note, tc.field) {
				t.Errorf("event %q does not name %s", note, tc.field)
			}
			if tc.keepsReady {
				if c := findCondition(h.get(name), computev1alpha1.ConditionReady); c.Status != metav1.ConditionTrue {
					t.Errorf("correcting %s left Ready %s (%s)", tc.field, c.Status, c.Reason)
				}
				return
			}
			h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
		})
	}
}

func TestSpecChangesAreAppliedToTheRunningInstance(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.sim.AddInstanceProfile("app")
	obj := h.instance("edit")
	obj.Spec.RootVolume = &computev1alpha1.RootVolume{SizeGiB: ptr.To[int32](10)}
	h.create(obj)
	id := h.waitReady("edit").Status.InstanceID
	if err := h.sim.SetTags(id, map[string]string{"backup": "daily"}); err != nil {
		t.Fatal(err)
	}

	m := h.mark("edit")
	h.update("edit", func(o *computev1alpha1.EC2Instance) {
		o.Spec.Tags = map[string]string{"env": "prod"}
		o.Spec.SecurityGroupIDs = []string{ec2sim.WebSecurityGroupID}
		o.Spec.InstanceType = "t3.small"
		o.Spec.IAMInstanceProfile = "app"
		o.Spec.RootVolume.SizeGiB = ptr.To[int32](20)
		o.Spec.Monitoring = ptr.To(true)
		o.Spec.MetadataOptions = &computev1alpha1.MetadataOptions{HTTPPutResponseHopLimit: 3}
	})
	h.eventually(h.timeout, func() string {
		i := h.simInstance(id)
		vol, _ := h.sim.Volume(i.RootVolumeID)
		switch {
		case i.Tags["env"] != "prod" || i.Tags["team"] != "" || i.Tags["backup"] != "daily":
			return fmt.Sprintf("tags %v", i.Tags)
		case !slices.Equal(i.SecurityGroupIDs, []string{ec2sim.WebSecurityGroupID}):
			return fmt.Sprintf("groups %v", i.SecurityGroupIDs)
		case i.InstanceType != "t3.small" || i.State != "running":
			return "type " + i.InstanceType + " " + i.State
		case !strings.HasSuffix(i.IAMInstanceProfileARN, "/app"):
			return "profile " + i.IAMInstanceProfileARN
		case vol.SizeGiB != 20:
			return fmt.Sprintf("volume %d GiB", vol.SizeGiB)
		case !i.Monitoring || i.MetadataOptions.HopLimit != 3:
			return "monitoring or hop limit"
		}
		return ""
	})
	note := h.waitEventSince(m, computev1alpha1.ReasonStopping)
	if !strings.Contains(note, "instanceType") {
		t.Errorf("the stop for a type change should say why: %q", note)
	}
	got := h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
	if got.Status.InstanceType != "t3.small" || got.Status.InstanceID != id {
		t.Errorf("status %s %s, want the same instance as t3.small", got.Status.InstanceID, got.Status.InstanceType)
	}
}

func TestUserDataChangeWaitsForTheNextStop(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("boot")
	obj.Spec.UserData = "v1"
	h.create(obj)
	id := h.waitReady("boot").Status.InstanceID

	m := h.mark("boot")
	h.update("boot", func(o *computev1alpha1.EC2Instance) { o.Spec.UserData = "v2" })
	h.waitConditionSince(m, computev1alpha1.ConditionSynced, metav1.ConditionFalse, converge.ReasonUserDataPending)
	if i := h.simInstance(id); i.State != "running" || string(i.UserData) != "v1" {
		t.Fatalf("a user data change must not stop the instance: %s %q", i.State, i.UserData)
	}

	m = h.mark("boot")
	h.update("boot", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateStopped })
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonStopped)
	h.eventually(h.timeout, func() string {
		return unless(string(h.simInstance(id).UserData) == "v2", "user data %q", h.simInstance(id).UserData)
	})
	h.waitConditionSince(m, computev1alpha1.ConditionSynced, metav1.ConditionTrue, computev1alpha1.ReasonInSync)
}

func TestAdoptionTakesOverAFreeInstanceAndKeepsItsName(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	legacy := h.launchOutsideKubernetes("legacy-box", ec2sim.DefaultSubnetIDs[1])

	obj := h.instance("adopter")
	obj.Spec.InstanceID = legacy
	obj.Spec.SubnetID = ec2sim.DefaultSubnetIDs[0] // differs: reported, not fought
	h.create(obj)

	got := h.waitReady("adopter")
	if got.Status.InstanceID != legacy {
		t.Fatalf("adopted %s, want %s", got.Status.InstanceID, legacy)
	}
	i := h.simInstance(legacy)
	if i.Tags[ec2.TagOwnerUID] != string(got.UID) || i.Tags["Name"] != "legacy-box" || i.Tags["team"] != "platform" {
		t.Errorf("adopted instance tags %v", i.Tags)
	}
	h.waitEvent("adopter", "Adopted")
	synced := h.waitCondition("adopter", computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonImmutableFieldDiffer)
	if c := findCondition(synced, computev1alpha1.ConditionSynced); !strings.Contains(c.Message, "subnetId") {
		t.Errorf("Synced message does not name the differing field: %q", c.Message)
	}
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("adoption launched an instance: RunInstances called %d times", n)
	}
}

func TestAdoptionRefusesAnInstanceOwnedByAnotherObject(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("owner"))
	owner := h.waitReady("owner")

	thief := h.instance("thief")
	thief.Spec.InstanceID = owner.Status.InstanceID
	h.create(thief)
	got := h.waitCondition("thief", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonOwnedByAnother)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, h.ns+"/owner") {
		t.Errorf("message should name the owner: %q", c.Message)
	}
	if tags := h.simInstance(owner.Status.InstanceID).Tags; tags[ec2.TagOwnerUID] != string(owner.UID) {
		t.Errorf("ownership changed hands: %v", tags)
	}
	h.waitEvent("thief", computev1alpha1.ReasonOwnedByAnother)
}

// launchOutsideKubernetes launches an instance the way another tool would.
func (h *harness) launchOutsideKubernetes(name, subnet string) string {
	h.t.Helper()
	c, err := h.clients.ForRegion(context.Background(), ec2sim.DefaultRegion)
	if err != nil {
		h.t.Fatal(err)
	}
	inst, err := c.RunInstance(context.Background(), ec2.LaunchRequest{
		ClientToken: "legacy-" + name, ImageID: ec2sim.DefaultImageID, InstanceType: "t3.micro", SubnetID: subnet,
		Tags: map[string]string{"Name": name},
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return inst.ID
}

func findCondition(obj *computev1alpha1.EC2Instance, condType string) *metav1.Condition {
	for i := range obj.Status.Conditions {
		if obj.Status.Conditions[i].Type == condType {
			return &obj.Status.Conditions[i]
		}
	}
	return &metav1.Condition{}
}

// unless returns "" when ok, else the formatted description of what differs.
func unless(ok bool, format string, args ...any) string {
	if ok {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

func TestOneTagsCorrectionIsOneEventThatSaysAllItDid(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("retagged"))
	id := h.waitReady("retagged").Status.InstanceID
	// One edit sets a tag and removes another. The events recorder folds events with
	// the same reason on an unchanged object into a series that keeps the first note,
	// so the pass must say both in one event.
	m := h.mark("retagged")
	h.update("retagged", func(o *computev1alpha1.EC2Instance) { o.Spec.Tags = map[string]string{"wave": "two"} })
	h.eventually(h.timeout, func() string {
		tags := h.simInstance(id).Tags
		_, team := tags["team"]
		return unless(tags["wave"] == "two" && !team, "tags %v", tags)
	})
	note := h.waitEventSince(m, "DriftCorrected")
	if !strings.Contains(note, "set wave") || !strings.Contains(note, "removed team") {
		t.Errorf("the tags correction says %q, want both the tag set (wave) and the tag removed (team)", note)
	}
}
