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

package ec2

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func TestReadAheadServesASettledFleetWithAboutOneCallPerTTL(t *testing.T) {
	const fleet = 50
	const ttl = 300 * time.Millisecond
	env := newSimEnv(t, ec2sim.Config{Seed: 7}, Options{ReadAheadTTL: ttl})
	ids := make([]string, fleet)
	for i := range ids {
		ids[i] = env.launch(t, fmt.Sprintf("fleet-%d", i)).ID
	}
	for _, id := range ids {
		env.waitState(t, id, StateRunning)
	}

	// Each round asks about every instance one at a time, as spread-out resyncs do.
	round := func() int {
		env.sim.ResetCalls()
		for _, id := range ids {
			inst, err := env.client.GetInstance(context.Background(), id)
			if err != nil || inst.ID != id {
				t.Fatalf("GetInstance(%s) = %v, %v", id, inst, err)
			}
		}
		return env.sim.Calls("DescribeInstances")
	}
	round() // learns the fleet
	for r := range 3 {
		time.Sleep(ttl + 50*time.Millisecond)
		if calls := round(); calls > 2 {
			t.Errorf("round %d: %d DescribeInstances calls for %d settled instances, want at most 2", r, calls, fleet)
		}
	}
}

func TestReadAheadNeverAnswersWithStateThisClientChanged(t *testing.T) {
	env := newSimEnv(t, ec2sim.Config{Seed: 8, StoppingDuration: time.Hour}, Options{ReadAheadTTL: time.Hour})
	id := env.launch(t, "change-me").ID
	env.waitState(t, id, StateRunning)
	if _, err := env.client.GetInstance(context.Background(), id); err != nil {
		t.Fatal(err)
	}

	if err := env.client.StopInstance(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	inst, err := env.client.GetInstance(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if inst.State != StateStopping {
		t.Fatalf("after StopInstance the lookup said %s, want the fresh state stopping", inst.State)
	}
	// A stopping instance is in transition, so it is never served from memory.
	env.sim.ResetCalls()
	if _, err := env.client.GetInstance(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if n := env.sim.Calls("DescribeInstances"); n != 1 {
		t.Errorf("an instance in transition was served from memory (%d calls)", n)
	}
}

func TestReadAheadDropsAnswersFetchedBeforeAChange(t *testing.T) {
	now := time.Unix(1000, 0)
	r := newReadAhead(time.Minute, 0, func() time.Time { return now })
	r.lookup("i-1")
	sent := r.sentAt()
	now = now.Add(time.Second)
	r.invalidate("i-1") // the client changes i-1 while the batch is in flight
	r.store([]string{"i-1"}, map[string]*Instance{"i-1": {ID: "i-1", State: StateRunning}}, sent)
	if _, ok := r.lookup("i-1"); ok {
		t.Fatal("an answer older than the client's own change was served")
	}

	now = now.Add(time.Second)
	sent = r.sentAt()
	r.store([]string{"i-1"}, map[string]*Instance{"i-1": {ID: "i-1", State: StateRunning}}, sent)
	if _, ok := r.lookup("i-1"); ok {
		t.Fatal("an answer fetched right after the client's own change was kept: EC2 may not show the change yet")
	}

	now = now.Add(changeSettleTime)
	sent = r.sentAt()
	r.store([]string{"i-1"}, map[string]*Instance{"i-1": {ID: "i-1", State: StateRunning}}, sent)
	if _, ok := r.lookup("i-1"); !ok {
		t.Fatal("an answer fetched once the change had settled was not kept")
	}
}

func TestReadAheadForgetsInstancesNobodyAsksAbout(t *testing.T) {
	now := time.Unix(1000, 0)
	r := newReadAhead(time.Minute, 0, func() time.Time { return now })
	r.lookup("i-1")
	r.lookup("i-2")
	now = now.Add(keepFactor*time.Minute + time.Second)
	r.lookup("i-2")
	if got := r.extra([]string{"i-2"}, 10, nil); len(got) != 0 {
		t.Errorf("extra = %v, want the forgotten i-1 left out", got)
	}
	r.store([]string{"i-2"}, map[string]*Instance{}, r.sentAt())
	if got := r.extra(nil, 10, nil); len(got) != 0 {
		t.Errorf("an instance EC2 no longer knows is still read ahead: %v", got)
	}
}

func TestLookupAfterAChangeDoesNotJoinABatchSentBeforeIt(t *testing.T) {
	// Without read-ahead every lookup goes to EC2, so the first one reaches the gate.
	env := newSimEnv(t, ec2sim.Config{Seed: 9, StoppingDuration: time.Hour}, Options{})
	id := env.launch(t, "joiner").ID
	env.waitState(t, id, StateRunning)

	// The first lookup is answered by EC2 before the stop, but the answer is slow.
	gate := env.sim.BlockResponse("DescribeInstances")
	first := make(chan *Instance, 1)
	go func() {
		inst, _ := env.client.GetInstance(context.Background(), id)
		first <- inst
	}()
	<-gate.Arrived()
	if err := env.client.StopInstance(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	second := make(chan *Instance, 1)
	go func() {
		inst, _ := env.client.GetInstance(context.Background(), id)
		second <- inst
	}()
	before := env.sim.Calls("DescribeInstances")
	deadline := time.Now().Add(5 * time.Second)
	for env.sim.Calls("DescribeInstances") == before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // until the second lookup has sent its own request
	}
	gate.Release()

	if inst := <-first; inst == nil || inst.State != StateRunning {
		t.Fatalf("the first lookup should see the state before the stop, got %+v", inst)
	}
	if inst := <-second; inst == nil || inst.State != StateStopping {
		t.Fatalf("a lookup after the client's own stop answered %+v: it joined the batch sent before the stop", inst)
	}
}

func TestReadAheadServesInstancesInTransitionOnlyForTheShortTTL(t *testing.T) {
	now := time.Unix(1000, 0)
	r := newReadAhead(time.Minute, 2*time.Second, func() time.Time { return now })
	r.expect([]string{"i-new"})
	if got := r.extra(nil, 10, nil); len(got) != 1 || got[0] != "i-new" {
		t.Fatalf("an expected instance is not in the next batch: %v", got)
	}
	r.invalidate("i-new") // just launched by this client
	r.store([]string{"i-new"}, map[string]*Instance{"i-new": {ID: "i-new", State: StatePending}}, r.sentAt())
	now = now.Add(time.Second)
	if inst, ok := r.lookup("i-new"); !ok || inst.State != StatePending {
		t.Fatalf("a pending answer a second old was not served: %v %v", inst, ok)
	}
	if got := r.extra(nil, 10, nil); len(got) != 1 {
		t.Errorf("a pending answer older than half its ttl should be refreshed by the next batch: %v", got)
	}
	now = now.Add(1500 * time.Millisecond)
	if _, ok := r.lookup("i-new"); ok {
		t.Error("a pending answer older than the transition ttl was served")
	}
	r.store([]string{"i-new"}, map[string]*Instance{"i-new": {ID: "i-new", State: StateShuttingDown}}, r.sentAt())
	if _, ok := r.lookup("i-new"); ok {
		t.Error("a shutting-down answer was served from memory")
	}
}

// TestReadAheadLeavesOutInstancesOnTheirWayOut is a bulk delete: the instances this
// client terminated, and those terminated elsewhere, must not fill the batches that
// refresh the rest of the fleet (EC2 lists terminated instances for an hour). Either
// is described again when someone asks about it.
func TestReadAheadLeavesOutInstancesOnTheirWayOut(t *testing.T) {
	const ttl = time.Minute
	now := time.Unix(1_000_000, 0)
	ra := newReadAhead(ttl, 0, func() time.Time { return now })
	ids := []string{"i-live1", "i-live2", "i-elsewhere", "i-terminated-here"}
	ra.expect(ids)
	found := map[string]*Instance{}
	for _, id := range ids {
		found[id] = &Instance{ID: id, State: StateRunning}
	}
	found["i-elsewhere"].State = StateTerminated
	ra.store(ids, found, now)
	ra.retire("i-terminated-here")
	now = now.Add(ttl/2 + time.Second)

	got := map[string]bool{}
	for _, id := range ra.extra(nil, 10, nil) {
		got[id] = true
	}
	if len(got) != 2 || !got["i-live1"] || !got["i-live2"] {
		t.Errorf("read ahead %v, want only the two live instances", got)
	}
	if _, ok := ra.lookup("i-terminated-here"); ok {
		t.Error("an instance this client terminated was answered from memory")
	}
	got = map[string]bool{}
	for _, id := range ra.extra(nil, 10, nil) {
		got[id] = true
	}
	if !got["i-terminated-here"] {
		t.Errorf("read ahead %v after a lookup of the terminated instance, want it asked again with the rest", got)
	}
}
