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
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// These tests drive the image, instance-type and lifecycle-option calls through the
// SDK against the emulator.

func TestFindImagesReturnsTheNewestFirstAndDescribeImageIsRemembered(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range []string{"app-1.0-x86_64", "app-1.1-x86_64", "app-1.2-arm64"} {
		arch := "x86_64"
		if i == 2 {
			arch = "arm64"
		}
		if err := e.sim.AddImageWith(ec2sim.ImageSpec{ID: "ami-000000000000000a" + string(rune('1'+i)), Name: name, Architecture: arch,
			OwnerID: "111122223333", CreationDate: day.AddDate(0, i, 0), RootDeviceName: "/dev/xvda", RootSizeGiB: 8,
			Tags: map[string]string{"channel": "stable"}}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	found, err := e.client.FindImages(ctx, ImageQuery{Owners: []string{"111122223333"}, Name: "app-*", Architecture: "x86_64", Tags: map[string]string{"channel": "stable"}})
	if err != nil || len(found) != 2 || found[0].Name != "app-1.1-x86_64" || !found[0].CreationDate.After(found[1].CreationDate) {
		t.Fatalf("FindImages = %+v, %v; want the two x86_64 images, newest first", found, err)
	}
	for range 3 {
		img, err := e.client.DescribeImage(ctx, found[0].ID)
		if err != nil || img.Architecture != "x86_64" || img.RootDeviceName != "/dev/xvda" {
			t.Fatalf("DescribeImage = %+v, %v", img, err)
		}
	}
	if n := e.sim.Calls("DescribeImages"); n != 2 {
		t.Errorf("%d DescribeImages calls, want 2 (one query, one image described once)", n)
	}
	if _, err := e.client.DescribeImage(ctx, "ami-0000000000000dead"); awserrors.CodeOf(err) != "InvalidAMIID.NotFound" {
		t.Errorf("an unknown image: %v", err)
	}
}

func TestInstanceTypeIsDescribedOnceWithWhatLaunchChecksNeed(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	ctx := context.Background()
	for range 3 {
		info, err := e.client.InstanceType(ctx, "m5.large")
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Architectures) == 0 || info.Architectures[0] != "x86_64" || info.MemoryMiB != 8192 || !info.HibernationSupported ||
			len(info.ValidCores) == 0 || len(info.ValidThreadsPerCore) == 0 || info.Burstable {
			t.Fatalf("m5.large = %+v", info)
		}
	}
	if n := e.sim.Calls("DescribeInstanceTypes"); n != 1 {
		t.Errorf("%d DescribeInstanceTypes calls, want 1", n)
	}
	if _, err := e.client.InstanceType(ctx, "zz9.mega"); awserrors.CodeOf(err) != "InvalidInstanceType" || awserrors.KindOf(err) != awserrors.KindInvalidInput {
		t.Errorf("an unknown type: %v", err)
	}
}

// TestConcurrentLookupsOfOneImageAndTypeMakeOneCallEach is a bulk create's first
// moments: many reconciles ask about the same image and instance type before EC2 has
// answered the first of them. EC2 answers slowly here (200 ms) so that every asker
// arrives while the first call is in flight; all of them get the answer of that one
// call. A failure is shared the same way and then forgotten: the next ask calls again.
func TestConcurrentLookupsOfOneImageAndTypeMakeOneCallEach(t *testing.T) {
	slow := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(200 * time.Millisecond)
			h.ServeHTTP(w, r)
		})
	}
	e := newSimEnvBehind(t, ec2sim.Config{Seed: 1}, Options{}, slow)
	ctx := context.Background()
	const askers = 20
	ask := func(do func() error) []error {
		errs := make([]error, askers)
		var wg sync.WaitGroup
		for i := range askers {
			wg.Go(func() { errs[i] = do() })
		}
		wg.Wait()
		return errs
	}
	for _, err := range ask(func() error {
		img, err := e.client.DescribeImage(ctx, ec2sim.DefaultImageID)
		if err == nil && img.RootDeviceName == "" {
			return fmt.Errorf("image %+v has no root device", img)
		}
		return err
	}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, err := range ask(func() error { _, err := e.client.InstanceType(ctx, "m5.large"); return err }) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if i, ty := e.sim.Calls("DescribeImages"), e.sim.Calls("DescribeInstanceTypes"); i != 1 || ty != 1 {
		t.Errorf("%d DescribeImages and %d DescribeInstanceTypes for %d concurrent askers each, want 1 and 1", i, ty, askers)
	}

	for _, err := range ask(func() error { _, err := e.client.InstanceType(ctx, "zz9.mega"); return err }) {
		if awserrors.CodeOf(err) != "InvalidInstanceType" {
			t.Fatalf("an unknown type: %v", err)
		}
	}
	if n := e.sim.Calls("DescribeInstanceTypes"); n != 2 {
		t.Errorf("%d DescribeInstanceTypes after the unknown type, want 2 (one more, shared by all askers)", n)
	}
	if _, err := e.client.InstanceType(ctx, "zz9.mega"); awserrors.CodeOf(err) != "InvalidInstanceType" {
		t.Fatalf("the unknown type asked again: %v", err)
	}
	if n := e.sim.Calls("DescribeInstanceTypes"); n != 3 {
		t.Errorf("%d DescribeInstanceTypes, want 3: a failure is not remembered", n)
	}
}

