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
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
)

// These tests run Wait on the wall clock, since it sleeps on timers; the delays are
// EC2's documented refill (two tokens a second), so each takes about half a second.

// drain spends a bucket's burst, so that the next call of that kind waits.
func drain(t *testing.T, p *Pacer, call Cost) {
	t.Helper()
	for range 100 {
		a, err := p.admit(time.Now(), call)
		if err != nil {
			t.Fatal(err)
		}
		if a.delay > 0 {
			cancelAll(time.Now(), a.reservations)
			return
		}
	}
	t.Fatalf("%s never waited", call.operation)
}

// waitFor polls, for at most two seconds, until cond holds under the pacer's lock.
func waitFor(t *testing.T, p *Pacer, what string, cond func() bool) {
	t.Helper()
	for range 200 {
		p.mu.Lock()
		ok := cond()
		p.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

type waitResult struct {
	name string
	err  error
	took time.Duration
}

// TestCallsWaitingForTokensReservedBeforeAThrottleAreAdmittedAgain: two launches wait
// half a second and a second for tokens reserved at the documented rate when EC2
// throttles a launch. They are admitted again at the rate the throttle left, which
// refuses them (more than maxWait away) at once, instead of both reaching EC2's empty
// bucket when their old times come. A StartInstances waiting at the same time, on its
// own API's budget, goes at its time.
func TestCallsWaitingForTokensReservedBeforeAThrottleAreAdmittedAgain(t *testing.T) {
	limits := ec2limits.Documented()
	p := New(&limits, 0, 2*time.Second)
	launch := Cost{operation: "RunInstances", resources: 1}
	start := Cost{operation: "StartInstances", resources: 1}
	drain(t, p, launch)
	drain(t, p, start)

	results := make(chan waitResult, 3)
	begin := time.Now()
	send := func(name string, call Cost) {
		err := p.Wait(context.Background(), call)
		results <- waitResult{name, err, time.Since(begin)}
	}
	go send("start", start)
	waitFor(t, p, "the start to be admitted", func() bool { return p.request["StartInstances"].lim.TokensAt(time.Now()) < -0.5 })
	go send("first launch", launch)
	waitFor(t, p, "the first launch to be admitted", func() bool { return p.request["RunInstances"].lim.TokensAt(time.Now()) < -0.5 })
	go send("second launch", launch)
	waitFor(t, p, "the second launch to be admitted", func() bool { return p.request["RunInstances"].lim.TokensAt(time.Now()) < -1.5 })
	p.Throttled(launch, "RequestLimitExceeded")

	got := map[string]waitResult{}
	for range 3 {
		select {
		case r := <-results:
			got[r.name] = r
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d of 3 calls returned", len(got))
		}
	}
	for _, name := range []string{"first launch", "second launch"} {
		r := got[name]
		var refused *awserrors.Error
		if !errors.As(r.err, &refused) || refused.Code != awserrors.CodeClientRateLimited {
			t.Errorf("the %s returned %v after %s, want ClientRateLimited: its tokens were reserved at a rate EC2 refused", name, r.err, r.took)
		} else if r.took > 400*time.Millisecond {
			t.Errorf("the %s was refused after %s, want at the throttle", name, r.took)
		}
	}
	if r := got["start"]; r.err != nil || r.took < 300*time.Millisecond {
		t.Errorf("the start returned %v after %s, want nil after its half second", r.err, r.took)
	}
}

// TestAWaitingCallGivesUpItsTokensWhenItsContextEnds: a call whose reconcile gives up
// gives its tokens back, so that the next call does not wait for them.
func TestAWaitingCallGivesUpItsTokensWhenItsContextEnds(t *testing.T) {
	limits := ec2limits.Documented()
	p := New(&limits, 0, 2*time.Second)
	launch := Cost{operation: "RunInstances", resources: 1}
	drain(t, p, launch)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := p.Wait(ctx, launch); err == nil {
		t.Fatal("a call whose context ended went anyway")
	}
	a, err := p.admit(time.Now(), launch)
	if err != nil {
		t.Fatal(err)
	}
	if a.delay > 450*time.Millisecond {
		t.Errorf("the next launch waits %s: the tokens of the call that gave up were kept", a.delay)
	}
}

// TestAWaitingCallCountsAsSentWhenItLeaves: a throttle estimates the account's rate
// from what EC2 took since its bucket was full (budget.episodeRate); a call still
// asleep in the client took nothing yet.
func TestAWaitingCallCountsAsSentWhenItLeaves(t *testing.T) {
	limits := ec2limits.Documented()
	p := New(&limits, 0, 2*time.Second)
	launch := Cost{operation: "RunInstances", resources: 1}
	now := time.Unix(1000, 0)
	var a admission
	for range 100 {
		var err error
		if a, err = p.admit(now, launch); err != nil {
			t.Fatal(err)
		}
		if a.delay > 0 {
			break
		}
	}
	bu := p.request["RunInstances"]
	sentBefore := bu.episodeSent
	if sentBefore != float64(bu.lim.Burst()) {
		t.Fatalf("%v sent after a burst of %d", sentBefore, bu.lim.Burst())
	}
	p.departed(now.Add(a.delay), launch, a)
	if bu.episodeSent != sentBefore+1 {
		t.Errorf("%v sent after the waiting call left, want %v", bu.episodeSent, sentBefore+1)
	}
}
