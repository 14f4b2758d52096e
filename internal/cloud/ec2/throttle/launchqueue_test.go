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
	"fmt"
	"testing"
	"time"
)

// TestLaunchesOfTenantsTakeTurns fills the RunInstances line with a thousand launches
// of one namespace, then asks for one launch of another: it goes second in line, not
// after the backlog. Then the order of a mixed line is checked: round by round, the
// tenants in the order their first launch asked.
func TestLaunchesOfTenantsTakeTurns(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := learningPacer(false)
	for i := range 1000 {
		p.LaunchTurn(t0, fmt.Sprintf("big-%04d", i), "bulk")
	}
	if got := len(p.queue.waiting); got < 990 {
		t.Fatalf("%d launches wait, want the backlog (all but the burst)", got)
	}
	wait := p.LaunchTurn(t0, "small-0", "team")
	if rank := p.queue.rank("small-0", "team"); rank != 1 {
		t.Errorf("the other namespace's launch is %d-th in line, want second (after the backlog's first)", rank+1)
	}
	// Two launches a second: second in line is about a second away, never the
	// backlog's eight minutes.
	if wait > 2*time.Second {
		t.Errorf("the other namespace's launch waits %s behind a backlog of another", wait)
	}

	// Served in turns: after the backlog's first launch is sent, the other
	// namespace's is next.
	first := p.queue.waiting[0].token
	p.queue.remove(first, true)
	if rank := p.queue.rank("small-0", "team"); rank != 0 {
		t.Errorf("after %s was sent, the other namespace's launch is %d-th in line, want first", first, rank+1)
	}

	q := &launchQueue{}
	for _, l := range []struct{ token, tenant string }{{"a1", "a"}, {"a2", "a"}, {"a3", "a"}, {"b1", "b"}, {"c1", "c"}, {"b2", "b"}} {
		q.hold(l.token, l.tenant, t0)
	}
	for want, token := range []string{"a1", "b1", "c1", "a2", "b2", "a3"} {
		if got := q.rank(token, ""); got != want {
			t.Errorf("%s ranks %d, want %d (a1 b1 c1 a2 b2 a3)", token, got, want)
		}
	}
	q.remove("a1", true)
	q.remove("b1", true)
	// d asks now: it joins the round after the one last sent, behind what is left of
	// that round (c1) and the tenants already in the next (a2, b2), ahead of a3.
	if got := q.rank("d1", "d"); got != 3 {
		t.Errorf("a new tenant's first launch ranks %d, want 3 (after c1, a2 and b2, before a3)", got)
	}
}
