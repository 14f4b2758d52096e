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
	"context"
	"sync"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// Describe configures a DescribeBatcher: what it asks EC2, and how it batches.
type Describe[T any] struct {
	// Operation names the call in the errors of callers whose context ends.
	Operation string
	// Fetch describes the given IDs and returns those that exist, keyed by ID. An ID
	// missing from the answer is one EC2 does not know.
	Fetch func(ctx context.Context, ids []string) (map[string]T, error)
	// NotFound is the error a caller gets for an ID missing from the answer, worded as
	// EC2 words it.
	NotFound func(id string) error
	Kind     Kind[T]

	// Window is how long a lookup waits for others to share its call; MaxSize is the
	// most IDs one call asks about; Timeout bounds one call.
	Window  time.Duration
	MaxSize int
	Timeout time.Duration
	// ReadAheadTTL, when positive, serves repeated lookups from recent batches and
	// widens outgoing batches to the rest of the known fleet (see readAhead);
	// TransitionTTL is how long an answer about a resource in transition is served.
	ReadAheadTTL  time.Duration
	TransitionTTL time.Duration
	// Now is the read-ahead's clock (time.Now when nil).
	Now func() time.Time
}

// lookupResult is the answer to one caller.
type lookupResult[T any] struct {
	value T
	err   error
}

// pendingBatch collects the IDs asked for during one batch window.
type pendingBatch[T any] struct {
	waiters map[string][]chan lookupResult[T]
	order   []string
}

// DescribeBatcher coalesces single-resource lookups into batched describe calls, as
// Karpenter's DescribeInstances batcher does: the controller asks about many
// instances at once after a resync, and one request for 500 IDs costs EC2's API
// budget the same as one for a single ID.
type DescribeBatcher[T any] struct {
	cfg Describe[T]
	// ahead, when not nil, answers repeated lookups from recent batches and widens
	// outgoing batches to the rest of the known fleet.
	ahead *readAhead[T]

	mu         sync.Mutex
	batch      *pendingBatch[T]
	generation uint64
	// running maps the IDs of batches in flight to their batch: a lookup for such an
	// ID waits for that answer instead of sending another request.
	running map[string]*pendingBatch[T]
}

// NewDescribeBatcher returns a batcher that makes the calls cfg describes.
func NewDescribeBatcher[T any](cfg Describe[T]) *DescribeBatcher[T] {
	b := &DescribeBatcher[T]{cfg: cfg, running: map[string]*pendingBatch[T]{}}
	if cfg.ReadAheadTTL > 0 {
		now := cfg.Now
		if now == nil {
			now = time.Now
		}
		b.ahead = newReadAhead(cfg.ReadAheadTTL, cfg.TransitionTTL, now, cfg.Kind)
	}
	return b
}

// Get returns the resource with the given ID, waiting at most the window for other
// lookups to share the request. A caller whose context ends returns at once; the
// batch still runs for the others.
func (b *DescribeBatcher[T]) Get(ctx context.Context, id string) (T, error) {
	var none T
	if err := ctx.Err(); err != nil {
		return none, awserrors.Classify(b.cfg.Operation, err)
	}
	if value, ok := b.ahead.lookup(id); ok {
		return value, nil
	}
	ch := make(chan lookupResult[T], 1)

	b.mu.Lock()
	if inFlight, ok := b.running[id]; ok {
		inFlight.waiters[id] = append(inFlight.waiters[id], ch)
		b.mu.Unlock()
		return b.wait(ctx, ch)
	}
	if b.batch == nil {
		b.batch = &pendingBatch[T]{waiters: map[string][]chan lookupResult[T]{}}
		b.generation++
		gen := b.generation
		time.AfterFunc(b.cfg.Window, func() { b.flush(gen) })
	}
	batch := b.batch
	if _, dup := batch.waiters[id]; !dup {
		batch.order = append(batch.order, id)
	}
	batch.waiters[id] = append(batch.waiters[id], ch)
	full := len(batch.order) >= b.cfg.MaxSize
	if full {
		// Send now; the window timer of this generation then finds nothing to do.
		b.batch = nil
	}
	b.mu.Unlock()

	if full {
		go b.run(batch)
	}
	return b.wait(ctx, ch)
}

