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

package bench

import (
	"math"
	"testing"
)

// TestReconcileQuantilesAreInterpolatedAsPrometheusDoes checks the histogram
// arithmetic the bench reports with: cumulative buckets, a delta between scrapes,
// and linear interpolation within a bucket.
func TestReconcileQuantilesAreInterpolatedAsPrometheusDoes(t *testing.T) {
	before := reconcileHistogram{0.01: 10, 0.1: 10, 1: 10, math.Inf(1): 10}
	after := reconcileHistogram{0.01: 60, 0.1: 100, 1: 109, math.Inf(1): 110}
	h := after.since(before)
	if h.count() != 100 {
		t.Fatalf("count %v, want 100", h.count())
	}
	for _, tc := range []struct{ q, want float64 }{
		{0.25, 0.005}, // 25 of the 50 in (0, 0.01]
		{0.5, 0.01},
		{0.7, 0.01 + 0.09*20/40},
		{0.99, 1}, // the 99th falls in (0.1, 1], all of whose 9 it needs
		{1, 1},    // in +Inf: the highest finite bound
	} {
		if got := h.quantile(tc.q); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("q%v = %v, want %v", tc.q, got, tc.want)
		}
	}
	if !math.IsNaN((reconcileHistogram{}).quantile(0.5)) {
		t.Error("an empty histogram has a quantile")
	}
}
