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
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func TestRunInstanceLaunchesWithEveryOption(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	req := basicLaunch("full-0")
	req.KeyName = ec2sim.DefaultKeyName
	req.UserData = "#!/bin/sh\necho hello"
	req.IAMInstanceProfile = ec2sim.DefaultInstanceProfile
	req.RootVolume = &RootVolume{SizeGiB: 30, Type: "gp3"}
	req.MetadataOptions = MetadataOptions{HTTPTokens: "required", HTTPPutResponseHopLimit: 2, HTTPEndpoint: "enabled"}
	req.DetailedMonitoring = true
	req.DisableAPITermination = true
	req.AssociatePublicIPAddress = aws.Bool(true)
	req.SecurityGroupIDs = []string{ec2sim.DefaultSecurityGroupID, ec2sim.WebSecurityGroupID}

	inst, err := e.client.RunInstance(context.Background(), req)
	if err != nil {
		t.Fatalf("RunInstance: %v", err)
	}
	if inst.ID == "" || inst.ClientToken != "full-0" || inst.InstanceType != "t3.micro" || inst.SubnetID != ec2sim.DefaultSubnetIDs[0] {
		t.Errorf("instance = %+v", inst)
	}
	if inst.Tags[TagOwnerUID] != "uid-full-0" || inst.Tags["Name"] != "web" {
		t.Errorf("tags = %v", inst.Tags)
	}
	if inst.MetadataOptions.HTTPTokens != "required" || inst.MetadataOptions.HTTPPutResponseHopLimit != 2 {
		t.Errorf("metadata options = %+v", inst.MetadataOptions)
	}
	if !inst.DetailedMonitoring || inst.IAMInstanceProfileARN == "" || len(inst.SecurityGroupIDs) != 2 {
		t.Errorf("monitoring=%v profile=%q groups=%v", inst.DetailedMonitoring, inst.IAMInstanceProfileARN, inst.SecurityGroupIDs)
	}
	if inst.RootVolumeID == "" {
		t.Fatalf("no root volume reported: %+v", inst)
	}
	vol, ok := e.sim.Volume(inst.RootVolumeID)
	if !ok || vol.SizeGiB != 30 || vol.VolumeType != "gp3" {
		t.Errorf("root volume = %+v", vol)
	}
	if vol.Tags[TagOwnerUID] != "uid-full-0" {
		t.Errorf("volume tags = %v, want the launch tags", vol.Tags)
	}
	rec, _ := e.sim.Instance(inst.ID)
	if string(rec.UserData) != req.UserData || !rec.DisableAPITermination {
		t.Errorf("user data %q, protection %v", rec.UserData, rec.DisableAPITermination)
	}
	running := e.waitState(t, inst.ID, StateRunning)
	if running.PublicIP == "" {
		t.Errorf("no public IP although AssociatePublicIPAddress was set: %+v", running)
	}
}

