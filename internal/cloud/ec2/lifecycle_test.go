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

package ec2

import (
	"context"
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func TestStopStartTerminateAreSafeToRepeat(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	ctx := context.Background()
	inst := e.launch(t, "life-0")
	e.waitState(t, inst.ID, StateRunning)

	steps := []struct {
		name string
		call func() error
		want string
	}{
		{"stop a running instance", func() error { return e.client.StopInstance(ctx, inst.ID) }, StateStopped},
		{"stop a stopped instance again", func() error { return e.client.StopInstance(ctx, inst.ID) }, StateStopped},
		{"start a stopped instance", func() error { return e.client.StartInstance(ctx, inst.ID) }, StateRunning},
		{"start a running instance again", func() error { return e.client.StartInstance(ctx, inst.ID) }, StateRunning},
		{"terminate a running instance", func() error { _, err := e.client.TerminateInstance(ctx, inst.ID); return err }, StateTerminated},
		{"terminate a terminated instance again", func() error { _, err := e.client.TerminateInstance(ctx, inst.ID); return err }, StateTerminated},
	}
	for _, s := range steps {
		if err := s.call(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		e.waitState(t, inst.ID, s.want)
	}
}

func TestStoppingATerminatedInstanceFails(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	ctx := context.Background()
	inst := e.launch(t, "life-1")
	if _, err := e.client.TerminateInstance(ctx, inst.ID); err != nil {
		t.Fatal(err)
	}
	e.waitState(t, inst.ID, StateTerminated)
	if err := e.client.StopInstance(ctx, inst.ID); awserrors.KindOf(err) != awserrors.KindIncorrectState {
		t.Errorf("StopInstance on a terminated instance: %v, want IncorrectState", err)
	}
	if err := e.client.StartInstance(ctx, inst.ID); awserrors.KindOf(err) != awserrors.KindIncorrectState {
		t.Errorf("StartInstance on a terminated instance: %v, want IncorrectState", err)
	}
}

func TestModifyingAStoppedInstance(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	ctx := context.Background()
	inst := e.launch(t, "mod-0")
	e.waitState(t, inst.ID, StateRunning)
	if err := e.client.StopInstance(ctx, inst.ID); err != nil {
		t.Fatal(err)
	}
	e.waitState(t, inst.ID, StateStopped)

	const userData = "#cloud-config\nruncmd: [echo hi]\n"
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	must("ModifyInstanceType", e.client.ModifyInstanceType(ctx, inst.ID, "t3.small"))
	must("ModifyUserData", e.client.ModifyUserData(ctx, inst.ID, userData))
	must("ModifySecurityGroups", e.client.ModifySecurityGroups(ctx, inst.ID, []string{ec2sim.WebSecurityGroupID}))
	must("ModifyTerminationProtection", e.client.ModifyTerminationProtection(ctx, inst.ID, true))
	must("ModifyMetadataOptions", e.client.ModifyMetadataOptions(ctx, inst.ID,
		MetadataOptions{HTTPTokens: "required", HTTPPutResponseHopLimit: 3}))
	must("SetDetailedMonitoring", e.client.SetDetailedMonitoring(ctx, inst.ID, true))

	got, err := e.client.GetInstance(ctx, inst.ID)
	must("GetInstance", err)
	if got.InstanceType != "t3.small" || len(got.SecurityGroupIDs) != 1 || got.SecurityGroupIDs[0] != ec2sim.WebSecurityGroupID ||
		got.MetadataOptions.HTTPTokens != "required" || got.MetadataOptions.HTTPPutResponseHopLimit != 3 || !got.DetailedMonitoring {
		t.Errorf("instance after modification = %+v", got)
	}
	attrs, err := e.client.GetInstanceAttributes(ctx, inst.ID)
	must("GetInstanceAttributes", err)
	if !attrs.TerminationProtection || attrs.UserData != userData {
		t.Errorf("attributes = %+v", attrs)
	}
	if rec, _ := e.sim.Instance(inst.ID); string(rec.UserData) != userData {
		t.Errorf("EC2 stored user data %q, want it encoded exactly once", rec.UserData)
	}

	must("SetDetailedMonitoring off", e.client.SetDetailedMonitoring(ctx, inst.ID, false))
	must("ModifyTerminationProtection off", e.client.ModifyTerminationProtection(ctx, inst.ID, false))
	attrs, err = e.client.GetInstanceAttributes(ctx, inst.ID)
	must("GetInstanceAttributes", err)
	if attrs.TerminationProtection {
		t.Error("termination protection still on")
	}
	if got, _ := e.client.GetInstance(ctx, inst.ID); got.DetailedMonitoring {
		t.Error("detailed monitoring still on")
	}
}

func TestSetIAMInstanceProfile(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	e.sim.AddInstanceProfile("second")
	ctx := context.Background()
	inst := e.launch(t, "iam-0")
	e.waitState(t, inst.ID, StateRunning)

	steps := []struct {
		name       string
		profile    string
		wantSuffix string
	}{
		{"associates a profile by name", ec2sim.DefaultInstanceProfile, "/" + ec2sim.DefaultInstanceProfile},
		{"does nothing when the profile is already associated", ec2sim.DefaultInstanceProfile, "/" + ec2sim.DefaultInstanceProfile},
		{"replaces the association with another profile", "second", "/second"},
		{"accepts an ARN", "arn:aws:iam::" + ec2sim.DefaultAccountID + ":instance-profile/" + ec2sim.DefaultInstanceProfile, "/" + ec2sim.DefaultInstanceProfile},
		{"removes the association", "", ""},
		{"does nothing when there is no association to remove", "", ""},
	}
	for _, s := range steps {
		if err := e.client.SetIAMInstanceProfile(ctx, inst.ID, s.profile); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		rec, _ := e.sim.Instance(inst.ID)
		arn := rec.IAMInstanceProfileARN
		if s.wantSuffix == "" && arn != "" || s.wantSuffix != "" && !profileMatches(arn, s.wantSuffix[1:]) {
			t.Errorf("%s: associated profile %q", s.name, arn)
		}
	}
	if n := e.sim.Calls("AssociateIamInstanceProfile"); n != 1 {
		t.Errorf("AssociateIamInstanceProfile called %d times, want 1", n)
	}
}

func TestVolumes(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	ctx := context.Background()
	inst := e.launch(t, "vol-0")
	if inst.RootVolumeID == "" {
		t.Fatalf("no root volume: %+v", inst)
	}
	size, err := e.client.GetVolumeSize(ctx, inst.RootVolumeID)
	if err != nil || size != 8 {
		t.Fatalf("GetVolumeSize = %d, %v; want the image's 8 GiB", size, err)
	}
	if err := e.client.ResizeVolume(ctx, inst.RootVolumeID, 20); err != nil {
		t.Fatal(err)
	}
	if size, _ := e.client.GetVolumeSize(ctx, inst.RootVolumeID); size != 20 {
		t.Errorf("size after resize = %d", size)
	}
	if err := e.client.ResizeVolume(ctx, inst.RootVolumeID, 20); err != nil {
		t.Errorf("resizing to the current size: %v", err)
	}
	if n := e.sim.Calls("ModifyVolume"); n != 1 {
		t.Errorf("ModifyVolume called %d times, want 1", n)
	}
	if err := e.client.ResizeVolume(ctx, inst.RootVolumeID, 10); awserrors.KindOf(err) != awserrors.KindInvalidInput {
		t.Errorf("shrinking: %v, want InvalidInput", err)
	}
	if _, err := e.client.GetVolumeSize(ctx, "vol-0000000000000dead"); !awserrors.IsNotFound(err) {
		t.Errorf("unknown volume: %v, want NotFound", err)
	}
}

func TestCreateAndDeleteTags(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	ctx := context.Background()
	inst := e.launch(t, "tag-0")
	if err := e.client.CreateTags(ctx, []string{inst.ID}, map[string]string{"a": "1", "b": "2", "foreign": "x"}); err != nil {
		t.Fatal(err)
	}
	if err := e.client.DeleteTags(ctx, []string{inst.ID}, []string{"a", "missing"}); err != nil {
		t.Fatal(err)
	}
	rec, _ := e.sim.Instance(inst.ID)
	if _, ok := rec.Tags["a"]; ok || rec.Tags["b"] != "2" || rec.Tags["foreign"] != "x" || rec.Tags[TagOwnerUID] == "" {
		t.Errorf("tags = %v", rec.Tags)
	}
	before := e.sim.Calls("DeleteTags")
	if err := e.client.DeleteTags(ctx, []string{inst.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if e.sim.Calls("DeleteTags") != before {
		t.Error("DeleteTags with no keys reached EC2, where it would delete every tag")
	}
}
