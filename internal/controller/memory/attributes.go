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

package memory

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// Attributes remembers when each object's extra attributes (termination
// protection, user data, root volume size) were last read. DescribeInstances does not
// return them, and reading them costs two or three calls per instance; reading them on
// every resync would multiply the operator's API usage. They are read again when the
// spec changes, after the operator changed them, and otherwise once per
// AttributeResyncPeriod, which bounds how long drift made outside Kubernetes goes
// unnoticed.
type Attributes struct {
	mu      sync.Mutex
	entries map[types.UID]attributeEntry
}

type attributeEntry struct {
	generation int64
	readAt     time.Time
	seen       plan.ObservedAttributes
	// source is the version of the userDataFrom source when they were read (see
	// sourceVersion); an edit of the source makes them due at once.
	source string
}

// Get returns the cached attributes if they are still fresh for this generation and
// this version of the user data source.
func (c *Attributes) Get(uid types.UID, generation int64, now time.Time, maxAge time.Duration, source string) (plan.ObservedAttributes, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[uid]
	if !ok || e.generation != generation || now.Sub(e.readAt) > maxAge || (source != "" && e.source != source) {
		return plan.ObservedAttributes{}, false
	}
	return e.seen, true
}

func (c *Attributes) Put(uid types.UID, generation int64, now time.Time, seen plan.ObservedAttributes, source string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[types.UID]attributeEntry{}
	}
	c.entries[uid] = attributeEntry{generation: generation, readAt: now, seen: seen, source: source}
}

// Size is the number of objects with an entry.
func (c *Attributes) Size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Known reports whether the cache has any entry for the object, fresh or not.
func (c *Attributes) Known(uid types.UID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.entries[uid]
	return ok
}

func (c *Attributes) Forget(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, uid)
}
