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

package instanceset

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// statusInterval is the least time between two status writes of a set whose change is
// only in its counts. While a set of a thousand instances launches, each instance
// that becomes Ready changes the counts; writing each would cost the API server a
// write per instance on top of the instance's own. A change a user or a tool waits
// for (a condition's status or reason, a new generation observed) is written at once.
const statusInterval = 2 * time.Second

// writeTimes remembers when each set's status was last written. It is the
// reconciler's only memory between passes, and holds one time per set.
type writeTimes struct {
	mu sync.Mutex
	at map[types.NamespacedName]time.Time
}

// due says how long a status write must wait: zero when it changes what kstatus, Argo
// CD and kubectl wait read (or when the last write is statusInterval old).
func (w *writeTimes) due(key types.NamespacedName, before, after *computev1alpha1.EC2InstanceSet, now time.Time) time.Duration {
	if before.Status.ObservedGeneration != after.Status.ObservedGeneration || transitions(before, after) {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	last, ok := w.at[key]
	if !ok {
		return 0
	}
	return max(0, statusInterval-now.Sub(last))
}

// transitions reports whether a condition appeared, went, or changed its status or
// reason (its message alone, which carries counts, does not count).
func transitions(before, after *computev1alpha1.EC2InstanceSet) bool {
	if len(before.Status.Conditions) != len(after.Status.Conditions) {
		return true
	}
	for _, b := range before.Status.Conditions {
		found := false
		for _, a := range after.Status.Conditions {
			if a.Type == b.Type {
				found = a.Status == b.Status && a.Reason == b.Reason
				break
			}
		}
		if !found {
			return true
		}
	}
	return false
}

func (w *writeTimes) put(key types.NamespacedName, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at == nil {
		w.at = map[types.NamespacedName]time.Time{}
	}
	w.at[key] = at
}

func (w *writeTimes) forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.at, key)
}

// soonest is the earlier of two requeue delays, zero meaning none.
func soonest(a, b time.Duration) time.Duration {
	if b == 0 || (a > 0 && a < b) {
		return a
	}
	return b
}
