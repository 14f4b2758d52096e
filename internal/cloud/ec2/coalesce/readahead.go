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

package coalesce

import (
	"sync"
	"time"
)

// Stage is where a described resource is in its life, which decides how long an
// answer about it may be served from memory.
type Stage int

const (
	// Settled resources stay as they are until someone changes them (an instance
	// running or stopped): their answers are served for the read-ahead's ttl.
	Settled Stage = iota
	// Changing resources are on their way to a settled stage (an instance pending or
	// stopping): their answers are served only for the much shorter transition ttl.
	Changing
	// Ending resources only end (an instance shutting down or terminated): their
	// answers are never served from memory, and they are not read ahead.
	Ending
)

// Kind tells the describe batcher and its read-ahead what they need to know of the
// resources they hold: the stage of one, and a deep copy (callers may modify what
// they get, so no two callers share one value).
type Kind[T any] struct {
	Stage func(T) Stage
	Clone func(T) T
}

// readAhead lets one describe call answer the lookups of a whole fleet.
//
// The controller describes every instance once per resync, but resyncs are spread out
// in time (by design, so that they do not come in bursts), so coalescing concurrent
// lookups alone saves little at rest. readAhead remembers which resources callers ask
// about; when a batch goes out, it also asks for the other known resources whose last
// answer is getting old, and keeps the answers for ttl. A lookup within ttl of such an
// answer is served without a call, so a settled fleet of up to a batch's size costs
// about one describe call per ttl instead of one per resource.
//
// Settled answers are served from memory for ttl. A resource that is Changing is
// served only for the much shorter transitionTTL (zero: never), so that the many
// instances of a bulk launch share one call per poll instead of one each. Every call
// the client makes that changes a resource drops that resource's answer, so the
// operator always sees its own changes. Changes made outside the operator are seen at
// most ttl late.
type readAhead[T any] struct {
	ttl           time.Duration
	transitionTTL time.Duration
	now           func() time.Time
	kind          Kind[T]

	mu sync.Mutex
	// asked holds when each resource was last asked about; resources not asked about
	// for keepFactor ttl periods are forgotten (their object is gone).
	asked map[string]time.Time
	// answers holds the last answer for each resource and when it was fetched.
	answers map[string]answer[T]
	// changed holds when the client last changed each resource: an answer fetched
	// before that is stale and is not kept.
	changed map[string]time.Time
	// patched holds the changes the client made to resources that it knows the
	// outcome of (their tags): answers are kept with the change applied, for
	// changeSettleTime after it.
	patched map[string][]patch[T]
}

// patch is one known change to a resource, made at a time.
type patch[T any] struct {
	at    time.Time
	apply func(T) T
}

type answer[T any] struct {
	value     T
	fetchedAt time.Time
}

// keepFactor is how many ttl periods a resource stays known without being asked about.
const keepFactor = 4

// changeSettleTime is how long after the client changes a resource its answers are
// not kept: long enough for EC2's eventual consistency, short next to a resync.
const changeSettleTime = 10 * time.Second

func newReadAhead[T any](ttl, transitionTTL time.Duration, now func() time.Time, kind Kind[T]) *readAhead[T] {
	return &readAhead[T]{ttl: ttl, transitionTTL: transitionTTL, now: now, kind: kind,
		asked: map[string]time.Time{}, answers: map[string]answer[T]{}, changed: map[string]time.Time{},
		patched: map[string][]patch[T]{}}
}

// ttlFor is how long an answer about a resource in the given stage may be served.
func (r *readAhead[T]) ttlFor(stage Stage) time.Duration {
	switch stage {
	case Settled:
		return r.ttl
	case Changing:
		return r.transitionTTL
	}
	return 0 // an ending resource is always described afresh
}