// Changing stops lookups of the given resources from joining batches already in
// flight, and drops what read-ahead remembers of them: batches sent before a change
// may answer with the old state.
func (b *DescribeBatcher[T]) Changing(ids []string) {
	b.mu.Lock()
	for _, id := range ids {
		delete(b.running, id)
	}
	b.mu.Unlock()
	b.ahead.invalidate(ids...)
}

// Patch applies a change the client made, and knows the outcome of, to what
// read-ahead remembers of the resources and to the answers of batches in flight,
// instead of dropping them as Changing does; lookups do not join batches already in
// flight, whose callers get EC2's answer as it was.
func (b *DescribeBatcher[T]) Patch(ids []string, apply func(T) T) {
	b.mu.Lock()
	for _, id := range ids {
		delete(b.running, id)
	}
	b.mu.Unlock()
	b.ahead.patch(ids, apply)
}

// Expect records resources as about to be looked up, without asking: the next batch
// refreshes them with the rest.
func (b *DescribeBatcher[T]) Expect(ids []string) { b.ahead.expect(ids) }

// Retire drops resources the client ended from the known fleet.
func (b *DescribeBatcher[T]) Retire(ids ...string) { b.ahead.retire(ids...) }

// wait returns the answer on ch, or the caller's context error.
func (b *DescribeBatcher[T]) wait(ctx context.Context, ch chan lookupResult[T]) (T, error) {
	select {
	case r := <-ch:
		return r.value, r.err
	case <-ctx.Done():
		var none T
		return none, awserrors.Classify(b.cfg.Operation, ctx.Err())
	}
}

// flush sends the batch of the given generation when its window closes, unless it
// was already sent because it filled up.
func (b *DescribeBatcher[T]) flush(gen uint64) {
	b.mu.Lock()
	batch := b.batch
	if batch == nil || b.generation != gen {
		b.mu.Unlock()
		return
	}
	b.batch = nil
	b.mu.Unlock()
	b.run(batch)
}

// run describes one batch and answers every waiter. It uses its own context because
// it serves many callers; one caller giving up must not fail the others. While it
// runs, lookups of any ID it asks about (read-ahead extras included) join it.
func (b *DescribeBatcher[T]) run(batch *pendingBatch[T]) {
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.Timeout)
	defer cancel()

	b.mu.Lock()
	inFlight := func(id string) bool { _, ok := b.running[id]; return ok }
	extras := b.ahead.extra(batch.order, b.cfg.MaxSize-len(batch.order), inFlight)
	ids := append(batch.order, extras...)
	for _, id := range ids {
		b.running[id] = batch
	}
	b.mu.Unlock()

	sentAt := b.ahead.sentAt()
	found, err := b.cfg.Fetch(ctx, ids)
	if err == nil {
		b.ahead.store(ids, found, sentAt)
	} else {
		// An extra may be what failed the call (an ID EC2 no longer knows, when the
		// filtered fallback fails too); read-ahead relearns the live ones on their
		// next lookup.
		b.ahead.forget(extras)
	}

	b.mu.Lock()
	for _, id := range ids {
		// The entry may belong to a later batch, or be gone after a change.
		if b.running[id] == batch {
			delete(b.running, id)
		}
	}
	waiters := batch.waiters
	b.mu.Unlock()
	b.answer(waiters, found, err)
}

// answer gives every waiter its resource, or the batch's error, or NotFound. Each
// caller owns its copy; callers may modify what they get.
func (b *DescribeBatcher[T]) answer(waiters map[string][]chan lookupResult[T], found map[string]T, err error) {
	for id, chans := range waiters {
		var r lookupResult[T]
		value, ok := found[id]
		switch {
		case err != nil:
			r.err = err
		case ok:
			r.value = value
		default:
			r.err = b.cfg.NotFound(id)
		}
		for i, ch := range chans {
			res := r
			if res.err == nil && i > 0 {
				res.value = b.cfg.Kind.Clone(res.value)
			}
			ch <- res
		}
	}
}
