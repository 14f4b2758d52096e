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

package instanceset

import (
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// These tests state the set's rules on plain values; the set's behaviour with a real
// API server, the EC2Instance reconciler and the EC2 emulator is tested in
// internal/controller (instanceset_test.go).

var epoch = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

const hash = "newhash000"

func testSet(replicas int32) *computev1alpha1.EC2InstanceSet {
	set := &computev1alpha1.EC2InstanceSet{}
	set.Name, set.Namespace, set.Generation = "web", "team-a", 1
	set.Spec.Replicas = ptr.To(replicas)
	set.Spec.Template.Spec = computev1alpha1.EC2InstanceSpec{ImageID: "ami-0abcdef1234567890", InstanceType: "t3.micro"}
	return set
}

// kid is one instance: its name's hash and slot, whether it is Ready, and how many
// minutes after the epoch it was created and became Ready.
type kid struct {
	hash     string
	slot     int
	ready    bool
	created  int
	deleting bool
	// unlaunched is an instance with no EC2 instance yet (a launch refused).
	unlaunched bool
}

func fleetOf(set *computev1alpha1.EC2InstanceSet, kids ...kid) fleet {
	var objs []computev1alpha1.EC2Instance
	for _, k := range kids {
		obj := computev1alpha1.EC2Instance{}
		obj.Name = instanceName(set.Name, k.hash, k.slot)
		obj.Labels = map[string]string{computev1alpha1.TemplateHashLabel: k.hash}
		obj.CreationTimestamp = metav1.NewTime(epoch.Add(time.Duration(k.created) * time.Minute))
		obj.Spec = set.Spec.Template.Spec
		if !k.unlaunched {
			obj.Status.InstanceID = fmt.Sprintf("i-%017d", k.slot)
		}
		if k.deleting {
			obj.DeletionTimestamp = ptr.To(metav1.NewTime(epoch))
		}
		if k.ready {
			obj.Status.Conditions = []metav1.Condition{{Type: computev1alpha1.ConditionReady, Status: metav1.ConditionTrue,
				LastTransitionTime: metav1.NewTime(epoch.Add(time.Duration(k.created+1) * time.Minute))}}
		}
		objs = append(objs, obj)
	}
	return sortFleet(set, objs, hash, epoch.Add(time.Hour))
}

func names(objs []*computev1alpha1.EC2Instance) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Name)
	}
	slices.Sort(out)
	return out
}

