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
	"fmt"
	"time"

	"golang.org/x/time/rate"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// A call that must wait for its tokens holds them while it sleeps, reserved at the
// rate of the moment it asked. When EC2 throttles that API meanwhile, the rate is cut
// and EC2's bucket is empty: a call still asleep would reach EC2 at its old time and be
// throttled too, and while a learning budget climbs, up to maxWait of calls are asleep
// (the climb is eightfold a second). So a throttle wakes the waiting calls (cutNotice);
// each one whose budget was cut gives its tokens back and is admitted again at the new
// rate, which may refuse it (ClientRateLimited, retried with its reconcile as any
// refused call). A call waiting on another API's budget sleeps on.

// maxAdmissions bounds how often one call is admitted: after as many cuts, it waits
// for the tokens it holds however the rate changes, so that a run of throttles cannot
// keep a call going round.
const maxAdmissions = 3

// admission is one call's place in its budgets: the tokens it reserved, how long it
// waits for them, its budgets and how many times each had been cut when it was
// admitted, and the notice a later cut closes.
type admission struct {
	reservations []*rate.Reservation
	delay        time.Duration
	budgets      []*budget
	cuts         []uint64
	notice       <-chan struct{}
}

// wasCut reports whether a budget of the admission was cut since; p.mu is held.
func (a *admission) wasCut() bool {
	for i, bu := range a.budgets {
		if bu.cuts != a.cuts[i] {
			return true
		}
	}
	return false
}

// Wait blocks until the call's buckets allow it, or fails at once with
// awserrors.CodeClientRateLimited (and when the call may go) if that is more than
// maxWait away. A launch admitted by LaunchTurn spends the tokens it was given then.
func (p *Pacer) Wait(ctx context.Context, call Cost) error {
	for admissions := 1; ; admissions++ {
		a, err := p.admit(time.Now(), call)
		if err != nil || a.delay == 0 {
			return err
		}
		if admissions == maxAdmissions {
			a.notice = nil
		}
		again, err := p.sleep(ctx, call, a)
		if !again {
			return err
		}
	}
}

// sleep waits for an admission's tokens. It reports again when a throttle cut one of
// the call's budgets meanwhile: the tokens are given back, and the call must be
// admitted again. A nil notice sleeps through cuts.
func (p *Pacer) sleep(ctx context.Context, call Cost, a admission) (again bool, err error) {
	t := time.NewTimer(a.delay)
	defer t.Stop()
	notice := a.notice
	for {
		select {
		case <-t.C:
			p.departed(time.Now(), call, a)
			return false, nil
		case <-ctx.Done():
			cancelAll(time.Now(), a.reservations)
			return false, awserrors.Classify(call.operation, ctx.Err())
		case <-notice:
			p.mu.Lock()
			cut := a.wasCut()
			if cut {
				cancelAll(time.Now(), a.reservations)
			}
			notice = p.cutNotice
			p.mu.Unlock()
			if cut {
				return true, nil
			}
		}
	}
}

// admit takes the call's tokens (or its launch ticket) and says how long the call
// must wait for them; a call that would wait longer than maxWait takes nothing and
// fails with awserrors.CodeClientRateLimited. A call that waits at all marks its
// budgets as backlogged, which is what lets a learning budget probe. A call that goes
// at once counts as sent now; one that waits, when it leaves (departed).
func (p *Pacer) admit(now time.Time, call Cost) (admission, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a := admission{notice: p.cutNotice}
	if t, ok := p.takeTicket(now, call); ok {
		a.reservations, a.delay, a.budgets = t.reservations, max(0, t.at.Sub(now)), p.budgetsOf(now, call)
	} else {
		rs, budgets, err := p.reserveLocked(now, call)
		if err != nil {
			return admission{}, &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: call.operation, Code: awserrors.CodeClientRateLimited, Message: err.Error()}
		}
		a.reservations, a.delay, a.budgets = rs, delayOf(now, rs), budgets
		if a.delay > 0 {
			for _, bu := range budgets {
				bu.backlogged(now)
			}
		}
		if a.delay > p.maxWait {
			cancelAll(now, rs)
			return admission{}, &awserrors.Error{Kind: awserrors.KindThrottled, Operation: call.operation, Code: awserrors.CodeClientRateLimited, RetryAfter: a.delay,
				Message: fmt.Sprintf("the %s budget allows this call in %s; not waiting that long", call.operation, a.delay.Round(time.Millisecond))}
		}
	}
	for _, bu := range a.budgets {
		a.cuts = append(a.cuts, bu.cuts)
	}
	if a.delay == 0 {
		countSent(now, call, a.budgets)
	}
	return a, nil
}

// departed records that a call which waited for its tokens leaves now. Until then
// it was not counted as sent: a throttle meanwhile estimates the account's rate from
// what EC2 took (budget.episodeRate), and calls still asleep in the client took nothing.
func (p *Pacer) departed(now time.Time, call Cost, a admission) {
	p.mu.Lock()
	defer p.mu.Unlock()
	countSent(now, call, a.budgets)
}

// countSent records a call's tokens in its budgets' episodes (budget.admitted): one
// request, and the resources of its resource budget; p.mu is held.
func countSent(now time.Time, call Cost, budgets []*budget) {
	for i, bu := range budgets {
		n := 1.0
		if i > 0 {
			n = float64(call.resources)
		}
		bu.admitted(now, n)
	}
}

// delayOf is how long the longest of the reservations waits.
func delayOf(now time.Time, rs []*rate.Reservation) time.Duration {
	var d time.Duration
	for _, r := range rs {
		d = max(d, r.DelayFrom(now))
	}
	return d
}
