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

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
)

// These tests drive the pacer on a simulated clock against EC2's token bucket as the
// EC2 Developer Guide describes it (ec2limits.TokenBucket), so that the rules that
// learn and keep to an account's limits are checked exactly, second by second. The
// emulator-backed tests (pacer_test.go) and `make bench` check the same over HTTP.

// bulkResult is what a simulated bulk of launches cost.
type bulkResult struct {
	took      time.Duration
	throttled int
	calls     int
}

// simulateBulk sends n RunInstances calls as fast as the pacer allows, one after
// another, each reaching EC2 a few milliseconds after it leaves, and feeds EC2's
// refusals back to the pacer as the client's middleware does.
func simulateBulk(p *Pacer, ec2 *ec2limits.TokenBucket, start time.Time, n int) (bulkResult, time.Time) {
	const network = 5 * time.Millisecond
	call := Cost{operation: "RunInstances", resources: 1}
	now := start
	var r bulkResult
	for sent := 0; sent < n && r.calls < 10*n; {
		a, err := p.admit(now, call)
		if err != nil {
			panic(err)
		}
		if a.delay > 0 {
			now = now.Add(a.delay)
			p.departed(now, call, a)
		}
		r.calls++
		if ec2.Take(1, now.Add(network)) {
			sent++
			continue
		}
		r.throttled++
		p.throttledAt(now.Add(2*network), call, "RequestLimitExceeded")
	}
	r.took = now.Sub(start)
	return r, now
}

func learningPacer(learn bool) *Pacer {
	limits := ec2limits.Documented()
	p := New(&limits, 0, time.Hour)
	p.Learn = learn
	return p
}

func TestALearningPacerFindsALimitRaisedTenfold(t *testing.T) {
	t0 := time.Unix(1000, 0)
	raised := ec2limits.Documented().Scaled(10).Request("RunInstances")
	p := learningPacer(true)
	r, _ := simulateBulk(p, ec2limits.NewTokenBucket(raised, t0), t0, 1000)
	floor := time.Duration((1000 - raised.Capacity) / raised.RefillPerSecond * float64(time.Second))
	t.Logf("1,000 launches took %s (floor %s), %d of %d calls throttled", r.took, floor, r.throttled, r.calls)
	if r.took > floor*12/10 {
		t.Errorf("1,000 launches took %s, more than 20 %% over the account's floor of %s", r.took, floor)
	}
	if float64(r.throttled) >= 0.02*float64(r.calls) {
		t.Errorf("%d of %d calls throttled, want under 2 %%", r.throttled, r.calls)
	}
	if got := p.request["RunInstances"].current; got < 2*raised.RefillPerSecond/3 {
		t.Errorf("the learned rate is %.1f/s, want near the account's %.0f/s", got, raised.RefillPerSecond)
	}
}

// TestALearningPacerClimbsQuicklyToALimitRaisedTenfold: a hundred launches against
// an account whose limits AWS raised tenfold (a bucket of 50, 20 a second) that
// nobody configured. The rate grows eightfold a second while calls wait and nothing
// is throttled, and the first throttle's estimate sets it near the account's rate,
// so the hundred take at most half again the account's floor, with the first
// throttle and the call behind it the only ones.
func TestALearningPacerClimbsQuicklyToALimitRaisedTenfold(t *testing.T) {
	t0 := time.Unix(1000, 0)
	raised := ec2limits.Documented().Scaled(10).Request("RunInstances")
	p := learningPacer(true)
	r, _ := simulateBulk(p, ec2limits.NewTokenBucket(raised, t0), t0, 100)
	floor := time.Duration((100 - raised.Capacity) / raised.RefillPerSecond * float64(time.Second))
	t.Logf("100 launches took %s (floor %s), %d of %d calls throttled", r.took, floor, r.throttled, r.calls)
	if r.took > floor*3/2 {
		t.Errorf("100 launches took %s, more than half again the account's floor of %s", r.took, floor)
	}
	if r.throttled > 2 {
		t.Errorf("%d of %d calls throttled, want at most 2", r.throttled, r.calls)
	}
	if bu := p.request["RunInstances"]; bu.ceiling < raised.RefillPerSecond*3/4 || bu.ceiling > raised.RefillPerSecond*5/4 {
		t.Errorf("the first throttle estimated the account's rate at %.1f/s, want near %.0f/s", bu.ceiling, raised.RefillPerSecond)
	}
}

func TestALearningPacerAtTheDocumentedLimitProbesOnceAndThenKeepsToIt(t *testing.T) {
	t0 := time.Unix(1000, 0)
	documented := ec2limits.Documented().Request("RunInstances")
	ec2 := ec2limits.NewTokenBucket(documented, t0)
	p := learningPacer(true)
	r, now := simulateBulk(p, ec2, t0, 100)
	floor := time.Duration((100 - documented.Capacity) / documented.RefillPerSecond * float64(time.Second))
	t.Logf("100 launches took %s (floor %s), %d of %d calls throttled", r.took, floor, r.throttled, r.calls)
	if r.took > floor*105/100 {
		t.Errorf("100 launches took %s, more than 5 %% over the floor of %s", r.took, floor)
	}
	if r.throttled > 2 {
		t.Errorf("%d throttled answers, want at most the probe's 2", r.throttled)
	}
	// The limit is known for a while: the next bulk is not throttled at all.
	again, _ := simulateBulk(p, ec2, now, 100)
	if again.throttled != 0 {
		t.Errorf("the next bulk was throttled %d times; the documented limit was already found", again.throttled)
	}
}

