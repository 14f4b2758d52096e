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
	"sort"
	"time"

	"golang.org/x/time/rate"
)

// Launches take their turns in the RunInstances budget in the order they first asked
// (launchTurn), tenant by tenant: the tenants (namespaces) with launches waiting take
// turns, one launch each, so that a namespace with a backlog of a thousand holds back
// another namespace's one launch by one launch per waiting tenant, not by the backlog.
// Round-robin rather than weighted: namespaces are the unit a platform team hands
// out, and nothing in an EC2Instance says one deserves more launches than another. EC2 allows two launches a second by default, so a bulk create of a
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

// launchQueue is the launches waiting for their turn, in the order they go: by their
// round, then by when they first asked. Rounds are start-time fair queuing: a tenant's
// launch goes in the round after its tenant's previous one, and never in a round that
// has already gone (the round of the launch last sent), so a tenant that starts asking
// behind another's backlog goes in the next round, one launch per waiting tenant away.
type launchQueue struct {
	waiting []*queuedLaunch
	byToken map[string]*queuedLaunch
	// lastRound is the round of each tenant's last launch to join the line.
	lastRound map[string]uint64
	// sent is the round of the launch last sent.
	sent    uint64
	nextSeq uint64
	swept   time.Time
}

// queuedLaunch is one waiting launch: whose it is, its round, its place among those
// that asked, and when it is due back.
type queuedLaunch struct {
	token, tenant string
	round, seq    uint64
	due           time.Time
}

// before reports whether a goes before b.
func (e *queuedLaunch) before(round, seq uint64) bool {
	return e.round < round || (e.round == round && e.seq < seq)
}

// place is where a launch of that round and seq goes in line.
func (q *launchQueue) place(round, seq uint64) int {
	return sort.Search(len(q.waiting), func(i int) bool { return !q.waiting[i].before(round, seq) })
}

// nextRound is the round a new launch of tenant joins.
func (q *launchQueue) nextRound(tenant string) uint64 {
	return max(q.sent, q.lastRound[tenant]) + 1
}

// rank is how many launches go before token: its place if it waits, else where a
// launch of tenant joins.
func (q *launchQueue) rank(token, tenant string) int {
	if e, ok := q.byToken[token]; ok {
		return q.place(e.round, e.seq)
	}
	return q.place(q.nextRound(tenant), q.nextSeq+1)
}

// hold records that token (a launch of tenant) waits, due back at due.
func (q *launchQueue) hold(token, tenant string, due time.Time) {
	if q.byToken == nil {
		q.byToken, q.lastRound = map[string]*queuedLaunch{}, map[string]uint64{}
	}
	if e, ok := q.byToken[token]; ok {
		e.due = due
		return
	}
	q.nextSeq++
	e := &queuedLaunch{token: token, tenant: tenant, round: q.nextRound(tenant), seq: q.nextSeq, due: due}
	q.lastRound[tenant] = e.round
	q.byToken[token] = e
	i := q.place(e.round, e.seq)
	q.waiting = append(q.waiting, nil)
	copy(q.waiting[i+1:], q.waiting[i:])
	q.waiting[i] = e
}

// remove takes token out of the line; sent says it leaves because it is sent, which
// moves the rounds on.
func (q *launchQueue) remove(token string, sent bool) {
	e, ok := q.byToken[token]
	if !ok {
		return
	}
	i := q.place(e.round, e.seq)
	q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
	delete(q.byToken, token)
	if sent {
		q.sent = max(q.sent, e.round)
	}
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
	// A tenant whose last round has gone joins at the next round anyway.
	for tenant, round := range q.lastRound {
		if round <= q.sent {
			delete(q.lastRound, tenant)
		}
	}
}

// launchTurn says whether the launch under token, of tenant, may be sent now (zero:
// its tokens are reserved for its RunInstances call) or how long it should wait before
// asking again.
func (p *Pacer) LaunchTurn(now time.Time, token, tenant string) time.Duration {
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
	call := Cost{operation: "RunInstances", resources: 1, clientToken: token}
	rank := p.queue.rank(token, tenant)
	eta := p.turnIn(now, rank)
	if eta <= admitWait {
		rs, _, err := p.reserveLocked(now, call)
		if err != nil {
			// A bucket that cannot hold one launch: the call itself says so.
			return 0
		}
		p.tickets[token] = ticket{reservations: rs, at: now.Add(delayOf(now, rs))}
		p.queue.remove(token, true)
		return 0
	}
	for _, bu := range p.budgetsOf(now, call) {
		bu.backlogged(now)
	}
	hold := min(eta-turnLead, p.longestHold(now))
	p.queue.hold(token, tenant, now.Add(hold))
	return hold
}

// launchBacklog is about how long the launches waiting now take to be sent: zero
// when none waits.
func (p *Pacer) LaunchBacklog(now time.Time) time.Duration {
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
func (p *Pacer) turnIn(now time.Time, rank int) time.Duration {
	var eta time.Duration
	for _, bu := range p.budgetsOf(now, Cost{operation: "RunInstances", resources: 1}) {
		eta = max(eta, bu.timeFor(now, float64(rank+1)))
	}
	return eta
}

// longestHold is probingHold while the RunInstances budget may still learn a higher
// rate, pinnedHold otherwise.
func (p *Pacer) longestHold(now time.Time) time.Duration {
	if bu := p.request["RunInstances"]; bu != nil && bu.learn && !now.Before(bu.quietUntil) {
		return probingHold
	}
	return pinnedHold
}

// takeTicket returns the launch ticket of a RunInstances call, if it has one that is
// not too late; p.mu is held.
func (p *Pacer) takeTicket(now time.Time, call Cost) (ticket, bool) {
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

// cancelTickets gives back the tokens of every launch ticket not spent yet, when EC2
// throttled a launch: they were reserved at a rate EC2 has just refused (up to
// admitWait of launches, dozens while a learning rate climbs), and would all reach
// EC2 into an empty bucket. Their launches come back when they were told and take
// tokens at the rate the throttle left; p.mu is held.
func (p *Pacer) cancelTickets(now time.Time) {
	for token, t := range p.tickets {
		cancelAll(now, t.reservations)
		delete(p.tickets, token)
	}
}

// dropLateTickets forgets tickets that were not spent in time; p.mu is held.
func (p *Pacer) dropLateTickets(now time.Time) {
	for token, t := range p.tickets {
		if now.Sub(t.at) > ticketGrace {
			delete(p.tickets, token)
		}
	}
}
