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
	"sync"
	"time"
)

// readAhead lets one DescribeInstances call answer the lookups of a whole fleet.
//
// The controller describes every instance once per resync, but resyncs are spread out
// in time (by design, so that they do not come in bursts), so coalescing concurrent
// lookups alone saves little at rest. readAhead remembers which instances callers ask
// about; when a batch goes out, it also asks for the other known instances whose last
// answer is getting old, and keeps the answers for ttl. A lookup within ttl of such an
// answer is served without a call, so a settled fleet of up to MaxBatchSize instances
// costs about one DescribeInstances call per ttl instead of one per instance.
//
// Settled states (running, stopped) are served from memory for ttl. An instance in
// transition (pending, stopping) is served only for the much shorter transitionTTL
// (zero: never), so that the many instances of a bulk launch share one call per poll
// instead of one each. Every call this client makes that changes an instance drops
// that instance's answer, so the operator always sees its own changes. Changes made
// outside the operator are seen at most ttl late.
type readAhead struct {
	ttl           time.Duration
	transitionTTL time.Duration
	now           func() time.Time

	mu sync.Mutex
	// asked holds when each instance was last asked about; instances not asked about
	// for keepFor are forgotten (their object is gone).
	asked map[string]time.Time
	// answers holds the last answer for each instance and when it was fetched.
	answers map[string]answer
	// changed holds when this client last changed each instance: an answer fetched
	// before that is stale and is not kept.
	changed map[string]time.Time
}

type answer struct {
	instance  *Instance
	fetchedAt time.Time
}

// keepFactor is how many ttl periods an instance stays known without being asked about.
const keepFactor = 4

// changeSettleTime is how long after this client changes an instance its answers are
// not kept: long enough for EC2's eventual consistency, short next to a resync.
const changeSettleTime = 10 * time.Second

func newReadAhead(ttl, transitionTTL time.Duration, now func() time.Time) *readAhead {
	return &readAhead{ttl: ttl, transitionTTL: transitionTTL, now: now,
		asked: map[string]time.Time{}, answers: map[string]answer{}, changed: map[string]time.Time{}}
}

// settled reports whether an instance state is one that lasts (running, stopped).
func settled(state string) bool { return state == StateRunning || state == StateStopped }

// ttlFor is how long an answer with the given state may be served.
func (r *readAhead) ttlFor(state string) time.Duration {
	if settled(state) {
		return r.ttl
	}
	if state == StatePending || state == StateStopping {
		return r.transitionTTL
	}
	return 0 // shutting-down and terminated are always described afresh
}

// lookup returns a fresh enough answer, and records the question.
func (r *readAhead) lookup(id string) (*Instance, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.asked[id] = now
	a, ok := r.answers[id]
	if !ok {
		return nil, false
	}
	if ttl := r.ttlFor(a.instance.State); ttl == 0 || now.Sub(a.fetchedAt) > ttl {
		return nil, false
	}
	return cloneInstance(a.instance), true
}

// expect records instances as asked about, without asking: the next batch refreshes
// them with the rest (a manager that starts with a fleet, a launch that just returned).
func (r *readAhead) expect(ids []string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	for _, id := range ids {
		r.asked[id] = now
	}
}

// extra returns up to limit known instances, neither in batch nor in another request
// in flight (skip), whose answer is older than half the ttl, so that the outgoing call
// refreshes them before they are needed.
func (r *readAhead) extra(batch []string, limit int, skip map[string]*pendingBatch) []string {
	if r == nil || limit <= 0 {
		return nil
	}
	inBatch := make(map[string]bool, len(batch))
	for _, id := range batch {
		inBatch[id] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	for id, at := range r.changed {
		if now.Sub(at) > changeSettleTime {
			delete(r.changed, id)
		}
	}
	var out []string
	for id, at := range r.asked {
		if now.Sub(at) > keepFactor*r.ttl {
			delete(r.asked, id)
			delete(r.answers, id)
			continue
		}
		if _, inFlight := skip[id]; inBatch[id] || inFlight || len(out) >= limit {
			continue
		}
		a, ok := r.answers[id]
		if ok && (gone(a.instance.State) || now.Sub(a.fetchedAt) < r.ttlFor(a.instance.State)/2) {
			// An instance on its way out is described again only when someone asks:
			// EC2 lists terminated instances for an hour, and reading them ahead
			// filled the batches of a bulk delete with instances nobody would ask about.
			continue
		}
		out = append(out, id)
	}
	return out
}

// store keeps the answers of a batch sent at sentAt; instances asked for but not
// found are forgotten, and answers that predate a change by this client are dropped.
func (r *readAhead) store(asked []string, found map[string]*Instance, sentAt time.Time) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range asked {
		if inst, ok := found[id]; ok {
			// An answer sent before, or soon after, this client changed the instance may
			// still show the old settled state (EC2 is eventually consistent); such
			// instances are described afresh until the change has settled. A state in
			// transition is kept for its short ttl: at worst it delays the next look.
			if changedAt, ok := r.changed[id]; ok && sentAt.Sub(changedAt) < changeSettleTime && settled(inst.State) {
				delete(r.answers, id)
				continue
			}
			r.answers[id] = answer{instance: cloneInstance(inst), fetchedAt: sentAt}
		} else {
			delete(r.answers, id)
			delete(r.asked, id)
		}
	}
}

// invalidate drops the answers for instances this client is changing, including
// answers of batches already in flight.
func (r *readAhead) invalidate(ids ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	for _, id := range ids {
		delete(r.answers, id)
		r.changed[id] = now
	}
}

// retire drops instances this client terminated from the known fleet: their objects
// are released, and a later lookup makes them known again.
func (r *readAhead) retire(ids ...string) {
	if r == nil {
		return
	}
	r.invalidate(ids...)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		delete(r.asked, id)
	}
}

// gone reports whether an instance state is one that only ends (shutting-down,
// terminated).
func gone(state string) bool { return state == StateShuttingDown || state == StateTerminated }

// forget drops instances from the known fleet.
func (r *readAhead) forget(ids []string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		delete(r.asked, id)
		delete(r.answers, id)
	}
}

// sentAt is the time a batch is sent, on the read-ahead's clock.
func (r *readAhead) sentAt() time.Time {
	if r == nil {
		return time.Time{}
	}
	return r.now()
}
