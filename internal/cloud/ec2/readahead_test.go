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
