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

// IDBatcher coalesces lookups by ID (volumes, addresses) into one describe call per
// short window, as describeBatcher does for instances: after a resync many objects
// ask about their own few resources at about the same time, and one request with all
// their IDs costs EC2's API budget the same as one with a single ID.
type IDBatcher[T any] struct {
	window  time.Duration
	maxSize int
	timeout time.Duration
	// fetch describes the given IDs and returns those that exist. It must not fail
	// because some ID is unknown (describe by filter, not by ID list).
	fetch func(ctx context.Context, ids []string) (map[string]T, error)

	mu    sync.Mutex
	batch *batch[T]
}

// batch is one window's worth of IDs and, once done is closed, their answer.
type batch[T any] struct {
	ids    []string
	seen   map[string]bool
	done   chan struct{}
	result map[string]T
	err    error
}

// NewIDBatcher gathers the IDs asked for within window, at most maxSize, into one
// fetch bounded by timeout.
func NewIDBatcher[T any](window time.Duration, maxSize int, timeout time.Duration,
	fetch func(ctx context.Context, ids []string) (map[string]T, error)) *IDBatcher[T] {
	return &IDBatcher[T]{window: window, maxSize: maxSize, timeout: timeout, fetch: fetch}
}

// Get returns the resources among ids that exist, keyed by ID; an ID missing from the
// answer does not exist (or is not visible yet).
func (b *IDBatcher[T]) Get(ctx context.Context, ids []string) (map[string]T, error) {
	if len(ids) == 0 {
		return map[string]T{}, nil
	}
	b.mu.Lock()
	if b.batch == nil {
		b.batch = &batch[T]{seen: map[string]bool{}, done: make(chan struct{})}
		batch := b.batch
		time.AfterFunc(b.window, func() { b.send(batch) })
	}
	batch := b.batch
	for _, id := range ids {
		if !batch.seen[id] {
			batch.seen[id] = true
			batch.ids = append(batch.ids, id)
		}
	}
	full := len(batch.ids) >= b.maxSize
	b.mu.Unlock()
	if full {
		go b.send(batch)
	}
	select {
	case <-ctx.Done():
		return nil, awserrors.Classify("", ctx.Err())
	case <-batch.done:
	}
	if batch.err != nil {
		return nil, batch.err
	}
	out := make(map[string]T, len(ids))
	for _, id := range ids {
		if v, ok := batch.result[id]; ok {
			out[id] = v
		}
	}
	return out, nil
}

// send runs the batch once, whichever of the window timer and a full batch comes
// first. It uses its own timeout: it answers many callers, none of whose contexts
// may cancel it for the others.
func (b *IDBatcher[T]) send(batch *batch[T]) {
	b.mu.Lock()
	if b.batch != batch {
		b.mu.Unlock()
		return // already sent
	}
	b.batch = nil
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	batch.result, batch.err = b.fetch(ctx, batch.ids)
	close(batch.done)
}
