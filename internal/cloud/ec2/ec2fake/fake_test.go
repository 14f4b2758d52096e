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

package ec2fake_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/ec2fake"
)

func asError(err error, target **awserrors.Error) bool { return errors.As(err, target) }

func contains(list []string, s string) bool { return slices.Contains(list, s) }

func TestTheSameTokenReturnsTheSameInstance(t *testing.T) {
	ctx := context.Background()
	f := ec2fake.New()
	first, err := f.RunInstance(ctx, launchReq("tok-1"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.RunInstance(ctx, launchReq("tok-1"))
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID {
		t.Errorf("a repeated launch returned %s, want %s", again.ID, first.ID)
	}
	found, err := f.FindInstances(ctx, ec2.InstanceFilter{ClientToken: "tok-1"})
	if err != nil || len(found) != 1 {
		t.Errorf("FindInstances = %v, %v; want the one instance", found, err)
	}
	if n := f.Count("RunInstance"); n != 2 {
		t.Errorf("RunInstance was called %d times, want 2", n)
	}
}

// TestPowerCallsFollowEC2sStateRules checks each power call from each state: the new
// state, or the refusal EC2 answers.
func TestPowerCallsFollowEC2sStateRules(t *testing.T) {
	ctx := context.Background()
	start := func(f *ec2fake.Fake, id string) error { return f.StartInstance(ctx, id) }
	stop := func(f *ec2fake.Fake, id string) error { return f.StopInstance(ctx, id) }
	terminate := func(f *ec2fake.Fake, id string) error { _, err := f.TerminateInstance(ctx, id); return err }
	tests := []struct {
		name      string
		from      string
		call      func(*ec2fake.Fake, string) error
		wantState string
		wantCode  string
	}{
		{"starting a stopped instance", ec2.StateStopped, start, ec2.StatePending, ""},
		{"starting a running instance", ec2.StateRunning, start, ec2.StateRunning, ""},
		{"starting a stopping instance", ec2.StateStopping, start, ec2.StateStopping, "IncorrectInstanceState"},
		{"stopping a running instance", ec2.StateRunning, stop, ec2.StateStopping, ""},
		{"stopping a stopped instance", ec2.StateStopped, stop, ec2.StateStopped, ""},
		{"stopping a pending instance", ec2.StatePending, stop, ec2.StatePending, "IncorrectInstanceState"},
		{"terminating a running instance", ec2.StateRunning, terminate, ec2.StateShuttingDown, ""},
		{"terminating a terminated instance", ec2.StateTerminated, terminate, ec2.StateTerminated, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ec2fake.New()
			inst := mustLaunch(t, f, launchReq("power"), tt.from)
			err := tt.call(f, inst.ID)
			if awserrors.CodeOf(err) != tt.wantCode {
				t.Errorf("error %v, want code %q", err, tt.wantCode)
			}
			if got, _ := f.Instance(inst.ID); got.State != tt.wantState {
				t.Errorf("state %s, want %s", got.State, tt.wantState)
			}
		})
	}
}

func TestFailNextFailsOnlyTheNextCallAndChangesNothing(t *testing.T) {
	ctx := context.Background()
	f := ec2fake.New()
	inst := mustLaunch(t, f, launchReq("fail"), ec2.StateRunning)
	throttled := awserrors.NewError("StopInstances", "RequestLimitExceeded", "Request limit exceeded.")
	f.FailNext("StopInstance", throttled)
	if err := f.StopInstance(ctx, inst.ID); !errors.Is(err, throttled) || awserrors.KindOf(err) != awserrors.KindThrottled {
		t.Fatalf("first stop: %v, want the injected error", err)
	}
	if got, _ := f.Instance(inst.ID); got.State != ec2.StateRunning {
		t.Errorf("a failed stop changed the state to %s", got.State)
	}
	if err := f.StopInstance(ctx, inst.ID); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	if got, _ := f.Instance(inst.ID); got.State != ec2.StateStopping {
		t.Errorf("state %s after the second stop, want stopping", got.State)
	}
	if n := f.Count("StopInstance"); n != 2 {
		t.Errorf("StopInstance counted %d times, want 2 (failed calls count)", n)
	}
}

func TestTheCallLogLetsATestAssertThatNothingWasCalled(t *testing.T) {
	ctx := context.Background()
	f := ec2fake.New()
	inst := mustLaunch(t, f, launchReq("log"), ec2.StateRunning)
	f.ResetCalls()
	if len(f.Calls()) != 0 || f.Count("RunInstance") != 0 {
		t.Fatalf("calls after ResetCalls: %v", f.Calls())
	}
	f.ChangedElsewhere(inst.ID)
	if _, err := f.GetInstance(ctx, inst.ID); err != nil {
		t.Fatal(err)
	}
	want := []ec2fake.Call{{Op: "ChangedElsewhere", ID: inst.ID}, {Op: "GetInstance", ID: inst.ID}}
	if got := f.Calls(); !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
	if _, ok := f.Instance(inst.ID); !ok || len(f.Calls()) != 2 {
		t.Error("Instance, a test's own look, was logged as a call")
	}
}

// TestReleasingWhatIsGoneSucceeds covers the repeated cleanups the controller relies
// on: the real client turns EC2's NotFound into success for these.
func TestReleasingWhatIsGoneSucceeds(t *testing.T) {
	ctx := context.Background()
	f := ec2fake.New()
	for name, call := range map[string]func() error{
		"DeleteVolume":        func() error { return f.DeleteVolume(ctx, "vol-0000000000000dead") },
		"ReleaseAddress":      func() error { return f.ReleaseAddress(ctx, "eipalloc-0000000000000dead") },
		"DisassociateAddress": func() error { return f.DisassociateAddress(ctx, "eipassoc-0000000000000dead", "") },
		"CancelSpotRequest":   func() error { return f.CancelSpotRequest(ctx, "sir-00000000") },
	} {
		if err := call(); err != nil {
			t.Errorf("%s of something gone: %v", name, err)
		}
	}
}

func TestATerminationEndsLikeEC2s(t *testing.T) {
	ctx := context.Background()
	f := ec2fake.New()
	req := launchReq("end")
	req.Volumes = []ec2.VolumeRequest{{Device: "/dev/sdf", SizeGiB: 10}}
	inst := mustLaunch(t, f, req, ec2.StateRunning)
	addr, err := f.AllocateAddress(ctx, "", map[string]string{ec2.TagOwnerNamespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.AssociateAddress(ctx, addr.AllocationID, inst.ID, ""); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Instance(inst.ID); got.PublicIP != addr.PublicIP {
		t.Errorf("public IP %q, want the Elastic IP %q", got.PublicIP, addr.PublicIP)
	}
	if _, err := f.TerminateInstance(ctx, inst.ID); err != nil {
		t.Fatal(err)
	}
	f.Advance()
	got, _ := f.Instance(inst.ID)
	if got.State != ec2.StateTerminated {
		t.Errorf("state %s after Advance, want terminated", got.State)
	}
	if _, ok := f.Volume(inst.RootVolumeID); ok {
		t.Error("the root volume (delete on termination) survived")
	}
	data, ok := f.Volume(inst.VolumeIDs[1])
	if !ok || data.State != "available" {
		t.Errorf("the data volume: %+v, %v; want it kept, detached", data, ok)
	}
	if a, _ := f.Address(addr.AllocationID); a.AssociationID != "" {
		t.Errorf("the address is still associated: %+v", a)
	}
	if owned, _ := f.OwnedInstances(ctx, "default", ""); len(owned) != 0 {
		t.Errorf("OwnedInstances lists a terminated instance: %v", owned)
	}
	f.Forget(inst.ID)
	if _, err := f.GetInstance(ctx, inst.ID); !awserrors.IsNotFound(err) {
		t.Errorf("a forgotten instance: %v, want not found", err)
	}
}

func TestReturnedValuesDoNotAliasTheFakesState(t *testing.T) {
	ctx := context.Background()
	f := ec2fake.New()
	inst := mustLaunch(t, f, launchReq("alias"), ec2.StateRunning)
	inst.Tags["extra"] = "x"
	inst.SecurityGroupIDs[0] = "sg-changed"
	got, _ := f.GetInstance(ctx, inst.ID)
	if _, ok := got.Tags["extra"]; ok || got.SecurityGroupIDs[0] != ec2fake.DefaultSecurityGroupID {
		t.Errorf("a change to a returned instance reached the fake: %+v", got)
	}
}

func TestVolumesFollowEC2sRules(t *testing.T) {
	ctx := context.Background()
	f := ec2fake.New()
	inst := mustLaunch(t, f, launchReq("vols"), ec2.StateRunning)
	tags := map[string]string{ec2.TagDevice: "/dev/sdg"}
	req := ec2.VolumeRequest{Device: "/dev/sdg", SizeGiB: 20, Type: "gp3"}
	v, err := f.CreateVolume(ctx, ec2fake.DefaultZone, "vtok", req, tags)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := f.CreateVolume(ctx, ec2fake.DefaultZone, "vtok", req, tags); err != nil || again.ID != v.ID {
		t.Errorf("a repeated CreateVolume: %v, %v; want %s", again, err, v.ID)
	}
	if found, _ := f.FindVolumes(ctx, tags); len(found) != 1 || found[0].ID != v.ID {
		t.Errorf("FindVolumes = %v", found)
	}
	if err := f.AttachVolume(ctx, v.ID, inst.ID, "/dev/sdg"); err != nil {
		t.Fatal(err)
	}
	if err := f.AttachVolume(ctx, v.ID, inst.ID, "/dev/sdh"); awserrors.CodeOf(err) != "VolumeInUse" {
		t.Errorf("attaching an attached volume: %v, want VolumeInUse", err)
	}
	if err := f.DeleteVolume(ctx, v.ID); awserrors.KindOf(err) != awserrors.KindIncorrectState {
		t.Errorf("deleting an attached volume: %v, want an incorrect state", err)
	}
	if err := f.ResizeVolume(ctx, v.ID, 10); awserrors.KindOf(err) != awserrors.KindInvalidInput {
		t.Errorf("shrinking a volume: %v, want invalid input", err)
	}
	if err := f.DetachVolume(ctx, v.ID, inst.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.DeleteVolume(ctx, v.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.DescribeVolumes(ctx, []string{v.ID}); len(got) != 0 {
		t.Errorf("a deleted volume is still described: %v", got)
	}
}

func TestSettingsThatNeedAStoppedInstance(t *testing.T) {
	ctx := context.Background()
	f := ec2fake.New()
	inst := mustLaunch(t, f, launchReq("settings"), ec2.StateStopped)
	if err := f.ModifyInstanceType(ctx, inst.ID, "t3.large"); err != nil {
		t.Fatal(err)
	}
	if err := f.ModifyUserData(ctx, inst.ID, "#!/bin/sh"); err != nil {
		t.Fatal(err)
	}
	if err := f.ModifyTerminationProtection(ctx, inst.ID, true); err != nil {
		t.Fatal(err)
	}
	attrs, err := f.GetInstanceAttributes(ctx, inst.ID)
	if err != nil || !attrs.TerminationProtection || attrs.UserData != "#!/bin/sh" {
		t.Errorf("attributes %+v, %v", attrs, err)
	}
	if got, _ := f.Instance(inst.ID); got.InstanceType != "t3.large" {
		t.Errorf("type %s, want t3.large", got.InstanceType)
	}
	f.SetState(inst.ID, ec2.StateRunning)
	if err := f.SetCPUOptions(ctx, inst.ID, ec2.CPUOptions{CoreCount: 1}); awserrors.CodeOf(err) != "IncorrectInstanceState" {
		t.Errorf("CPU options of a running instance: %v, want IncorrectInstanceState", err)
	}
}

func TestSelectorsMatchLikeEC2sFilters(t *testing.T) {
	ctx := context.Background()
	f := ec2fake.New()
	f.AddSubnet(ec2.Subnet{ID: "subnet-0fake00000000002", VPCID: ec2fake.DefaultVPCID, AvailabilityZone: "us-east-1b",
		Tags: map[string]string{"tier": "private"}})
	f.AddSecurityGroup(ec2.SecurityGroup{ID: "sg-0fake000000000002", Name: "web", VPCID: ec2fake.DefaultVPCID},
		map[string]string{"role": "web"})
	tests := []struct {
		name string
		got  func() (int, error)
		want int
	}{
		{"subnets by a tag of any value", func() (int, error) {
			s, err := f.FindSubnets(ctx, ec2.SubnetQuery{Tags: map[string]string{"tier": ""}})
			return len(s), err
		}, 1},
		{"subnets by zone", func() (int, error) {
			s, err := f.FindSubnets(ctx, ec2.SubnetQuery{AvailabilityZone: ec2fake.DefaultZone})
			return len(s), err
		}, 1},
		{"groups by tag", func() (int, error) {
			g, err := f.FindSecurityGroups(ctx, ec2.SecurityGroupQuery{Tags: map[string]string{"role": "web"}})
			return len(g), err
		}, 1},
		{"groups by name in the VPC", func() (int, error) {
			g, err := f.FindSecurityGroups(ctx, ec2.SecurityGroupQuery{VPCID: ec2fake.DefaultVPCID, Names: []string{"default", "web"}})
			return len(g), err
		}, 2},
		{"images by name pattern and owner", func() (int, error) {
			i, err := f.FindImages(ctx, ec2.ImageQuery{Owners: []string{"amazon"}, Name: "al2023-*"})
			return len(i), err
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := tt.got()
			if err != nil || n != tt.want {
				t.Errorf("got %d, %v; want %d", n, err, tt.want)
			}
		})
	}
}

// Example shows a table test's typical use: seed, act, then assert on state and calls.
func Example() {
	ctx := context.Background()
	f := ec2fake.New()
	inst, _ := f.RunInstance(ctx, ec2.LaunchRequest{ClientToken: "t-1", ImageID: ec2fake.DefaultImageID, InstanceType: "t3.micro"})
	f.Advance() // pending -> running
	f.FailNext("TerminateInstance", awserrors.NewError("TerminateInstances", "RequestLimitExceeded", "slow down"))
	_, err := f.TerminateInstance(ctx, inst.ID)
	got, _ := f.Instance(inst.ID)
	fmt.Println(awserrors.KindOf(err) == awserrors.KindThrottled, got.State, f.Count("RunInstance"))
	// Output: true running 1
}

func TestFleetHintsAreLoggedAndTheLaunchDelayIsSet(t *testing.T) {
	f := ec2fake.New()
	if d := f.LaunchTurn("t", "ns"); d != 0 {
		t.Errorf("LaunchTurn = %v by default, want 0", d)
	}
	f.SetLaunchDelay(time.Second)
	if d := f.LaunchTurn("t", "ns"); d != time.Second {
		t.Errorf("LaunchTurn = %v, want the delay set", d)
	}
	f.ExpectLookups([]string{"i-1", "i-2"})
	if f.Count("LaunchTurn") != 2 || f.Count("ExpectLookups") != 1 {
		t.Errorf("calls %v", f.Calls())
	}
}