func TestDecideCreatesAndRemoves(t *testing.T) {
	rolling := func(surge, unavailable string) func(*computev1alpha1.EC2InstanceSet) {
		return func(s *computev1alpha1.EC2InstanceSet) {
			s.Spec.Strategy.RollingUpdate = &computev1alpha1.RollingUpdateEC2InstanceSet{
				MaxSurge: ptr.To(intstr.Parse(surge)), MaxUnavailable: ptr.To(intstr.Parse(unavailable))}
		}
	}
	onDelete := func(s *computev1alpha1.EC2InstanceSet) { s.Spec.Strategy.Type = computev1alpha1.OnDelete }
	tests := []struct {
		name       string
		replicas   int32
		strategy   func(*computev1alpha1.EC2InstanceSet)
		kids       []kid
		wantCreate []string
		wantDelete []string
	}{
		{name: "a new set creates every instance", replicas: 3,
			wantCreate: []string{"web-newhash000-0", "web-newhash000-1", "web-newhash000-2"}},
		{name: "a name still held by a deleting instance is skipped", replicas: 2,
			kids:       []kid{{hash: hash, slot: 0, deleting: true}, {hash: hash, slot: 1, ready: true}},
			wantCreate: []string{"web-newhash000-2"}},
		{name: "scaling down removes instances that are not Ready first, then the newest", replicas: 2,
			kids: []kid{{hash: hash, slot: 0, ready: true, created: 1}, {hash: hash, slot: 1, ready: true, created: 3},
				{hash: hash, slot: 2, ready: false, created: 2}, {hash: hash, slot: 3, ready: true, created: 2}},
			wantDelete: []string{"web-newhash000-1", "web-newhash000-2"}},
		{name: "a rolling replacement surges before it removes anything", replicas: 4,
			kids: []kid{{hash: "old", slot: 0, ready: true}, {hash: "old", slot: 1, ready: true},
				{hash: "old", slot: 2, ready: true}, {hash: "old", slot: 3, ready: true}},
			wantCreate: []string{"web-newhash000-0"}},
		{name: "an old instance goes once its successor is available", replicas: 4,
			kids: []kid{{hash: "old", slot: 0, ready: true}, {hash: "old", slot: 1, ready: true}, {hash: "old", slot: 2, ready: true},
				{hash: "old", slot: 3, ready: true, created: 5}, {hash: hash, slot: 0, ready: true, created: 10}},
			wantDelete: []string{"web-old-3"}},
		{name: "no old instance goes while its successor is not Ready", replicas: 4,
			kids: []kid{{hash: "old", slot: 0, ready: true}, {hash: "old", slot: 1, ready: true}, {hash: "old", slot: 2, ready: true},
				{hash: "old", slot: 3, ready: true}, {hash: hash, slot: 0}}},
		{name: "old instances that are not available count for nothing and go at once", replicas: 2,
			kids:       []kid{{hash: "old", slot: 0, ready: true}, {hash: "old", slot: 1}},
			wantCreate: []string{"web-newhash000-0"}, wantDelete: []string{"web-old-1"}},
		{name: "maxUnavailable lets old instances go before their successors", replicas: 4, strategy: rolling("0", "50%"),
			kids: []kid{{hash: "old", slot: 0, ready: true}, {hash: "old", slot: 1, ready: true},
				{hash: "old", slot: 2, ready: true, created: 2}, {hash: "old", slot: 3, ready: true, created: 3}},
			wantDelete: []string{"web-old-2", "web-old-3"}},
		{name: "OnDelete keeps old instances", replicas: 2, strategy: onDelete,
			kids: []kid{{hash: "old", slot: 0, ready: true}, {hash: "old", slot: 1, ready: true}}},
		{name: "OnDelete replaces a deleted instance from the current template", replicas: 2, strategy: onDelete,
			kids:       []kid{{hash: "old", slot: 0, ready: true}},
			wantCreate: []string{"web-newhash000-0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := testSet(tc.replicas)
			if tc.strategy != nil {
				tc.strategy(set)
			}
			d := Decide(set, fleetOf(set, tc.kids...), hash)
			if !slices.Equal(d.Create, tc.wantCreate) {
				t.Errorf("create %v, want %v", d.Create, tc.wantCreate)
			}
			if got := names(d.Delete); !slices.Equal(got, tc.wantDelete) {
				t.Errorf("delete %v, want %v", got, tc.wantDelete)
			}
		})
	}
}

func TestRollingBounds(t *testing.T) {
	for _, tc := range []struct {
		replicas                   int
		surge, unavailable         string
		wantSurge, wantUnavailable int
	}{
		{100, "25%", "0", 25, 0},
		{1, "25%", "0", 1, 0}, // a percentage of surge rounds up
		{3, "0", "50%", 0, 1}, // of unavailability, down
		{2, "0%", "10%", 0, 1},
	} {
		t.Run(fmt.Sprintf("%d replicas, %s, %s", tc.replicas, tc.surge, tc.unavailable), func(t *testing.T) {
			set := testSet(int32(tc.replicas))
			set.Spec.Strategy.RollingUpdate = &computev1alpha1.RollingUpdateEC2InstanceSet{
				MaxSurge: ptr.To(intstr.Parse(tc.surge)), MaxUnavailable: ptr.To(intstr.Parse(tc.unavailable))}
			if s, u := rollingBounds(set, tc.replicas); s != tc.wantSurge || u != tc.wantUnavailable {
				t.Errorf("bounds %d, %d; want %d, %d", s, u, tc.wantSurge, tc.wantUnavailable)
			}
		})
	}
}

func TestAnInstanceCountsAsAvailableAfterMinReadySeconds(t *testing.T) {
	set := testSet(1)
	set.Spec.MinReadySeconds = 90
	obj := computev1alpha1.EC2Instance{}
	obj.Labels = map[string]string{computev1alpha1.TemplateHashLabel: hash}
	obj.Status.Conditions = []metav1.Condition{{Type: computev1alpha1.ConditionReady, Status: metav1.ConditionTrue,
		LastTransitionTime: metav1.NewTime(epoch)}}
	f := sortFleet(set, []computev1alpha1.EC2Instance{obj}, hash, epoch.Add(time.Minute))
	if f.live[0].available || !f.live[0].ready || f.recheck != 30*time.Second {
		t.Errorf("ready %v, available %v, recheck %v: want ready, not yet available, a look in 30s", f.live[0].ready, f.live[0].available, f.recheck)
	}
	obj.Generation = 2 // changed since Ready was written
	if f := sortFleet(set, []computev1alpha1.EC2Instance{obj}, hash, epoch.Add(time.Hour)); f.live[0].ready {
		t.Error("an instance whose Ready is about an older generation counted as Ready")
	}
}