func TestLifecycleOptionsAtLaunchAndInPlace(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	ctx := context.Background()
	req := basicLaunch("opts")
	stop := true
	req.StopProtection, req.ShutdownBehavior, req.AutoRecovery, req.CreditSpecification = &stop, "terminate", "disabled", "standard"
	req.PrivateDNSNameOptions = &PrivateDNSNameOptions{HostnameType: "resource-name", EnableARecord: true}
	req.MetadataOptions = MetadataOptions{HTTPTokens: "required", HTTPPutResponseHopLimit: 2, HTTPEndpoint: "enabled", InstanceMetadataTags: "enabled", HTTPProtocolIPv6: "disabled"}
	inst, err := e.client.RunInstance(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	got := e.waitState(t, inst.ID, StateRunning)
	if got.AutoRecovery != "disabled" || got.PrivateDNSNameOptions.HostnameType != "resource-name" || !got.PrivateDNSNameOptions.EnableARecord ||
		got.MetadataOptions.InstanceMetadataTags != "enabled" {
		t.Errorf("instance %+v / %+v / %+v", got.AutoRecovery, got.PrivateDNSNameOptions, got.MetadataOptions)
	}
	attrs, err := e.client.GetLifecycleAttributes(ctx, inst.ID)
	if err != nil || !attrs.StopProtection || attrs.ShutdownBehavior != "terminate" {
		t.Fatalf("lifecycle attributes %+v, %v", attrs, err)
	}
	if c, err := e.client.GetCreditSpecification(ctx, inst.ID); err != nil || c != "standard" {
		t.Errorf("credits %q, %v", c, err)
	}
	// Stop protection refuses a stop; lifted, the stop goes through.
	if err := e.client.StopInstance(ctx, inst.ID); awserrors.CodeOf(err) != "OperationNotPermitted" {
		t.Errorf("stopping a protected instance: %v", err)
	}
	for _, step := range []func() error{
		func() error { return e.client.SetStopProtection(ctx, inst.ID, false) },
		func() error { return e.client.SetShutdownBehavior(ctx, inst.ID, "stop") },
		func() error { return e.client.SetAutoRecovery(ctx, inst.ID, "default") },
		func() error { return e.client.SetCreditSpecification(ctx, inst.ID, "unlimited") },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	if attrs, _ := e.client.GetLifecycleAttributes(ctx, inst.ID); attrs.StopProtection || attrs.ShutdownBehavior != "stop" {
		t.Errorf("after the changes: %+v", attrs)
	}
	if c, _ := e.client.GetCreditSpecification(ctx, inst.ID); c != "unlimited" {
		t.Errorf("credits after the change %q", c)
	}
	// The hostname type changes only while stopped.
	if err := e.client.SetPrivateDNSNameOptions(ctx, inst.ID, PrivateDNSNameOptions{HostnameType: "ip-name"}); awserrors.CodeOf(err) != "IncorrectInstanceState" {
		t.Errorf("changing the hostname type of a running instance: %v", err)
	}
}

func TestHibernationAndCapacityAndPlacementThroughTheSDK(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	e.sim.AddCapacityReservation("cr-0000000000000c001", "m5.large", "us-east-1a", 1, "targeted", nil)
	e.sim.AddPlacementGroup("spread-1", "spread", 0)
	ctx := context.Background()
	req := basicLaunch("hib")
	encrypted := true
	req.InstanceType = "m5.large"
	req.RootVolume = &RootVolume{SizeGiB: 20, Type: "gp3", Encrypted: &encrypted}
	req.Hibernation = true
	req.CPUOptions = &CPUOptions{CoreCount: 1, ThreadsPerCore: 1}
	req.CapacityReservation = &CapacityReservationSpec{ReservationID: "cr-0000000000000c001"}
	req.Placement = &PlacementSpec{GroupName: "spread-1"}
	inst, err := e.client.RunInstance(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	got := e.waitState(t, inst.ID, StateRunning)
	if !got.HibernationConfigured || got.CPUOptions != (CPUOptions{CoreCount: 1, ThreadsPerCore: 1}) ||
		got.CapacityReservation.ReservationID != "cr-0000000000000c001" || got.CapacityReservationID != "cr-0000000000000c001" ||
		got.Placement.GroupName != "spread-1" {
		t.Fatalf("instance %+v", got)
	}
	if err := e.client.HibernateInstance(ctx, inst.ID); err != nil {
		t.Fatal(err)
	}
	stopped := e.waitState(t, inst.ID, StateStopped)
	if stopped.StateReasonCode != "Client.UserInitiatedHibernate" {
		t.Errorf("state reason %q", stopped.StateReasonCode)
	}
	if err := e.client.SetCapacityReservation(ctx, inst.ID, CapacityReservationSpec{Preference: "none"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.client.describeInstanceNow(ctx, inst.ID); got.CapacityReservation.Preference != "none" || got.CapacityReservation.ReservationID != "" {
		t.Errorf("reservation after the change %+v", got.CapacityReservation)
	}
}

// TestDescribeSnapshotReadsTheOwnerThroughTheSDKAndIsRemembered describes a shared
// snapshot and the account's own through the real SDK against the emulator: owner,
// alias and size come through, a second lookup costs no call, and an unknown ID is
// invalid input with EC2's code.
func TestDescribeSnapshotReadsTheOwnerThroughTheSDKAndIsRemembered(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	e.sim.AddSharedSnapshot("snap-0a1b2c3d4e5f60001", 30, "210987654321", "")
	e.sim.AddSharedSnapshot("snap-0a1b2c3d4e5f60002", 8, "137112412989", "amazon")
	ctx := context.Background()
	for range 2 {
		snap, err := e.client.DescribeSnapshot(ctx, "snap-0a1b2c3d4e5f60001")
		if err != nil || snap.OwnerID != "210987654321" || snap.OwnerAlias != "" || snap.SizeGiB != 30 {
			t.Fatalf("DescribeSnapshot = %+v, %v", snap, err)
		}
	}
	if snap, err := e.client.DescribeSnapshot(ctx, "snap-0a1b2c3d4e5f60002"); err != nil || snap.OwnerAlias != "amazon" || snap.SizeGiB != 8 {
		t.Fatalf("Amazon's snapshot = %+v, %v", snap, err)
	}
	if n := e.sim.Calls("DescribeSnapshots"); n != 2 {
		t.Errorf("%d DescribeSnapshots calls for two snapshots looked up three times, want 2", n)
	}
	_, err := e.client.DescribeSnapshot(ctx, "snap-0a1b2c3d4e5f6ffff")
	if awserrors.KindOf(err) != awserrors.KindInvalidInput || awserrors.CodeOf(err) != "InvalidSnapshot.NotFound" {
		t.Errorf("an unknown snapshot: %v, want InvalidSnapshot.NotFound as invalid input", err)
	}
}
