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
	"crypto/sha256"
	"encoding/json"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// SecondWriterAfter is how many conflicts in a row, each with a status the operator
// did not write, make a second writer.
const SecondWriterAfter = 3

// Conflicts remembers, per object, the status the operator last wrote (as a
// digest) and the conflicts since its last write that went through.
type Conflicts struct {
	mu      sync.Mutex
	entries map[types.UID]*conflictEntry
}

type conflictEntry struct {
	written  [sha256.Size]byte
	streak   int
	foreign  int
	last     time.Time
	reported bool
}

func (c *Conflicts) entry(uid types.UID) *conflictEntry {
	if c.entries == nil {
		c.entries = map[types.UID]*conflictEntry{}
	}
	e := c.entries[uid]
	if e == nil {
		e = &conflictEntry{}
		c.entries[uid] = e
	}
	return e
}

// Wrote records a status the operator wrote; the conflict streak ends.
func (c *Conflicts) Wrote(uid types.UID, status *computev1alpha1.EC2InstanceStatus) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(uid)
	e.written, e.streak, e.foreign = statusDigest(status), 0, 0
}

// Conflicted records a conflict, and whether the object's current status is one the
// operator did not write; it returns the streak, and true when a second writer is
// due to be reported.
func (c *Conflicts) Conflicted(uid types.UID, current *computev1alpha1.EC2InstanceStatus, now time.Time) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(uid)
	e.streak++
	e.last = now
	if current != nil && statusDigest(current) != e.written {
		e.foreign++
	} else {
		e.foreign = 0
	}
	report := e.foreign >= SecondWriterAfter && !e.reported
	if report {
		e.reported = true
	}
	return e.streak, report
}

// Quiet reports whether the object had no conflict for the given time; the report of
// a second writer may then go, and is made again should the conflicts come back.
func (c *Conflicts) Quiet(uid types.UID, now time.Time, period time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[uid]
	if e == nil {
		return true
	}
	if e.streak == 0 && now.Sub(e.last) >= period {
		e.reported = false
		return true
	}
	return false
}

func (c *Conflicts) Forget(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, uid)
}

func (c *Conflicts) Size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func statusDigest(status *computev1alpha1.EC2InstanceStatus) [sha256.Size]byte {
	data, _ := json.Marshal(status)
	return sha256.Sum256(data)
}
