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

package launch

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass/passtest"
)

// An instance unknown to DescribeInstances right after its launch is waited for, not
// replaced; a launch EC2 refused outright created nothing to wait for.
func TestVisibilityGraceFollowsTheLaunchRecordAndEC2sAnswer(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) *metav1.Time { t := metav1.NewTime(now.Add(-ago)); return &t }
	testCases := []struct {
		name        string
		lastLaunch  *metav1.Time
		instanceID  string
		readyReason string
		readyMsg    string
		want        bool
	}{
		{name: "just launched", lastLaunch: at(time.Minute), instanceID: "i-1", want: true},
		{name: "launched long ago", lastLaunch: at(time.Hour), instanceID: "i-1", want: false},
		{name: "never launched, never adopted", want: false},
		{name: "refused outright before any instance", lastLaunch: at(time.Minute), readyReason: computev1alpha1.ReasonImageNotFound,
			readyMsg: LaunchAction + ": InvalidAMIID.NotFound: gone", want: false},
		{name: "refused after an instance was recorded", lastLaunch: at(time.Minute), instanceID: "i-1", readyReason: computev1alpha1.ReasonImageNotFound,
			readyMsg: LaunchAction + ": InvalidAMIID.NotFound: gone", want: true},
		{name: "throttled launch may still have happened", lastLaunch: at(time.Minute), readyReason: computev1alpha1.ReasonThrottled,
			readyMsg: LaunchAction + ": RequestLimitExceeded: slow down", want: true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			r := testPhase()
			r.Now = func() time.Time { return now }
			s := passtest.Scope(nil)
			s.Obj.Status.LastLaunchAttempt, s.Obj.Status.InstanceID = tc.lastLaunch, tc.instanceID
			if tc.readyReason != "" {
				s.NotReady(tc.readyReason, tc.readyMsg)
			}
			if got := r.WithinVisibilityGrace(s); got != tc.want {
				t.Errorf("withinVisibilityGrace = %v, want %v", got, tc.want)
			}
		})
	}
}

// A terminated instance is replaced later and later while replacements keep dying,
// and the state reason tells a failed launch from drift.
func TestReplacementsBackOffAndNameWhyTheInstanceWentAway(t *testing.T) {
	for recreations, want := range map[int32]time.Duration{0: time.Second, 1: 2 * time.Second, 3: 8 * time.Second, 9: 5 * time.Minute, 1000: 5 * time.Minute} {
		if got := RecreationBackoff(recreations, time.Second, 5*time.Minute); got != want {
			t.Errorf("recreationBackoff(%d) = %s, want %s", recreations, got, want)
		}
	}
	testCases := []struct {
		before, code string
		wantReason   string
	}{
		{before: ec2.StatePending, code: "Client.InternalError", wantReason: computev1alpha1.ReasonLaunchFailed},
		{before: "", code: "Server.InsufficientInstanceCapacity", wantReason: computev1alpha1.ReasonLaunchFailed},
		{before: ec2.StateRunning, code: "Client.InternalError", wantReason: computev1alpha1.ReasonTerminatedOutOfBand},
		{before: ec2.StatePending, code: "Client.UserInitiatedShutdown", wantReason: computev1alpha1.ReasonTerminatedOutOfBand},
		{before: ec2.StatePending, code: "Server.SpotInstanceTermination", wantReason: computev1alpha1.ReasonTerminatedOutOfBand},
	}
	for _, tc := range testCases {
		s := passtest.Scope(nil)
		s.Before.Status.State = tc.before
		reason, _, _ := terminationCause(s, &ec2.Instance{ID: "i-1", StateReasonCode: tc.code})
		if reason != tc.wantReason {
			t.Errorf("was %q, state reason %s: %s, want %s", tc.before, tc.code, reason, tc.wantReason)
		}
	}
}
