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

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// Cache remembers answers that never change for a region and account (an
// image by ID, an instance type by name) for the client's lifetime, and makes one
// call per key however many reconciles ask at once: a bulk create of identical
// objects asks EC2 about its image and its instance type once, not once per worker
// that started before the first answer came back. Failures are shared with the
// askers of the same call but not remembered, so a missing image is looked up again
// once it has been created or shared.
type Cache[T any] struct {
	mu      sync.Mutex
	answers map[string]T
	flights map[string]*flight[T]
}

// flight is one call in progress; done closes when value and err are set.
type flight[T any] struct {
	done  chan struct{}
	value T
	err   error
}

// Get returns the remembered answer for key, or the answer of the call in progress
// for it, or makes the call with fetch. A caller whose context ends while it waits
// for another's call gets the context's error, classified as operation's.
func (c *Cache[T]) Get(ctx context.Context, operation, key string, fetch func() (T, error)) (T, error) {
	c.mu.Lock()
	if v, ok := c.answers[key]; ok {
		c.mu.Unlock()
		return v, nil
	}
	if f, ok := c.flights[key]; ok {
		c.mu.Unlock()
		select {
		case <-f.done:
			return f.value, f.err
		case <-ctx.Done():
			var zero T
			return zero, awserrors.Classify(operation, ctx.Err())
		}
	}
	f := &flight[T]{done: make(chan struct{})}
	if c.flights == nil {
		c.flights = map[string]*flight[T]{}
	}
	c.flights[key] = f
	c.mu.Unlock()

	f.value, f.err = fetch()

	c.mu.Lock()
	delete(c.flights, key)
	if f.err == nil {
		if c.answers == nil {
			c.answers = map[string]T{}
		}
		c.answers[key] = f.value
	}
	c.mu.Unlock()
	close(f.done)
	return f.value, f.err
}
