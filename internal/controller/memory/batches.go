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
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Batches remembers, per batch client token, what this process knows of a set's
// batch launch: nothing yet, a call in flight, the instances it launched (by launch
// index), or that it was abandoned because a member left before it was sent. The
// states change under one lock, so that a batch is never both sent and abandoned in
// one process: a member deleted before the call keeps the call from ever being sent
// here, and a member deleted after it finds its instance among the launched ones.
//
// Losing it (a restart) costs one DescribeInstances by client token per batch; the
// members' launch records, the annotation and EC2's idempotency hold the rest.
type Batches struct {
	mu      sync.Mutex
	entries map[string]*batchEntry
	// started is when this process first used the store: a launch record written
	// before it may have been sent by an earlier process.
	started time.Time
}

// Started is when this process first used the store.
func (m *Batches) Started() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started.IsZero() {
		m.started = time.Now()
	}
	return m.started
}

// BatchState is what this process knows of a batch.
type BatchState int

const (
	// BatchUnknown: nothing sent or found here yet.
	BatchUnknown BatchState = iota
	// BatchLaunched: RunInstances answered (or a lookup found) these instances.
	BatchLaunched
	// BatchAbandoned: a member left before the call; the members launch alone.
	BatchAbandoned
)

// ErrBatchAbandoned is Send's answer for a batch that was abandoned first.
var ErrBatchAbandoned = errors.New("the batch was abandoned before it was sent")

// batchMemory is how long a batch is remembered: long after its members took their
// instances, which they do within seconds of the answer.
const batchMemory = time.Hour

type batchEntry struct {
	state BatchState
	// launched maps a launch index to the instance EC2 launched at it.
	launched map[int32]string
	// busy is closed when the call or lookup in flight ends; nil when none is.
	busy chan struct{}
	// looked is set once a lookup found nothing: a send may follow, but no member
	// looks again in this process.
	looked bool
	// recorded are the members whose launch record this process wrote.
	recorded map[types.UID]bool
	at       time.Time
}

// State returns what is known of the batch and, once launched, its instances.
func (m *Batches) State(token string) (BatchState, map[int32]string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.entries[token]
	if e == nil {
		return BatchUnknown, nil
	}
	return e.state, e.launched
}

// Looked reports whether a lookup of the batch found nothing in this process.
func (m *Batches) Looked(token string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.entries[token]
	return e != nil && e.looked
}

// Send runs send for the batch once: concurrent callers wait for the one in flight
// and get its answer; after an error the next caller sends again (with the same
// token, so EC2 answers with the same instances if the first call took effect).
func (m *Batches) Send(token string, send func() (map[int32]string, error)) (map[int32]string, error) {
	return m.run(token, send, false)
}

// Look runs lookup for the batch once (finding a batch sent before a restart);
// found instances make the batch launched, none mark it looked.
func (m *Batches) Look(token string, lookup func() (map[int32]string, error)) (map[int32]string, error) {
	return m.run(token, lookup, true)
}

func (m *Batches) run(token string, call func() (map[int32]string, error), lookup bool) (map[int32]string, error) {
	e := m.settle(token)
	switch {
	case e.state == BatchAbandoned:
		m.mu.Unlock()
		return nil, ErrBatchAbandoned
	case e.state == BatchLaunched || (lookup && e.looked):
		launched := e.launched
		m.mu.Unlock()
		return launched, nil
	}
	e.busy = make(chan struct{})
	m.mu.Unlock()

	launched, err := call()

	m.mu.Lock()
	defer m.mu.Unlock()
	close(e.busy)
	e.busy, e.at = nil, time.Now()
	switch {
	case err != nil:
	case len(launched) > 0:
		e.state, e.launched = BatchLaunched, launched
	case lookup:
		e.looked = true
	}
	return launched, err
}

// settle returns the batch's entry with the lock held and no call in flight,
// waiting for one to end.
func (m *Batches) settle(token string) *batchEntry {
	m.mu.Lock()
	for {
		if m.entries == nil {
			m.entries = map[string]*batchEntry{}
		}
		m.prune(time.Now())
		e := m.entries[token]
		if e == nil {
			e = &batchEntry{at: time.Now()}
			m.entries[token] = e
		}
		if e.busy == nil {
			return e
		}
		busy := e.busy
		m.mu.Unlock()
		<-busy
		m.mu.Lock()
	}
}

// Abandon gives the batch up unless it was launched: it reports whether it is
// abandoned (now or before), false when its instances exist. A call in flight is
// waited for first.
func (m *Batches) Abandon(token string) bool {
	e := m.settle(token)
	defer m.mu.Unlock()
	if e.state == BatchLaunched {
		return false
	}
	e.state, e.at = BatchAbandoned, time.Now()
	return true
}

// Recorded notes that this process wrote the member's launch record for the batch.
func (m *Batches) Recorded(token string, uid types.UID) {
	e := m.settle(token)
	defer m.mu.Unlock()
	if e.recorded == nil {
		e.recorded = map[types.UID]bool{}
	}
	e.recorded[uid] = true
}

// RecordedHere reports whether this process wrote the member's launch record: a
// record it did not write may have been sent by an earlier process.
func (m *Batches) RecordedHere(token string, uid types.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.entries[token]
	return e != nil && e.recorded[uid]
}

// Found records instances a lookup found for the batch, unless it was abandoned
// here; it reports whether the batch is launched now.
func (m *Batches) Found(token string, launched map[int32]string) bool {
	e := m.settle(token)
	defer m.mu.Unlock()
	if e.state == BatchAbandoned {
		return false
	}
	if e.state != BatchLaunched {
		e.state, e.launched, e.at = BatchLaunched, launched, time.Now()
	}
	return true
}

// prune forgets batches older than batchMemory.
func (m *Batches) prune(now time.Time) {
	for token, e := range m.entries {
		if e.busy == nil && now.Sub(e.at) > batchMemory {
			delete(m.entries, token)
		}
	}
}