func TestTemplateChangesInPlace(t *testing.T) {
	set := testSet(3)
	f := fleetOf(set, kid{hash: hash, slot: 0, ready: true}, kid{hash: hash, slot: 1, ready: true}, kid{hash: hash, slot: 2, ready: true})
	set.Spec.Template.Spec.Tags = map[string]string{"team": "a"}
	set.Spec.Template.Metadata.Labels = map[string]string{"tier": "web"}
	d := Decide(set, f, hash)
	if len(d.Update) != 3 || d.Update[0].Spec.Tags["team"] != "a" || d.Update[0].Labels["tier"] != "web" {
		t.Fatalf("a tag change reached %d of 3 instances (%v)", len(d.Update), names(d.Update))
	}

	set.Spec.Template.Spec.InstanceType = "t3.large"
	if d := Decide(set, f, hash); len(d.Update) != 1 {
		t.Errorf("a type change, which stops each instance, went to %d instances at once; want 1 (maxUnavailable 0)", len(d.Update))
	}
	old := testSet(3)
	f = fleetOf(old, kid{hash: hash, slot: 0, ready: false}, kid{hash: hash, slot: 1, ready: true}, kid{hash: hash, slot: 2, ready: true})
	set.Spec.Template.Metadata.Labels = nil
	set.Spec.Template.Spec.Tags = nil
	if d := Decide(set, f, hash); len(d.Update) != 0 {
		t.Errorf("a type change went to %v while another instance was not Ready", names(d.Update))
	}
	// Instances a guardrail kept from launching have nothing to stop: a type the
	// guardrail allows goes to all of them at once.
	f = fleetOf(old, kid{hash: hash, slot: 0, unlaunched: true}, kid{hash: hash, slot: 1, unlaunched: true}, kid{hash: hash, slot: 2, unlaunched: true})
	if d := Decide(set, f, hash); len(d.Update) != 3 {
		t.Errorf("a type change reached %v of 3 instances not launched yet, want all", names(d.Update))
	}
}

func TestTheTemplateHashFollowsOnlyWhatNeedsNewInstances(t *testing.T) {
	base := func() *computev1alpha1.EC2InstanceSpec {
		return &computev1alpha1.EC2InstanceSpec{ImageID: "ami-0abcdef1234567890", InstanceType: "t3.micro",
			RootVolume: &computev1alpha1.RootVolume{SizeGiB: ptr.To[int32](20)},
			Volumes:    []computev1alpha1.DataVolume{{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10)}}}
	}
	want, err := TemplateHash(base())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(*computev1alpha1.EC2InstanceSpec)
		same   bool
	}{
		{"tags", func(s *computev1alpha1.EC2InstanceSpec) { s.Tags = map[string]string{"a": "b"} }, true},
		{"instance type", func(s *computev1alpha1.EC2InstanceSpec) { s.InstanceType = "m7g.large" }, true},
		{"root volume size", func(s *computev1alpha1.EC2InstanceSpec) { s.RootVolume.SizeGiB = ptr.To[int32](40) }, true},
		{"data volume size", func(s *computev1alpha1.EC2InstanceSpec) { s.Volumes[0].SizeGiB = ptr.To[int32](40) }, true},
		{"image", func(s *computev1alpha1.EC2InstanceSpec) { s.ImageID = "ami-0fedcba9876543210" }, false},
		{"user data", func(s *computev1alpha1.EC2InstanceSpec) { s.UserData = "#!/bin/sh" }, false},
		{"a data volume's snapshot", func(s *computev1alpha1.EC2InstanceSpec) { s.Volumes[0].SnapshotID = "snap-0123456789abcdef0" }, false},
		{"root volume size added", func(s *computev1alpha1.EC2InstanceSpec) { s.RootVolume.SizeGiB = nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := base()
			tc.change(spec)
			got, err := TemplateHash(spec)
			if err != nil {
				t.Fatal(err)
			}
			if (got == want) != tc.same {
				t.Errorf("hash %s, base %s: a change to %s should leave it the same: %v", got, want, tc.name, tc.same)
			}
		})
	}
}
