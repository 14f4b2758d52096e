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
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// TestThrottledAnswersAreCountedInBurstsPerAPI checks how the ceilings count a
// learning manager's throttles: answers of one API within a second of the first make
// one burst, a later one or another API's starts a new burst, and successes between
// them change nothing.
func TestThrottledAnswersAreCountedInBurstsPerAPI(t *testing.T) {
	start := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	at := func(ms int, op, code string) ec2sim.Request {
		return ec2sim.Request{Time: start.Add(time.Duration(ms) * time.Millisecond), Operation: op, ErrorCode: code}
	}
	log := []ec2sim.Request{
		at(0, "RunInstances", "RequestLimitExceeded"),
		at(100, "DescribeInstances", "RequestLimitExceeded"),
		at(200, "RunInstances", ""),
		at(400, "RunInstances", "RequestLimitExceeded"),
		at(900, "RunInstances", "RequestLimitExceeded"),
		at(1500, "RunInstances", "RequestLimitExceeded"),
		at(1600, "DescribeInstances", "InvalidInstanceID.NotFound"),
	}
	bursts, largest := throttleBursts(log)
	if bursts != 3 || largest != 3 {
		t.Fatalf("bursts %d, largest %d; want 3 bursts (RunInstances at 0 and 1.5 s, DescribeInstances), the largest of 3", bursts, largest)
	}
	if b, l := throttleBursts(nil); b != 0 || l != 0 {
		t.Fatalf("an empty log has %d bursts, the largest %d", b, l)
	}
}

// TestAThrottledCallAndItsRepeatCountOnce: a learning phase's throttled calls are sent
// again, and the per-instance ceilings count the two as one, up to the answers the
// burst ceilings allow; a manager that keeps to limits it is told gets no allowance.
func TestAThrottledCallAndItsRepeatCountOnce(t *testing.T) {
	p := phase{n: 100, calls: map[string]int{"DisassociateAddress": 101, "DescribeInstances": 20},
		throttledBy: map[string]int{"DisassociateAddress": 1}, learning: true}
	if got := callsOf("DisassociateAddress")(p); got != 1.0 {
		t.Errorf("101 calls, one of them throttled, for 100 objects count %v per object, want 1", got)
	}
	if got := callsOf("DescribeInstances")(p); got != 0.2 {
		t.Errorf("20 calls for 100 objects count %v per object, want 0.2", got)
	}
	p.throttledBy["DisassociateAddress"] = 50
	if got, want := callsOf("DisassociateAddress")(p), (101-throttleAllowance(p))/100; got != want {
		t.Errorf("with 50 throttled the count is %v, want %v (only the allowance counts once)", got, want)
	}
	p.learning, p.throttledBy["DisassociateAddress"] = false, 1
	if got := callsOf("DisassociateAddress")(p); got != 1.01 {
		t.Errorf("a pinned manager's throttled call counted %v per object, want 1.01", got)
	}
}
