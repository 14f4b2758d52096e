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
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// TestARegionInNoPartitionIsRefusedBeforeAnyCall: a region that matches the API's
// pattern but is in no AWS partition gets RegionUnknown (Stalled, with an event), no
// EC2 call (and no client: TestAnUnknownRegionGetsNoClient in internal/cloud/ec2),
// backs off rather than retrying hot, and the object still
// goes at once when deleted.
func TestARegionInNoPartitionIsRefusedBeforeAnyCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: shippedTimings})
	obj := h.instance("mars")
	obj.Spec.Region = "us-mars-1"
	h.create(obj)
	got := h.waitCondition("mars", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonRegionUnknown)
	if msg := findCondition(got, computev1alpha1.ConditionReady).Message; !strings.Contains(msg, `"us-mars-1"`) || !strings.Contains(msg, "--extra-regions") {
		t.Errorf("Ready says %q; want it to name the region and the flag", msg)
	}
	h.waitEvent("mars", computev1alpha1.ReasonRegionUnknown)
	before := h.reconciles.Load()
	time.Sleep(3 * time.Second)
	if n := h.reconciles.Load() - before; n > 3 {
		t.Errorf("%d passes in 3 s after the refusal: not backing off", n)
	}
	if calls := h.sim.CallCounts(); len(calls) != 0 {
		t.Errorf("EC2 was called for an unknown region: %v", calls)
	}
	h.deleteObject("mars")
	h.waitGone("mars")
}
