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

// Result is one ID's answer to a batched action: its value, or the error.
type Result[R any] struct {
	Value R
	Err   error
}

// Action configures an ActionBatcher: the call it makes and how it batches.
type Action[R any] struct {
	// Operation names the call in the errors of callers whose context ends.
	Operation string
	// Send makes one call for the given IDs and returns every ID's answer.
	Send func(ctx context.Context, ids []string) map[string]Result[R]
	// PerID tells the errors one ID of a batch can cause (a missing ID, a state that
	// forbids the action) from those that concern the whole call (throttling,
	// credentials): when one ID fails a batch, each ID is sent again alone.
	PerID func(error) bool
	// Window is how long an action waits for others to share its call; MaxSize is the
	// most IDs one call takes; Timeout bounds one call.
	Window  time.Duration
	MaxSize int
	Timeout time.Duration
}

// ActionBatcher sends the actions on single resources that fall due within one window
// as a single call, for the EC2 calls that take a list of IDs and fail as a whole when
// one of them cannot be acted on (TerminateInstances: "If you specify multiple
// instances and the request fails (for example, because of a single incorrect
// instance ID), none of the instances are terminated"). A batch that fails for a
// reason tied to one ID is sent again one ID at a time, so each caller gets its own
// resource's answer.
type ActionBatcher[R any] struct {
	cfg Action[R]

	mu      sync.Mutex
	waiters map[string][]chan Result[R]
	order   []string
}

// NewActionBatcher returns a batcher that makes the calls cfg describes.
func NewActionBatcher[R any](cfg Action[R]) *ActionBatcher[R] {
	return &ActionBatcher[R]{cfg: cfg, waiters: map[string][]chan Result[R]{}}
}

// Do acts on one resource and returns its answer.
func (b *ActionBatcher[R]) Do(ctx context.Context, id string) (R, error) {
	ch := make(chan Result[R], 1)
	b.mu.Lock()
	if len(b.order) == 0 {
		time.AfterFunc(b.cfg.Window, b.flush)
	}
	if _, dup := b.waiters[id]; !dup {
		b.order = append(b.order, id)
	}
	b.waiters[id] = append(b.waiters[id], ch)
	full := len(b.order) >= b.cfg.MaxSize
	var ids []string
	var waiters map[string][]chan Result[R]
	if full {
		ids, waiters = b.take()
	}
	b.mu.Unlock()
	if full {
		go b.run(ids, waiters)
	}
	select {
	case r := <-ch:
		return r.Value, r.Err
	case <-ctx.Done():
		var none R
		return none, awserrors.Classify(b.cfg.Operation, ctx.Err())
	}
}

// take empties the pending batch. Call with b.mu held.
func (b *ActionBatcher[R]) take() ([]string, map[string][]chan Result[R]) {
	ids, waiters := b.order, b.waiters
	b.order, b.waiters = nil, map[string][]chan Result[R]{}
	return ids, waiters
}

// flush sends whatever is pending when the window closes.
func (b *ActionBatcher[R]) flush() {
	b.mu.Lock()
	ids, waiters := b.take()
	b.mu.Unlock()
	if len(ids) > 0 {
		b.run(ids, waiters)
	}
}

// run acts on one batch and answers every caller. It uses its own context: it serves
// many callers, and one of them giving up must not fail the others.
func (b *ActionBatcher[R]) run(ids []string, waiters map[string][]chan Result[R]) {
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.Timeout)
	defer cancel()
	results := b.cfg.Send(ctx, ids)
	if len(ids) > 1 {
		for _, id := range ids {
			if r := results[id]; r.Err != nil && b.cfg.PerID(r.Err) {
				// The whole call failed because of some ID; find out which.
				for _, one := range ids {
					results[one] = b.cfg.Send(ctx, []string{one})[one]
				}
				break
			}
		}
	}
	for id, chans := range waiters {
		for _, ch := range chans {
			ch <- results[id]
		}
	}
}
