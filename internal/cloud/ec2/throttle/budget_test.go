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

package throttle

import (
	"math"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func newBudget(full float64) *budget {
	return &budget{lim: rate.NewLimiter(rate.Limit(full), 10), full: full, current: full}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestABudgetHalvesOncePerSecondOfThrottlesDownToItsFloor(t *testing.T) {
	b := newBudget(10)
	t0 := time.Unix(1000, 0)
	b.cut(t0)
	b.cut(t0.Add(300 * time.Millisecond)) // the same burst of throttles
	if !near(b.current, 5) || float64(b.lim.Limit()) != b.current {
		t.Fatalf("after one burst of throttles the rate is %v (limiter %v), want 5", b.current, b.lim.Limit())
	}
	// A throttle every second: each second regains a tenth of the documented rate and
	// the cut halves it, which settles at the floor.
	now := t0
	for range 30 {
		now = now.Add(cutSpacing)
		b.cut(now)
	}
	if b.current < 1 || b.current > 1.001 {
		t.Fatalf("after a throttle every second for 30 s the rate is %v, want the floor of 1", b.current)
	}
}

func TestABudgetRegainsItsRateLinearlyWithoutThrottles(t *testing.T) {
	b := newBudget(10)
	t0 := time.Unix(1000, 0)
	b.cut(t0)
	b.regain(t0.Add(2 * time.Second))
	if !near(b.current, 7) {
		t.Fatalf("two seconds after a cut to 5 the rate is %v, want 7", b.current)
	}
	b.regain(t0.Add(time.Minute))
	if !near(b.current, 10) || float64(b.lim.Limit()) != 10 {
		t.Fatalf("a minute later the rate is %v (limiter %v), want the documented 10", b.current, b.lim.Limit())
	}
}
