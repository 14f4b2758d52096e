package controller

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/events"
)

// eventsHarness is a manager with EC2 events on and a resync far longer than any
// test: whatever it sees of changes outside Kubernetes, it saw through the events.
func eventsHarness(t testing.TB) *harness {
	return newHarness(t, harnessOptions{events: true, tweak: func(r *EC2InstanceReconciler) {
		r.ResyncPeriod = time.Hour
		r.AttributeResyncPeriod = time.Hour
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
	h := eventsHarness(b)
	h.timeout = time.Minute
	h.create(h.instance("bench"))
	id := h.waitReady("bench").Status.InstanceID
	for range b.N {
		var latencies []time.Duration
		h.sim.ResetCalls()
		for range 20 {
			h.waitReady("bench")
			starts := h.sim.Calls("StartInstances")
			begin := time.Now()
			if err := h.sim.StopInstance(id); err != nil {
				b.Fatal(err)
			}
			h.eventually(h.timeout, func() string {
				if h.sim.Calls("StartInstances") == starts {
					return "the operator has not reacted yet"
				}
				return ""
			})
			latencies = append(latencies, time.Since(begin))
		}
		sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
		b.ReportMetric(latencies[len(latencies)/2].Seconds(), "p50-seconds")
		b.ReportMetric(latencies[len(latencies)*99/100].Seconds(), "p99-seconds")
		b.ReportMetric(float64(h.sim.Calls("DescribeInstances"))/20, "describes/reaction")
	}
}
