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
)

// CreatingVolumes remembers, per object, since when each volume recorded as being
// created has been missing from DescribeVolumes, to tell a volume not visible yet from
// one that vanished. Losing it (a restart) only restarts the wait.
type CreatingVolumes struct {
	mu    sync.Mutex
	since map[types.UID]map[string]time.Time
}

// Missing records that the volume is missing now, unless it already was, and returns
// since when it has been.
func (c *CreatingVolumes) Missing(uid types.UID, volumeID string, now time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.since == nil {
		c.since = map[types.UID]map[string]time.Time{}
	}
	m := c.since[uid]
	if m == nil {
		m = map[string]time.Time{}
		c.since[uid] = m
	}
	if first, ok := m[volumeID]; ok {
		return first
	}
	m[volumeID] = now
	return now
}

// Seen drops the volume: it was found, or is given up on.
func (c *CreatingVolumes) Seen(uid types.UID, volumeID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.since[uid]; m != nil {
		delete(m, volumeID)
		if len(m) == 0 {
			delete(c.since, uid)
		}
	}
}

// Forget drops everything remembered about the object.
func (c *CreatingVolumes) Forget(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.since, uid)
}
