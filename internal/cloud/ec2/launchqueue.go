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

package ec2

import (
	"sort"
	"time"

	"golang.org/x/time/rate"
)

// Launches take their turns in the RunInstances budget in the order they first asked
// (launchTurn). EC2 allows two launches a second by default, so a bulk create of a
// hundred objects waits up to fifty seconds; each object is told when its turn comes,
// from its place in line, and comes back then, instead of all of them coming back
// together every second and leaving gaps in the budget between their returns. An
// object whose turn has come gets a ticket: the tokens are taken then, and its
// RunInstances call spends them, so that no other call can take them in between.
const (
	// admitWait is how far ahead a launch may be given its tokens: its pass then
	// waits for them inside the RunInstances call (under maxWait).
	admitWait = 500 * time.Millisecond
	// turnLead is how much before its turn a waiting launch is told to come back, so
	// that its pass is running when the tokens are there.
	turnLead = 200 * time.Millisecond
	// probingHold is the longest a launch waits before asking again while the
	// RunInstances budget may still learn a higher rate: when it does, the turns come
	// sooner than they were told.
	probingHold = 5 * time.Second
	// pinnedHold is the longest a launch waits before asking again otherwise, so
	// that launches behind ones that were deleted move up.
	pinnedHold = time.Minute
	// ticketGrace is how late a ticket may be spent: later, its tokens are given up
	// (the client spent them, EC2 did not) and the call takes new ones, so that late
	// launches never reach EC2 together, more of them than its bucket holds.
	ticketGrace = time.Second
	// staleAfter is how long after it was due back a waiting launch is forgotten (its
	// object was deleted, or launched through another path).
	staleAfter = 10 * time.Second
)

// ticket is a launch admitted by launchTurn: the tokens it reserved, and when they
// are there.
type ticket struct {
	reservations []*rate.Reservation
	at           time.Time
}

// launchQueue is the launches waiting for their turn, in the order they first asked.
type launchQueue struct {
	waiting []*queuedLaunch
	byToken map[string]*queuedLaunch
	nextSeq uint64
	swept   time.Time
}

// queuedLaunch is one waiting launch: its place in line and when it is due back.
type queuedLaunch struct {
	token string
	seq   uint64
	due   time.Time
}

// rank is how many launches wait ahead of token: its place if it waits, else the
// end of the line, which it joins.
func (q *launchQueue) rank(token string) int {
	e, ok := q.byToken[token]
	if !ok {
		return len(q.waiting)
	}
	return sort.Search(len(q.waiting), func(i int) bool { return q.waiting[i].seq >= e.seq })
}

// hold records that token waits, due back at due.
func (q *launchQueue) hold(token string, due time.Time) {
	if q.byToken == nil {
		q.byToken = map[string]*queuedLaunch{}
	}
	if e, ok := q.byToken[token]; ok {
		e.due = due
		return
	}
	q.nextSeq++
	e := &queuedLaunch{token: token, seq: q.nextSeq, due: due}
	q.byToken[token] = e
	q.waiting = append(q.waiting, e)
}

// remove takes token out of the line.
func (q *launchQueue) remove(token string) {
	if _, ok := q.byToken[token]; !ok {
		return
	}
	i := q.rank(token)
	q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
	delete(q.byToken, token)
}

// sweep forgets, at most once a second, the launches that did not come back.
func (q *launchQueue) sweep(now time.Time) {
	if now.Sub(q.swept) < time.Second {
		return
	}
	q.swept = now
	kept := q.waiting[:0]
	for _, e := range q.waiting {
		if now.Sub(e.due) > staleAfter {
			delete(q.byToken, e.token)
			continue
		}
		kept = append(kept, e)
	}
	clear(q.waiting[len(kept):])
	q.waiting = kept
}

// launchTurn says whether the launch under token may be sent now (zero: its tokens
// are reserved for its RunInstances call) or how long it should wait before asking
// again.
func (p *pacer) launchTurn(now time.Time, token string) time.Duration {
	if p.limits == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropLateTickets(now)
	if _, ok := p.tickets[token]; ok {
		return 0
	}
	p.queue.sweep(now)
	call := callCost{operation: "RunInstances", resources: 1, clientToken: token}
	rank := p.queue.rank(token)
	eta := p.turnIn(now, rank)
	if eta <= admitWait {
		rs, err := p.reserveLocked(now, call)
		if err != nil {
			// A bucket that cannot hold one launch: the call itself says so.
			return 0
		}
		p.tickets[token] = ticket{reservations: rs, at: now.Add(delayOf(now, rs))}
		p.queue.remove(token)
		return 0
	}
	for _, bu := range p.budgetsOf(now, call) {
		bu.backlogged(now)
	}
	hold := min(eta-turnLead, p.longestHold(now))
	p.queue.hold(token, now.Add(hold))
	return hold
}

// launchBacklog is about how long the launches waiting now take to be sent: zero
// when none waits.
func (p *pacer) launchBacklog(now time.Time) time.Duration {
	if p.limits == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue.waiting) == 0 {
		return 0
	}
	return p.turnIn(now, len(p.queue.waiting))
}

// turnIn is when the launch rank places back in line can be sent: when every
// RunInstances bucket (requests, and resource tokens) holds a token for it and for
// each launch ahead of it; p.mu is held.
func (p *pacer) turnIn(now time.Time, rank int) time.Duration {
	var eta time.Duration
	for _, bu := range p.budgetsOf(now, callCost{operation: "RunInstances", resources: 1}) {
		eta = max(eta, bu.timeFor(now, float64(rank+1)))
	}
	return eta
}

// longestHold is probingHold while the RunInstances budget may still learn a higher
// rate, pinnedHold otherwise.
func (p *pacer) longestHold(now time.Time) time.Duration {
	if bu := p.request["RunInstances"]; bu != nil && bu.learn && !now.Before(bu.quietUntil) {
		return probingHold
	}
	return pinnedHold
}

// takeTicket returns the launch ticket of a RunInstances call, if it has one that is
// not too late; p.mu is held.
func (p *pacer) takeTicket(now time.Time, call callCost) (ticket, bool) {
	if call.operation != "RunInstances" || call.clientToken == "" {
		return ticket{}, false
	}
	t, ok := p.tickets[call.clientToken]
	if !ok {
		return ticket{}, false
	}
	delete(p.tickets, call.clientToken)
	return t, now.Sub(t.at) <= ticketGrace
}

// dropLateTickets forgets tickets that were not spent in time; p.mu is held.
func (p *pacer) dropLateTickets(now time.Time) {
	for token, t := range p.tickets {
		if now.Sub(t.at) > ticketGrace {
			delete(p.tickets, token)
		}
	}
}