func TestAPinnedPacerNeverExceedsItsLimits(t *testing.T) {
	t0 := time.Unix(1000, 0)
	raised := ec2limits.Documented().Scaled(10).Request("RunInstances")
	p := learningPacer(false)
	r, _ := simulateBulk(p, ec2limits.NewTokenBucket(raised, t0), t0, 100)
	// Four at once (one token of five kept back), then two a second.
	if want := 48 * time.Second; r.took < want-time.Second || r.took > want+time.Second || r.throttled != 0 {
		t.Errorf("100 pinned launches took %s with %d throttled, want about %s and none", r.took, r.throttled, want)
	}
}

func TestALearningPacerWithoutABacklogDoesNotProbe(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := learningPacer(true)
	call := Cost{operation: "DescribeInstances", filtered: true}
	now := t0
	for range 60 {
		if a, err := p.admit(now, call); err != nil || a.delay != 0 {
			t.Fatalf("a call a second waited %s (%v)", a.delay, err)
		}
		now = now.Add(time.Second)
	}
	if bu := p.request["DescribeInstances"]; bu.current != bu.full {
		t.Errorf("after a minute without a backlog the rate is %v, want the documented %v", bu.current, bu.full)
	}
}

func TestLaunchesTakeTheirTurnsInTheOrderTheyAsked(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := learningPacer(false)
	tokens := make([]string, 12)
	due := map[string]time.Time{}
	for i := range tokens {
		tokens[i] = fmt.Sprintf("launch-%02d", i)
		if wait := p.LaunchTurn(t0, tokens[i], "ns"); wait > 0 {
			due[tokens[i]] = t0.Add(wait)
		}
	}
	// The burst (four of five tokens) and the half-second after it are admitted at
	// once; the others are told their turns, half a second apart, in order.
	if len(due) != 7 {
		t.Fatalf("%d of 12 launches were told to wait, want 7", len(due))
	}
	for i := 6; i < len(tokens); i++ {
		gap := due[tokens[i]].Sub(due[tokens[i-1]])
		if gap < 450*time.Millisecond || gap > 550*time.Millisecond {
			t.Errorf("%s is due %s after %s, want half a second", tokens[i], gap, tokens[i-1])
		}
	}
	// Each comes back when told, is admitted, and its RunInstances call spends the
	// ticket without waiting more than the admission allows.
	for i := 5; i < len(tokens); i++ {
		at := due[tokens[i]]
		if wait := p.LaunchTurn(at, tokens[i], "ns"); wait != 0 {
			t.Fatalf("%s came back when told and was told to wait %s more", tokens[i], wait)
		}
		a, err := p.admit(at, Cost{operation: "RunInstances", resources: 1, clientToken: tokens[i]})
		if err != nil || a.delay > admitWait {
			t.Fatalf("%s's launch waited %s (%v)", tokens[i], a.delay, err)
		}
	}
}

func TestALaunchThatDoesNotComeBackGivesUpItsPlace(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := learningPacer(false)
	for i := range 6 {
		p.LaunchTurn(t0, fmt.Sprintf("early-%d", i), "ns")
	}
	gone := p.LaunchTurn(t0, "deleted", "ns") // its object is deleted: it never asks again
	behind := p.LaunchTurn(t0, "behind", "ns")
	if gone <= 0 || behind <= gone {
		t.Fatalf("waits %s and %s, want the second after the first", gone, behind)
	}
	later := t0.Add(gone + staleAfter + 2*time.Second)
	if got := p.LaunchTurn(later, "behind", "ns"); got != 0 {
		t.Errorf("the launch behind one that never came back still waits %s", got)
	}
	if _, ok := p.queue.byToken["deleted"]; ok {
		t.Error("the launch that never came back is still in line")
	}
}

func TestALateTicketIsGivenUpAndTheLaunchTakesNewTokens(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := learningPacer(false)
	if wait := p.LaunchTurn(t0, "slow", "ns"); wait != 0 {
		t.Fatalf("the first launch waits %s", wait)
	}
	late := t0.Add(ticketGrace + time.Second)
	if _, ok := p.takeTicket(late, Cost{operation: "RunInstances", clientToken: "slow"}); ok {
		t.Error("a ticket spent later than its grace still served")
	}
	if _, ok := p.tickets["slow"]; ok {
		t.Error("the late ticket was kept")
	}
}

// TestAThrottledLaunchGivesBackTheTicketsOfLaunchesNotSentYet: tickets are handed
// out up to admitWait ahead at the rate the client climbed to; once EC2 throttles a
// launch, those not spent yet are given back, so that they do not all reach EC2's
// empty bucket, and their launches take tokens at the rate the throttle left.
func TestAThrottledLaunchGivesBackTheTicketsOfLaunchesNotSentYet(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := learningPacer(true)
	for i := range 6 {
		p.LaunchTurn(t0, fmt.Sprintf("launch-%d", i), "ns")
	}
	if len(p.tickets) == 0 {
		t.Fatal("no launch was given a ticket")
	}
	p.throttledAt(t0.Add(10*time.Millisecond), Cost{operation: "RunInstances", resources: 1}, "RequestLimitExceeded")
	if n := len(p.tickets); n != 0 {
		t.Errorf("%d tickets kept after a throttled launch", n)
	}
}
