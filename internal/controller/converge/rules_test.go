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

package converge

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass/passtest"
)

// Whether a stopped instance was stopped outside Kubernetes is decided from what the
// operator recorded (status.lastStopRequest), never from the text of a condition.
func TestAStopIsOutOfBandUnlessTheOperatorRecordedIt(t *testing.T) {
	stoppedAt := metav1.NewTime(time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC))
	testCases := []struct {
		name        string
		readyReason string
		lastStop    *metav1.Time
		want        bool
	}{
		{name: "running, then found stopped", readyReason: computev1alpha1.ReasonAvailable, want: true},
		{name: "seen stopping, not stopped by the operator", readyReason: computev1alpha1.ReasonStopping, want: true},
		{name: "stopped by the operator", readyReason: computev1alpha1.ReasonStopping, lastStop: &stoppedAt, want: false},
		{name: "kept stopped as desired", readyReason: computev1alpha1.ReasonStopped, want: false},
		{name: "stopped for a change", readyReason: computev1alpha1.ReasonUpdating, want: false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			s := passtest.Scope(nil)
			s.NotReady(tc.readyReason, "whatever the message says")
			s.Obj.Status.State = ec2.StateRunning
			s.Obj.Status.LastStopRequest = tc.lastStop
			s.Before = s.Obj.DeepCopy()
			if got := stoppedOutOfBand(s); got != tc.want {
				t.Errorf("stoppedOutOfBand = %v, want %v", got, tc.want)
			}
		})
	}
}

// A converge pass whose aspects failed while something still moves ends with all its
// failures, at the time of the move, with the move kept in view.
func TestAPassWithFailuresEndsWithAllOfThemAndWhatStillMoves(t *testing.T) {
	p := &Pass{}
	p.fail("tags", &awserrors.Error{Kind: awserrors.KindAuth, Code: "UnauthorizedOperation", Message: "not allowed"})
	p.fail("monitoring", &awserrors.Error{Kind: awserrors.KindThrottled, Code: "RequestLimitExceeded", Message: "slow down"})
	st := convergeEnds(p, pass.DoneAfter(5*time.Second))
	if st.Kind != pass.KindFailed || st.After != 5*time.Second || !st.Meanwhile || len(st.Failures) != 2 ||
		st.Failures[0].Action != "changing tags" || st.Failures[1].Action != "changing monitoring" {
		t.Errorf("step %+v, want both failures, back in 5s, the move in view", st)
	}
	if st := convergeEnds(&Pass{}, pass.DoneAfter(time.Second)); st.Kind != pass.KindDone {
		t.Errorf("a pass without failures ends with %+v, want its own step", st)
	}
}

// A change that would take the instance past EC2's tag limit is refused as
// TagLimitExceeded before it is sent.
func TestATagChangePastEC2sLimitIsRefused(t *testing.T) {
	err := checkTagBudget(&ec2.Instance{ID: "i-1", Tags: fiftyTags()}, map[string]string{"new": "x"}, nil)
	if got := pass.ReasonFor(err); got != computev1alpha1.ReasonTagLimitExceeded {
		t.Errorf("reason %s, want %s", got, computev1alpha1.ReasonTagLimitExceeded)
	}
}

func fiftyTags() map[string]string {
	tags := map[string]string{}
	for i := range MaxInstanceTags {
		tags[strings.Repeat("k", i+1)] = "v"
	}
	return tags
}