// lookup returns a fresh enough answer, and records the question.
func (r *readAhead[T]) lookup(id string) (T, bool) {
	var none T
	if r == nil {
		return none, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.asked[id] = now
	a, ok := r.answers[id]
	if !ok {
		return none, false
	}
	if ttl := r.ttlFor(r.kind.Stage(a.value)); ttl == 0 || now.Sub(a.fetchedAt) > ttl {
		return none, false
	}
	return r.kind.Clone(a.value), true
}

// expect records resources as asked about, without asking: the next batch refreshes
// them with the rest (a manager that starts with a fleet, a launch that just returned).
func (r *readAhead[T]) expect(ids []string) {
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

// extra returns up to limit known resources, neither in batch nor in another request
// in flight (inFlight), whose answer is older than half the ttl, so that the outgoing
// call refreshes them before they are needed.
func (r *readAhead[T]) extra(batch []string, limit int, inFlight func(id string) bool) []string {
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
		if inBatch[id] || (inFlight != nil && inFlight(id)) || len(out) >= limit {
			continue
		}
		if a, ok := r.answers[id]; ok && !r.dueForRefresh(a, now) {
			continue
		}
		out = append(out, id)
	}
	return out
}

// dueForRefresh says whether a known answer should ride along with the next batch:
// when it is older than half its ttl, and the resource is not on its way out. An
// ending resource is described again only when someone asks: EC2 lists terminated
// instances for an hour, and reading them ahead filled the batches of a bulk delete
// with instances nobody would ask about.
func (r *readAhead[T]) dueForRefresh(a answer[T], now time.Time) bool {
	stage := r.kind.Stage(a.value)
	return stage != Ending && now.Sub(a.fetchedAt) >= r.ttlFor(stage)/2
}

// store keeps the answers of a batch sent at sentAt; resources asked for but not
// found are forgotten, and answers that predate a change by the client are dropped.
func (r *readAhead[T]) store(asked []string, found map[string]T, sentAt time.Time) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range asked {
		value, ok := found[id]
		if !ok {
			delete(r.answers, id)
			delete(r.asked, id)
			continue
		}
		// An answer sent before, or soon after, the client changed the resource may
		// still show the old settled stage (EC2 is eventually consistent); such
		// resources are described afresh until the change has settled. A stage in
		// transition is kept for its short ttl: at worst it delays the next look.
		if changedAt, ok := r.changed[id]; ok && sentAt.Sub(changedAt) < changeSettleTime && r.kind.Stage(value) == Settled {
			delete(r.answers, id)
			continue
		}
		r.answers[id] = answer[T]{value: r.applyPatches(id, r.kind.Clone(value), sentAt), fetchedAt: sentAt}
	}
}

// applyPatches applies to an answer sent at sentAt the known changes that EC2 may
// not show in it yet, and forgets those old enough to show.
func (r *readAhead[T]) applyPatches(id string, value T, sentAt time.Time) T {
	ps := r.patched[id]
	kept := ps[:0]
	for _, p := range ps {
		if sentAt.Sub(p.at) < changeSettleTime {
			value = p.apply(value)
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		delete(r.patched, id)
	} else {
		r.patched[id] = kept
	}
	return value
}

// patch applies a change the client made, whose outcome it knows, to what it
// remembers of the resources, and to answers of batches in flight: a tag written is
// not a reason to describe the instance again, as a changed state would be.
func (r *readAhead[T]) patch(ids []string, apply func(T) T) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	for _, id := range ids {
		r.patched[id] = append(r.patched[id], patch[T]{at: now, apply: apply})
		if a, ok := r.answers[id]; ok {
			a.value = apply(a.value)
			r.answers[id] = a
		}
	}
}

// invalidate drops the answers for resources the client is changing, including
// answers of batches already in flight.
func (r *readAhead[T]) invalidate(ids ...string) {
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

// retire drops resources the client ended (terminated instances) from the known
// fleet: their objects are released, and a later lookup makes them known again.
func (r *readAhead[T]) retire(ids ...string) {
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

// forget drops resources from the known fleet.
func (r *readAhead[T]) forget(ids []string) {
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
func (r *readAhead[T]) sentAt() time.Time {
	if r == nil {
		return time.Time{}
	}
	return r.now()
}