func TestRunInstanceCachesTheImageRootDevice(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	for i := range 3 {
		req := basicLaunch(fmt.Sprintf("cache-%d", i))
		req.RootVolume = &RootVolume{SizeGiB: 16}
		if _, err := e.client.RunInstance(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.sim.Calls("DescribeImages"); n != 1 {
		t.Errorf("DescribeImages called %d times for one image, want 1", n)
	}
}

func TestRunInstanceResolvesSSMImagesWithTheDefaultRootDevice(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	req := basicLaunch("ssm-0")
	req.ImageID = "resolve:ssm:" + ec2sim.DefaultSSMParameter
	req.RootVolume = &RootVolume{SizeGiB: 12}
	inst, err := e.client.RunInstance(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if inst.ImageID != ec2sim.DefaultImageID {
		t.Errorf("image = %q, want the parameter's value", inst.ImageID)
	}
	if vol, _ := e.sim.Volume(inst.RootVolumeID); vol.SizeGiB != 12 {
		t.Errorf("root volume = %+v, want 12 GiB", vol)
	}
	if n := e.sim.Calls("DescribeImages"); n != 0 {
		t.Errorf("DescribeImages called %d times for an SSM image", n)
	}
}

func TestRunInstanceLaunchesSpotInstances(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	req := basicLaunch("spot-0")
	req.Spot = &SpotOptions{InterruptionBehavior: "stop"}
	inst, err := e.client.RunInstance(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !inst.Spot {
		t.Errorf("instance is not reported as Spot: %+v", inst)
	}
}

func TestRunInstanceWithTheSameTokenReturnsTheSameInstance(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	first := e.launch(t, "same-0")
	second := e.launch(t, "same-0")
	if first.ID != second.ID {
		t.Errorf("second launch created %s, want %s", second.ID, first.ID)
	}
	if n := len(e.sim.Instances()); n != 1 {
		t.Errorf("%d instances exist, want 1", n)
	}
}

func TestGetInstanceDescribesOneInstance(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1, PendingDuration: 20 * time.Millisecond}, Options{})
	inst := e.launch(t, "get-0")
	got, err := e.client.GetInstance(context.Background(), inst.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != inst.ID || got.PrivateIP == "" || got.AvailabilityZone == "" || got.VPCID == "" || got.LaunchTime.IsZero() {
		t.Errorf("instance = %+v", got)
	}
	running := e.waitState(t, inst.ID, StateRunning)
	if running.State != StateRunning {
		t.Errorf("state = %s", running.State)
	}
	_, err = e.client.GetInstance(context.Background(), "i-0000000000000dead")
	if !awserrors.IsNotFound(err) {
		t.Errorf("unknown ID: got %v, want NotFound", err)
	}
}

func TestFindInstances(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{PageSize: 5})
	var ids []string
	for i := range 12 {
		req := basicLaunch(fmt.Sprintf("find-%d", i))
		req.Tags = DesiredTags(nil, "team-a", "fleet", "uid-fleet", "cluster-1")
		inst, err := e.client.RunInstance(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, inst.ID)
	}
	other := e.launch(t, "other-0")

	tests := []struct {
		name      string
		filter    InstanceFilter
		wantIDs   []string
		wantPages int
	}{
		{"finds an instance by client token", InstanceFilter{ClientToken: "find-3"}, []string{ids[3]}, 1},
		{"finds nothing for an unknown token", InstanceFilter{ClientToken: "nope"}, nil, 1},
		{"finds every instance of an owner across pages", InstanceFilter{Tags: OwnershipTags("team-a", "fleet", "uid-fleet", "cluster-1")}, ids, 3},
		{"requires every tag to match", InstanceFilter{Tags: map[string]string{TagOwnerUID: "uid-fleet", TagOwnerName: "other"}}, nil, 1},
		{"combines token and tags", InstanceFilter{ClientToken: "other-0", Tags: map[string]string{TagOwnerUID: "uid-other-0"}}, []string{other.ID}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.sim.ResetCalls()
			got, err := e.client.FindInstances(context.Background(), tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			// Pages are told apart by their NextToken: a request the HTTP transport
			// sends twice (a reused connection that broke) is still one page.
			pages := map[string]bool{}
			for _, r := range e.sim.Requests() {
				if r.Operation == "DescribeInstances" {
					pages[r.Params.Get("NextToken")] = true
				}
			}
			if len(pages) != tt.wantPages {
				t.Errorf("read %d pages, want %d", len(pages), tt.wantPages)
			}
			gotIDs := map[string]bool{}
			for _, i := range got {
				gotIDs[i.ID] = true
			}
			if len(got) != len(tt.wantIDs) || len(gotIDs) != len(got) {
				t.Fatalf("got %d instances (%v), want %d", len(got), gotIDs, len(tt.wantIDs))
			}
			for _, id := range tt.wantIDs {
				if !gotIDs[id] {
					t.Errorf("missing %s", id)
				}
			}
		})
	}
}

func TestFindInstancesIncludesTerminatedInstances(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	inst := e.launch(t, "gone-0")
	if _, err := e.client.TerminateInstance(context.Background(), inst.ID); err != nil {
		t.Fatal(err)
	}
	e.waitState(t, inst.ID, StateTerminated)
	got, err := e.client.FindInstances(context.Background(), InstanceFilter{ClientToken: "gone-0"})
	if err != nil || len(got) != 1 || got[0].State != StateTerminated {
		t.Fatalf("got %+v, %v; want the terminated instance", got, err)
	}
}

func TestFindInstancesWithoutATokenOrTagsListsNothing(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	e.launch(t, "someone-else")
	got, err := e.client.FindInstances(context.Background(), InstanceFilter{})
	if err == nil || awserrors.KindOf(err) != awserrors.KindInvalidInput || len(got) != 0 {
		t.Errorf("an empty filter gave %d instances, error %v: it must not list the region", len(got), err)
	}
	if n := e.sim.Calls("DescribeInstances"); n != 0 {
		t.Errorf("%d DescribeInstances calls for an empty filter", n)
	}
}
