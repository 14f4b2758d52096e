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

package ec2sim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// EventBridge detail types and source EC2 uses for the events the simulator
// publishes ("State change events for Amazon EC2 instances", "Spot Instance
// interruption notices" and "EC2 instance rebalance recommendations" in the
// EC2 User Guide).
const (
	// DetailTypeStateChange is the detail-type of an instance state change.
	DetailTypeStateChange = "EC2 Instance State-change Notification"
	// DetailTypeSpotInterruption is the detail-type of the two-minute Spot warning.
	DetailTypeSpotInterruption = "EC2 Spot Instance Interruption Warning"
	// DetailTypeRebalance is the detail-type of a rebalance recommendation.
	DetailTypeRebalance = "EC2 Instance Rebalance Recommendation"
	// EventSource is the source of every EC2 event.
	EventSource = "aws.ec2"
)

// eventTimeFormat is how EventBridge writes an event's time: UTC, whole seconds.
const eventTimeFormat = "2006-01-02T15:04:05Z"

// Event is one EventBridge event as EC2 would publish it. Its JSON encoding
// (see JSON) is the documented envelope, field for field.
type Event struct {
	// Version is always "0".
	Version string `json:"version"`
	// ID is a UUID unique to this event.
	ID string `json:"id"`
	// DetailType is one of the DetailType* constants.
	DetailType string `json:"detail-type"`
	// Source is EventSource.
	Source string `json:"source"`
	// Account is the account that owns the instance.
	Account string `json:"account"`
	// Time is when the event happened on the Sim's clock, e.g. "2025-06-01T12:00:00Z".
	Time string `json:"time"`
	// Region is the Sim's region.
	Region string `json:"region"`
	// Resources holds the instance ARN, arn:aws:ec2:<region>:<account>:instance/<id>.
	Resources []string `json:"resources"`
	// Detail names the instance and what happened to it.
	Detail EventDetail `json:"detail"`
}

// EventDetail is the detail object of an EC2 instance event.
type EventDetail struct {
	// InstanceID is the instance the event is about.
	InstanceID string `json:"instance-id"`
	// State is the state entered, for state-change notifications only.
	State string `json:"state,omitempty"`
	// InstanceAction is "terminate", "stop" or "hibernate", for Spot
	// interruption warnings only.
	InstanceAction string `json:"instance-action,omitempty"`
}

// JSON returns the event as EventBridge delivers it to a target such as an
// SQS queue.
func (e Event) JSON() string {
	b, err := json.Marshal(e)
	if err != nil {
		// Every field is a string or a slice of strings, so this cannot happen.
		panic(err)
	}
	return string(b)
}

// eventState holds subscribers and events waiting for delivery. Events are
// queued while the Sim's lock is held and delivered by one goroutine that
// holds no Sim lock, so a subscriber may call back into the Sim and every
// subscriber sees events in the order they happened.
type eventState struct {
	// rand draws event ids; it is separate from the Sim's other generators
	// so publishing events never changes instance or volume ids. Guarded by Sim.mu.
	rand *rand.Rand
	// interruptions are the scheduled Spot interruptions by instance id. Guarded by Sim.mu.
	interruptions map[string]*interruption

	mu   sync.Mutex // guards the fields below
	cond *sync.Cond // signalled whenever delivered grows
	subs []func(Event)
	// queue holds events not yet handed to subscribers.
	queue []Event
	// delivering is true while a goroutine is draining queue.
	delivering bool
	// queued and delivered count events, so FlushEvents can wait for a prefix.
	queued, delivered uint64
}

// eventing returns the event state, creating it on first use. The caller
// holds s.mu.
func (s *Sim) eventing() *eventState {
	if s.events == nil {
		ev := &eventState{
			rand:          rand.New(rand.NewPCG(uint64(s.cfg.Seed), 0xe7e)),
			interruptions: map[string]*interruption{},
		}
		ev.cond = sync.NewCond(&ev.mu)
		s.events = ev
	}
	return s.events
}

// Subscribe registers fn to receive every event published from now on:
// instance state changes, Spot interruption warnings and rebalance
// recommendations. Events are delivered in order on a goroutine that holds
// no Sim lock, so fn may call the Sim; a slow fn delays later events.
func (s *Sim) Subscribe(fn func(Event)) {
	s.mu.Lock()
	ev := s.eventing()
	s.mu.Unlock()
	ev.mu.Lock()
	ev.subs = append(ev.subs, fn)
	ev.mu.Unlock()
}

// FlushEvents first brings every instance's lifecycle up to the Sim's clock
// (publishing the transitions that became due), then blocks until every
// event published so far has been handed to every subscriber. Tests call it
// after moving a fake clock. It must not be called from a subscriber, which
// would wait for itself.
func (s *Sim) FlushEvents() {
	s.mu.Lock()
	s.advance()
	ev := s.eventing()
	s.mu.Unlock()
	ev.mu.Lock()
	defer ev.mu.Unlock()
	target := ev.queued
	for ev.delivered < target {
		ev.cond.Wait()
	}
}

// publish queues an event for delivery. The caller holds s.mu; delivery
// happens on another goroutine once the queue's lock is free.
func (s *Sim) publish(detailType string, at time.Time, detail EventDetail) {
	ev := s.eventing()
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if len(ev.subs) == 0 {
		// Like EventBridge without a matching rule, nobody hears the event.
		return
	}
	e := Event{
		Version:    "0",
		ID:         newUUID(ev.rand),
		DetailType: detailType,
		Source:     EventSource,
		Account:    s.cfg.AccountID,
		Time:       at.UTC().Format(eventTimeFormat),
		Region:     s.cfg.Region,
		Resources:  []string{fmt.Sprintf("arn:aws:ec2:%s:%s:instance/%s", s.cfg.Region, s.cfg.AccountID, detail.InstanceID)},
		Detail:     detail,
	}
	ev.queue = append(ev.queue, e)
	ev.queued++
	if !ev.delivering {
		ev.delivering = true
		go ev.drain()
	}
}

// publishState publishes a state-change notification for in's current state.
func (s *Sim) publishState(in *instance, at time.Time) {
	s.publish(DetailTypeStateChange, at, EventDetail{InstanceID: in.ID, State: in.State})
}

// drain hands queued events to subscribers until the queue is empty. Only
// one drain runs at a time, which keeps delivery in publication order.
func (ev *eventState) drain() {
	ev.mu.Lock()
	for len(ev.queue) > 0 {
		e := ev.queue[0]
		ev.queue = ev.queue[1:]
		subs := ev.subs
		ev.mu.Unlock()
		for _, fn := range subs {
			fn(e)
		}
		ev.mu.Lock()
		ev.delivered++
		ev.cond.Broadcast()
	}
	ev.delivering = false
	ev.mu.Unlock()
}

// newUUID draws a random (version 4) UUID from r, the form EventBridge
// event ids take.
func newUUID(r *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
