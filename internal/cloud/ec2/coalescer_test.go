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
	"sync"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// launchMany launches n instances and returns their IDs.
func (e *simEnv) launchMany(t testing.TB, prefix string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = e.launch(t, fmt.Sprintf("%s-%d", prefix, i)).ID
	}
	return ids
}

// lookupAll runs one GetInstance per ID concurrently, all released at once.
func lookupAll(ctx context.Context, c *AWSClient, ids []string) ([]*Instance, []error) {
	insts := make([]*Instance, len(ids))
	errs := make([]error, len(ids))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			insts[i], errs[i] = c.GetInstance(ctx, id)
		}()
	}
	close(start)
	wg.Wait()
	return insts, errs
}

func TestConcurrentLookupsShareDescribeInstancesCalls(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	known := e.launchMany(t, "many", 60)
	unknown := []string{"i-0000000000000dea1", "i-0000000000000dea2", "i-0000000000000dea3"}

	// 200 lookups: every known ID about three times, plus each unknown ID a few times.
	var ids []string
	for i := 0; len(ids) < 200; i++ {
		if i%20 == 19 {
			ids = append(ids, unknown[(i/20)%len(unknown)])
			continue
		}
		ids = append(ids, known[i%len(known)])
	}
	e.sim.ResetCalls()

	insts, errs := lookupAll(context.Background(), e.client, ids)

	calls := e.sim.Calls("DescribeInstances")
	t.Logf("200 lookups cost %d DescribeInstances calls", calls)
	if calls > 5 {
		t.Errorf("200 lookups cost %d DescribeInstances calls, want at most 5", calls)
	}
	isUnknown := map[string]bool{}
	for _, id := range unknown {
		isUnknown[id] = true
	}
	for i, id := range ids {
		switch {
		case isUnknown[id]:
			if !awserrors.IsNotFound(errs[i]) || insts[i] != nil {
				t.Errorf("lookup %d of unknown %s: %v, %v; want NotFound", i, id, insts[i], errs[i])
			}
		case errs[i] != nil || insts[i] == nil || insts[i].ID != id:
			t.Errorf("lookup %d of %s: %+v, %v", i, id, insts[i], errs[i])
		}
	}
}

func TestCallersOfOneIDGetTheirOwnCopies(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	id := e.launch(t, "copy-0").ID
	insts, errs := lookupAll(context.Background(), e.client, []string{id, id})
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	insts[0].Tags["mutated"] = "yes"
	if _, shared := insts[1].Tags["mutated"]; shared || insts[0] == insts[1] {
		t.Error("two callers share one Instance")
	}
}

func TestABatchIsSentEarlyWhenFull(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{MaxBatchSize: 10, BatchWindow: 2 * time.Second})
	ids := e.launchMany(t, "full", 20)
	e.sim.ResetCalls()
	start := time.Now()
	_, errs := lookupAll(context.Background(), e.client, ids)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("full batches waited %v for the window", d)
	}
	if n := e.sim.Calls("DescribeInstances"); n != 2 {
		t.Errorf("%d DescribeInstances calls for two full batches, want 2", n)
	}
}

func TestACancelledLookupReturnsPromptly(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{BatchWindow: 300 * time.Millisecond})
	id := e.launch(t, "cancel-0").ID

	other := make(chan error, 1)
	go func() {
		_, err := e.client.GetInstance(context.Background(), id)
		other <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.client.GetInstance(ctx, id)
	if err == nil || time.Since(start) > 150*time.Millisecond {
		t.Errorf("cancelled lookup returned %v after %v", err, time.Since(start))
	}
	if err := <-other; err != nil {
		t.Errorf("the other caller of the batch failed: %v", err)
	}
}

func TestBatchErrorsReachEveryCaller(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	ids := e.launchMany(t, "fail", 5)
	defer e.sim.InjectFault(ec2sim.Fault{Operation: "DescribeInstances", Code: "UnauthorizedOperation", HTTPStatus: 403})()
	_, errs := lookupAll(context.Background(), e.client, append(ids, "i-0000000000000dead"))
	for i, err := range errs {
		if awserrors.KindOf(err) != awserrors.KindAuth {
			t.Errorf("caller %d got %v, want an auth error", i, err)
		}
	}
}

func TestLookupsFallBackToTheFilterOnMalformedIDs(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	id := e.launch(t, "malformed-0").ID
	insts, errs := lookupAll(context.Background(), e.client, []string{id, "not-an-instance-id"})
	if errs[0] != nil || insts[0].ID != id {
		t.Errorf("valid ID: %v, %v", insts[0], errs[0])
	}
	if !awserrors.IsNotFound(errs[1]) {
		t.Errorf("malformed ID: %v, want NotFound", errs[1])
	}
}

// BenchmarkGetInstanceCoalesced measures how many DescribeInstances calls concurrent
// lookups cost; the describes/lookup metric is what coalescing saves.
func BenchmarkGetInstanceCoalesced(b *testing.B) {
	e := newSimEnv(b, ec2sim.Config{Seed: 1}, Options{})
	known := e.launchMany(b, "bench", 100)
	ids := make([]string, 200)
	for i := range ids {
		ids[i] = known[i%len(known)]
	}
	e.sim.ResetCalls()
	b.ResetTimer()
	lookups := 0
	for b.Loop() {
		_, errs := lookupAll(context.Background(), e.client, ids)
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		lookups += len(ids)
	}
	b.ReportMetric(float64(e.sim.Calls("DescribeInstances"))/float64(lookups), "describes/lookup")
}
