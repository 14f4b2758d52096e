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

package ec2limits

import (
	"testing"
	"time"
)

func TestEveryCallDrawsFromTheBucketTheGuideGivesItsCategory(t *testing.T) {
	l := Documented()
	testCases := []struct {
		action   string
		filtered bool
		want     Bucket
	}{
		{"DescribeInstances", false, Bucket{50, 10}},
		{"DescribeInstances", true, Bucket{100, 20}},
		{"DescribeVolumes", false, Bucket{50, 10}},
		{"DescribeInstanceAttribute", false, Bucket{100, 20}},
		{"DescribeImages", false, Bucket{100, 20}},
		{"RunInstances", false, Bucket{5, 2}},
		{"StartInstances", false, Bucket{5, 2}},
		{"TerminateInstances", false, Bucket{100, 5}},
		{"CreateTags", false, Bucket{100, 10}},
		{"ModifyInstanceMetadataOptions", false, Bucket{100, 5}},
		{"StopInstances", false, Bucket{50, 5}},
		{"ModifyInstanceAttribute", false, Bucket{50, 5}},
		{"CancelSpotInstanceRequests", false, Bucket{50, 5}},
	}
	for _, tc := range testCases {
		if got := l.Request(RequestKey(tc.action, tc.filtered)); got != tc.want {
			t.Errorf("%s (filtered %v): %v, want %v", tc.action, tc.filtered, got, tc.want)
		}
	}
	for action, want := range map[string]Bucket{"RunInstances": {1000, 2}, "TerminateInstances": {1000, 20}, "StopInstances": {1000, 20}} {
		if got, ok := l.Resource(action); !ok || got != want {
			t.Errorf("%s resource bucket %v, want %v", action, got, want)
		}
	}
	if _, ok := l.Resource("CreateTags"); ok {
		t.Error("CreateTags has no resource bucket")
	}
}

func TestParseOverridesBucketsOfAnAccountWithRaisedLimits(t *testing.T) {
	l, err := Documented().Parse("RunInstances=50/20, RunInstances.resources=5000/10,DescribeInstances:unfiltered=200/40")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Request("RunInstances"); got != (Bucket{50, 20}) {
		t.Errorf("RunInstances %v", got)
	}
	if got, _ := l.Resource("RunInstances"); got != (Bucket{5000, 10}) {
		t.Errorf("RunInstances resources %v", got)
	}
	if got := l.Request(RequestKey("DescribeInstances", false)); got != (Bucket{200, 40}) {
		t.Errorf("unfiltered DescribeInstances %v", got)
	}
	if got := l.Request("TerminateInstances"); got != (Bucket{100, 5}) {
		t.Errorf("an action without override changed: %v", got)
	}
	if back, err := Documented().Parse(l.String()); err != nil || back.String() != l.String() {
		t.Errorf("String does not round-trip: %q -> %q (%v)", l.String(), back.String(), err)
	}
	for _, bad := range []string{"RunInstances", "RunInstances=5", "RunInstances=0/2", "RunInstances=5/0", "=5/2", "RunInstances=a/b"} {
		if _, err := Documented().Parse(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestTokenBucketRefusesWhenEmptyAndRefillsAtItsRate(t *testing.T) {
	start := time.Unix(0, 0)
	b := NewTokenBucket(Bucket{Capacity: 5, RefillPerSecond: 2}, start)
	for i := range 5 {
		if !b.Take(1, start) {
			t.Fatalf("call %d of a full bucket of 5 refused", i+1)
		}
	}
	if b.Take(1, start) {
		t.Fatal("a sixth call in the same instant was allowed")
	}
	if !b.Take(1, start.Add(500*time.Millisecond)) {
		t.Fatal("half a second at 2 tokens/s did not refill one token")
	}
	if b.Take(1, start.Add(500*time.Millisecond)) {
		t.Fatal("two calls after one refilled token")
	}
	if got := b.Tokens(start.Add(time.Hour)); got != 5 {
		t.Errorf("a bucket never holds more than its capacity: %v", got)
	}
	if b.Take(6, start.Add(time.Hour)) {
		t.Error("took more tokens than the capacity")
	}
}

func TestScaledRaisesEveryBucketButTheOverriddenOnes(t *testing.T) {
	l, err := Documented().Scaled(10).Parse("DescribeInstances=7/3")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Request("RunInstances"); got != (Bucket{Capacity: 50, RefillPerSecond: 20}) {
		t.Errorf("RunInstances raised tenfold is %v, want 50/20", got)
	}
	if got, _ := l.Resource("RunInstances"); got != (Bucket{Capacity: 10000, RefillPerSecond: 20}) {
		t.Errorf("RunInstances' resource bucket raised tenfold is %v, want 10000/20", got)
	}
	if got := l.Request("DescribeInstances"); got != (Bucket{Capacity: 7, RefillPerSecond: 3}) {
		t.Errorf("an override is %v, want it as given", got)
	}
	if got := l.Request("CreateTags"); got != (Bucket{Capacity: 1000, RefillPerSecond: 100}) {
		t.Errorf("CreateTags raised tenfold is %v", got)
	}
}
