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
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/events"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// eventsHarness is a manager with EC2 events on, the shipped poll interval and
// backoff, and a resync longer than the shipped one: whatever it sees of changes
// outside Kubernetes, it saw through the events.
func eventsHarness(t testing.TB) *harness {
	return newHarness(t, harnessOptions{events: true, tweak: func(r *EC2InstanceReconciler) {
		shippedTimings(r)
		r.ResyncPeriod = time.Hour
	}})
}

func TestAnInstanceStoppedOutsideKubernetesIsSeenThroughEventsWithoutAResync(t *testing.T) {
	t.Parallel()
	h := eventsHarness(t)
	h.create(h.instance("watched"))
	id := h.waitReady("watched").Status.InstanceID

	m := h.mark("watched")
	if err := h.sim.StopInstance(id); err != nil {
		t.Fatal(err)
	}
	// desiredState is running: the operator starts it again, which it can only do
	// this soon when the stop's event reached it.
	note := h.waitEventSince(m, computev1alpha1.ReasonStarting)
	if !strings.Contains(note, "stopped outside Kubernetes") {
		t.Errorf("event %q", note)
	}
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
	if n := h.queue.Messages(h.queueURL); n != 0 {
		t.Errorf("%d event messages left in the queue: handled messages must be deleted", n)
	}
}

func TestSpotInterruptionWarningSetsAConditionAndAWarningEvent(t *testing.T) {
	t.Parallel()
	h := eventsHarness(t)
	obj := h.instance("spotty")
	obj.Spec.Spot = &computev1alpha1.SpotOptions{}
	h.create(obj)
	id := h.waitReady("spotty").Status.InstanceID

	m := h.mark("spotty")
	if err := h.sim.InjectSpotInterruption(id, "terminate"); err != nil {
		t.Fatal(err)
	}
	note := h.waitEventSince(m, computev1alpha1.ReasonInterruptionWarning)
	if !strings.Contains(note, "terminate") || !strings.Contains(note, id) {
		t.Errorf("event %q, want the action and the instance", note)
	}
	got := h.waitCondition("spotty", computev1alpha1.ConditionSpotInterruption, metav1.ConditionTrue, computev1alpha1.ReasonInterruptionWarning)
	if c := findCondition(got, computev1alpha1.ConditionSpotInterruption); !strings.Contains(c.Message, "at about") {
		t.Errorf("condition %+v, want the time of the interruption", c)
	}
}

func TestEventsForInstancesNoObjectOwnsAreIgnored(t *testing.T) {
	t.Parallel()
	h := eventsHarness(t)
	h.create(h.instance("mine"))
	h.waitReady("mine")
	if owned := h.reconciler.HandleEvent(context.Background(), events.Event{DetailType: events.DetailStateChange, InstanceID: "i-0fffffffffffffff0", State: "stopped"}); owned {
		t.Error("an event for an unknown instance was taken as the operator's")
	}
}

// BenchmarkOutOfBandChangeSeenThroughEvents measures, over 20 out-of-band stops of a
// running instance with events on and a one-hour resync, how long the operator takes
// to react (to start it again), and how many DescribeInstances calls each reaction
// costs. The target is a p99 under 5 s.
func BenchmarkOutOfBandChangeSeenThroughEvents(b *testing.B) {
	// The shipped periods, except the replacement backoff: the benchmark measures how
	// soon an event shows in status, and twenty terminations in a row would otherwise
	// space their replacements out to minutes (recreationBackoff, by design), longer
	// than the next trial waits for the replacement to be Ready.
	h := newHarness(b, harnessOptions{events: true, tweak: func(r *EC2InstanceReconciler) {
		shippedTimings(r)
		r.ResyncPeriod = time.Hour
		r.MinBackoff, r.MaxBackoff = 10*time.Millisecond, 100*time.Millisecond
	}})
	h.timeout = time.Minute
	h.create(h.instance("bench"))
	h.waitReady("bench")
	for range b.N {
		h.sim.ResetCalls()
		// Stops: the status shows the operator saw it once it records its start
		// (status.lastStartAttempt) or a state other than running.
		stops := outOfBandTrials(b, h, h.sim.StopInstance, func(before, now computev1alpha1.EC2InstanceStatus) bool {
			return now.State != ec2sim.StateRunning || !now.LastStartAttempt.Equal(before.LastStartAttempt)
		})
		describes := float64(h.sim.Calls("DescribeInstances")) / outOfBandTrialCount
		// Terminations: the status shows it once it counts a replacement.
		terminations := outOfBandTrials(b, h, h.sim.TerminateInstance, func(before, now computev1alpha1.EC2InstanceStatus) bool {
			return now.Recreations > before.Recreations
		})
		b.ReportMetric(percentile(stops, 50).Seconds(), "stop-p50-seconds")
		b.ReportMetric(percentile(stops, 99).Seconds(), "stop-p99-seconds")
		b.ReportMetric(percentile(terminations, 50).Seconds(), "terminate-p50-seconds")
		b.ReportMetric(percentile(terminations, 99).Seconds(), "terminate-p99-seconds")
		b.ReportMetric(describes, "describes/stop")
	}
}

// outOfBandTrialCount is the number of trials per kind of out-of-band change.
const outOfBandTrialCount = 20

// outOfBandTrials changes the Ready instance outside Kubernetes outOfBandTrialCount
// times with change and returns how long each took to show in the object's status,
// as seen reads the status before and after.
func outOfBandTrials(b *testing.B, h *harness, change func(id string) error, seen func(before, now computev1alpha1.EC2InstanceStatus) bool) []time.Duration {
	var latencies []time.Duration
	for range outOfBandTrialCount {
		before := h.waitReady("bench").Status
		begin := time.Now()
		if err := change(before.InstanceID); err != nil {
			b.Fatal(err)
		}
		h.eventually(h.timeout, func() string {
			if !seen(before, h.get("bench").Status) {
				return "the status does not show the change yet"
			}
			return ""
		})
		latencies = append(latencies, time.Since(begin))
	}
	return latencies
}

// percentile returns the p-th percentile of durations (nearest rank).
func percentile(durations []time.Duration, p int) time.Duration {
	sorted := slices.Clone(durations)
	slices.Sort(sorted)
	return sorted[(len(sorted)-1)*p/100]
}
