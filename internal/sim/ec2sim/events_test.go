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
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// recorder collects the events a Sim publishes.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

// record subscribes a new recorder to sim.
func record(sim *Sim) *recorder {
	r := &recorder{}
	sim.Subscribe(func(e Event) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.events = append(r.events, e)
	})
	return r
}

// take flushes sim's events and returns (and forgets) those recorded so far.
func (r *recorder) take(sim *Sim) []Event {
	sim.FlushEvents()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

// states lists the state of each state-change event.
func states(events []Event) []string {
	var out []string
	for _, e := range events {
		if e.DetailType == DetailTypeStateChange {
			out = append(out, e.Detail.State)
		}
	}
	return out
}

// EC2 User Guide, "State change events for Amazon EC2 instances": every state
// change publishes an "EC2 Instance State-change Notification" whose JSON is
// {version, id, detail-type, source "aws.ec2", account, time, region,
// resources [instance ARN], detail {instance-id, state}}; launch and start
// go pending then running, stop goes stopping then stopped, terminate goes
// shutting-down then terminated.
func TestStateChangeEventsForLaunchStopStartTerminate(t *testing.T) {
	clock := newFakeClock()
	sim, c := newEnv(t, Config{Now: clock.Now, PendingDuration: 10 * time.Second, StoppingDuration: 20 * time.Second, ShuttingDownDuration: 30 * time.Second})
	rec := record(sim)
	t0 := clock.Now()
	id := runOne(t, c, basicRun())
	clock.Advance(10 * time.Second)
	describeOne(t, c, id)
	if _, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatalf("StopInstances: %v", err)
	}
	clock.Advance(20 * time.Second)
	if _, err := c.StartInstances(simtest.Ctx(t), &ec2.StartInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatalf("StartInstances: %v", err)
	}
	clock.Advance(10 * time.Second)
	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatalf("TerminateInstances: %v", err)
	}
	clock.Advance(30 * time.Second)
	events := rec.take(sim)

	want := []string{StatePending, StateRunning, StateStopping, StateStopped, StatePending, StateRunning, StateShuttingDown, StateTerminated}
	if got := states(events); !slices.Equal(got, want) {
		t.Fatalf("states = %v, want %v", got, want)
	}
	// Each transition is stamped with the moment it happened on the Sim's clock.
	offsets := []time.Duration{0, 10, 10, 30, 30, 40, 40, 70}
	ids := map[string]bool{}
	for i, e := range events {
		if wantTime := t0.Add(offsets[i] * time.Second).Format("2006-01-02T15:04:05Z"); e.Time != wantTime {
			t.Errorf("event %d (%s) time = %s, want %s", i, e.Detail.State, e.Time, wantTime)
		}
		ids[e.ID] = true
	}
	if len(ids) != len(events) {
		t.Errorf("event ids are not unique: %d ids for %d events", len(ids), len(events))
	}

	var doc map[string]any
	if err := json.Unmarshal([]byte(events[0].JSON()), &doc); err != nil {
		t.Fatalf("event JSON: %v", err)
	}
	wantDoc := map[string]any{
		"version":     "0",
		"id":          events[0].ID,
		"detail-type": "EC2 Instance State-change Notification",
		"source":      "aws.ec2",
		"account":     DefaultAccountID,
		"time":        t0.Format("2006-01-02T15:04:05Z"),
		"region":      DefaultRegion,
		"resources":   []any{"arn:aws:ec2:us-east-1:123456789012:instance/" + id},
		"detail":      map[string]any{"instance-id": id, "state": "pending"},
	}
	gotJSON, _ := json.Marshal(doc)
	wantJSON, _ := json.Marshal(wantDoc)
	if string(gotJSON) != string(wantJSON) {
		t.Fatalf("event JSON =\n%s\nwant\n%s", gotJSON, wantJSON)
	}
}

// EC2 User Guide, "State change events": changes EC2 makes on its own or
// that come from inside the instance are events too. A shutdown from the OS
// ("Change instance initiated shutdown behavior") and an out-of-band stop or
// terminate (a console user) each publish their transitions.
func TestStateChangeEventsForOutOfBandChanges(t *testing.T) {
	sim, c := newEnv(t, Config{})
	id := runOne(t, c, basicRun())
	describeOne(t, c, id)
	rec := record(sim)
	if err := sim.ShutdownFromOS(id); err != nil {
		t.Fatalf("ShutdownFromOS: %v", err)
	}
	if err := sim.StartInstance(id); err != nil {
		t.Fatalf("StartInstance: %v", err)
	}
	sim.FlushEvents()
	if err := sim.StopInstance(id); err != nil {
		t.Fatalf("StopInstance: %v", err)
	}
	sim.FlushEvents()
	if err := sim.TerminateInstance(id); err != nil {
		t.Fatalf("TerminateInstance: %v", err)
	}
	want := []string{StateStopping, StateStopped, StatePending, StateRunning, StateStopping, StateStopped, StateShuttingDown, StateTerminated}
	if got := states(rec.take(sim)); !slices.Equal(got, want) {
		t.Fatalf("states = %v, want %v", got, want)
	}
}

// Subscribers run without the Sim's lock, so one may query the Sim while it
// handles an event (the operator's event handler calls DescribeInstances).
func TestSubscriberMayCallBackIntoSim(t *testing.T) {
	sim, c := newEnv(t, Config{})
	var mu sync.Mutex
	var seen []string
	sim.Subscribe(func(e Event) {
		in, ok := sim.Instance(e.Detail.InstanceID)
		mu.Lock()
		defer mu.Unlock()
		if ok {
			seen = append(seen, e.Detail.State+"/"+in.State)
		}
	})
	id := runOne(t, c, basicRun())
	describeOne(t, c, id)
	sim.FlushEvents()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != "pending/running" && seen[0] != "pending/pending" {
		t.Fatalf("subscriber saw %v, want two events it could look up", seen)
	}
}

// Events nobody subscribed to are dropped, like EventBridge events no rule
// matches; subscribing later does not replay them.
func TestEventsBeforeSubscribeAreDropped(t *testing.T) {
	sim, c := newEnv(t, Config{})
	id := runOne(t, c, basicRun())
	rec := record(sim)
	describeOne(t, c, id)
	if got := states(rec.take(sim)); !slices.Equal(got, []string{StateRunning}) {
		t.Fatalf("states = %v, want only running", got)
	}
}
