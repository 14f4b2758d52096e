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

package monitoring

import (
	"sync"
	"time"
)

// reviewCacheSize bounds each review cache: far more scrapers than any cluster has,
// and few enough that a client sending endless made-up tokens costs a bounded amount
// of memory.
const reviewCacheSize = 1024

// reviewCache keeps review answers until they expire, at most size of them: when it
// is full, the expired answers are dropped, and if none had expired, all of them (the
// next requests then ask the API server again, which is only slower).
type reviewCache[T any] struct {
	mu      sync.Mutex
	size    int
	entries map[string]reviewEntry[T]
}

type reviewEntry[T any] struct {
	value   T
	expires time.Time
}

func newReviewCache[T any](size int) *reviewCache[T] {
	return &reviewCache[T]{size: size, entries: map[string]reviewEntry[T]{}}
}

// get returns the answer kept for key, unless there is none or it expired.
func (c *reviewCache[T]) get(key string, now time.Time) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !now.Before(e.expires) {
		var zero T
		return zero, false
	}
	return e.value, true
}

// put keeps an answer for ttl from now.
func (c *reviewCache[T]) put(key string, value T, now time.Time, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.size {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= c.size {
			clear(c.entries)
		}
	}
	c.entries[key] = reviewEntry[T]{value: value, expires: now.Add(ttl)}
}

// len is how many answers are kept, expired or not.
func (c *reviewCache[T]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
