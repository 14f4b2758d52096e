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

	"github.com/ec2-operator/ec2-operator/internal/events"
)

// SpotWarningTTL is how long a Spot interruption warning is remembered.
const SpotWarningTTL = 10 * time.Minute

// EventMarks is what EC2 events told the reconciler between passes: instances whose
// remembered description is stale, and Spot interruption warnings.
type EventMarks struct {
	mu    sync.Mutex
	stale map[string]bool
	spot  map[string]events.Event
}

// Mark remembers what an event says the next pass over its instance must know: its
// description is stale, and, for a Spot interruption warning, the warning.
func (e *EventMarks) Mark(ev events.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stale == nil {
		e.stale, e.spot = map[string]bool{}, map[string]events.Event{}
	}
	switch ev.DetailType {
	case events.DetailStateChange:
		e.stale[ev.InstanceID] = true
	case events.DetailSpotInterruption:
		e.stale[ev.InstanceID] = true
		e.spot[ev.InstanceID] = ev
	}
}

// TakeStale reports, once, that an event said the instance changed.
func (e *EventMarks) TakeStale(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stale[id] {
		delete(e.stale, id)
		return true
	}
	return false
}

// Forget drops what the events said of an instance no object records any more.
func (e *EventMarks) Forget(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.stale, id)
	delete(e.spot, id)
}

// Sizes says how many instances have a stale mark and a Spot warning remembered.
func (e *EventMarks) Sizes() (stale, spot int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.stale), len(e.spot)
}

// SpotWarning returns the interruption warning for the instance, if a recent one came.
func (e *EventMarks) SpotWarning(id string, now time.Time) (events.Event, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	w, ok := e.spot[id]
	if ok && now.Sub(w.Time) > SpotWarningTTL {
		delete(e.spot, id)
		return events.Event{}, false
	}
	return w, ok
}
