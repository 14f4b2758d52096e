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

// VanishWindow is how long a vanished instance counts toward the threshold of
// vanished instances that pauses replacements.
const VanishWindow = 15 * time.Minute

// Vanished remembers, per account and region, which objects' instances vanished
// and when, and which are paused. Entries go with the object (forget) and with time.
type Vanished struct {
	mu     sync.Mutex
	seen   map[string]map[types.UID]time.Time
	paused map[string]map[types.UID]bool
}

// Note records that uid's instance is missing in key (once) and returns when it was
// first seen missing, whether that is now, and how many are missing in key within
// the window.
func (v *Vanished) Note(key string, uid types.UID, now time.Time) (first time.Time, isNew bool, count int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.initLocked()
	m := v.seen[key]
	if m == nil {
		m = map[types.UID]time.Time{}
		v.seen[key] = m
	}
	for u, at := range m {
		if now.Sub(at) > VanishWindow {
			delete(m, u)
		}
	}
	first, ok := m[uid]
	if !ok {
		first, isNew = now, true
		m[uid] = now
	}
	return first, isNew, len(m)
}

// initLocked makes the maps; the caller holds v.mu.
func (v *Vanished) initLocked() {
	if v.seen == nil {
		v.seen, v.paused = map[string]map[types.UID]time.Time{}, map[string]map[types.UID]bool{}
	}
}

// SetPaused records whether uid is paused in key and returns how many are.
func (v *Vanished) SetPaused(key string, uid types.UID, paused bool) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.initLocked()
	m := v.paused[key]
	if m == nil {
		m = map[types.UID]bool{}
		v.paused[key] = m
	}
	if paused {
		m[uid] = true
	} else {
		delete(m, uid)
	}
	return len(m)
}

// Forget drops an object from every key, and returns the keys whose paused count
// changed with their new counts.
func (v *Vanished) Forget(uid types.UID) map[string]int {
	v.mu.Lock()
	defer v.mu.Unlock()
	changed := map[string]int{}
	for key, m := range v.seen {
		delete(m, uid)
		if len(m) == 0 {
			delete(v.seen, key)
		}
	}
	for key, m := range v.paused {
		if m[uid] {
			delete(m, uid)
			changed[key] = len(m)
		}
		if len(m) == 0 {
			delete(v.paused, key)
		}
	}
	return changed
}
