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
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/launch"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// TestAFleetThatVanishesAtOnceIsNotLaunchedAgain points a running operator at an EC2
// endpoint of the same account that knows none of its instances (an endpoint or a
// restored account that changed under it): every instance is "not found". Instead of
// launching a second fleet, replacements pause with ReplacementPaused and a metric,
// and one object is replaced only when a person sets its retry annotation.
// The visibility grace and the hold are short so that the test does not wait five
// minutes and thirty seconds; the decision they lead to is the one under test.
func TestAFleetThatVanishesAtOnceIsNotLaunchedAgain(t *testing.T) {
	t.Parallel()
	const fleet = launch.VanishThreshold + 1
	h := newHarness(t, harnessOptions{tweak: func(r *EC2InstanceReconciler) {
		r.VisibilityGracePeriod, r.VanishHold = time.Second, 2*time.Second
	}})
	for i := range fleet {
		h.create(h.instance(fmt.Sprintf("db-%d", i)))
	}
	for i := range fleet {
		h.waitReady(fmt.Sprintf("db-%d", i))
	}

	empty := ec2sim.New(ec2sim.Config{PendingDuration: 200 * time.Millisecond})
	srv := httptest.NewServer(empty)
	t.Cleanup(srv.Close)
	h.stopManager()
	h.simURL = srv.URL
	h.startManager()
	for i := range fleet {
		got := h.waitCondition(fmt.Sprintf("db-%d", i), computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonReplacementPaused)
		if msg := findCondition(got, computev1alpha1.ConditionReady).Message; !strings.Contains(msg, computev1alpha1.RetryAnnotation) {
			t.Errorf("db-%d: Ready says %q; want it to say how to confirm", i, msg)
		}
	}
	if n := empty.Calls("RunInstances"); n != 0 {
		t.Fatalf("RunInstances called %d times for a fleet that vanished at once", n)
	}

	// A person confirms one: it alone is replaced.
	h.update("db-0", func(o *computev1alpha1.EC2Instance) {
		if o.Annotations == nil {
			o.Annotations = map[string]string{}
		}
		o.Annotations[computev1alpha1.RetryAnnotation] = "confirmed-1"
	})
	h.waitReady("db-0")
	if n := empty.Calls("RunInstances"); n != 1 {
		t.Errorf("RunInstances called %d times after one confirmation, want 1", n)
	}
	if c := findCondition(h.get("db-1"), computev1alpha1.ConditionReady); c.Reason != computev1alpha1.ReasonReplacementPaused {
		t.Errorf("db-1 is %s, want still paused", c.Reason)
	}
}
