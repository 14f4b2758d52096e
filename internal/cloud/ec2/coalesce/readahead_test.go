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

package coalesce

import (
	"testing"
	"time"
)

// vm is a described resource with an instance's states, enough for read-ahead's rules.
type vm struct{ id, state, tag string }

// testKind gives vm the stages the EC2 client gives an instance.
var testKind = Kind[*vm]{
	Stage: func(v *vm) Stage {
		switch v.state {
		case "running", "stopped":
			return Settled
		case "pending", "stopping":
			return Changing
		}
		return Ending
	},
	Clone: func(v *vm) *vm { c := *v; return &c },
}

func TestReadAheadDropsAnswersFetchedBeforeAChange(t *testing.T) {
	now := time.Unix(1000, 0)
	r := newReadAhead(time.Minute, 0, func() time.Time { return now }, testKind)
	r.lookup("i-1")
	sent := r.sentAt()
	now = now.Add(time.Second)
	r.invalidate("i-1") // the client changes i-1 while the batch is in flight
	r.store([]string{"i-1"}, map[string]*vm{"i-1": {id: "i-1", state: "running"}}, sent)
	if _, ok := r.lookup("i-1"); ok {
		t.Fatal("an answer older than the client's own change was served")
	}

	now = now.Add(time.Second)
	sent = r.sentAt()
	r.store([]string{"i-1"}, map[string]*vm{"i-1": {id: "i-1", state: "running"}}, sent)
	if _, ok := r.lookup("i-1"); ok {
		t.Fatal("an answer fetched right after the client's own change was kept: EC2 may not show the change yet")
	}

	now = now.Add(changeSettleTime)
	sent = r.sentAt()
	r.store([]string{"i-1"}, map[string]*vm{"i-1": {id: "i-1", state: "running"}}, sent)
	if _, ok := r.lookup("i-1"); !ok {
		t.Fatal("an answer fetched once the change had settled was not kept")
	}
}

func TestReadAheadForgetsInstancesNobodyAsksAbout(t *testing.T) {
	now := time.Unix(1000, 0)
	r := newReadAhead(time.Minute, 0, func() time.Time { return now }, testKind)
	r.lookup("i-1")
	r.lookup("i-2")
	now = now.Add(keepFactor*time.Minute + time.Second)
	r.lookup("i-2")
	if got := r.extra([]string{"i-2"}, 10, nil); len(got) != 0 {
		t.Errorf("extra = %v, want the forgotten i-1 left out", got)
	}
	r.store([]string{"i-2"}, map[string]*vm{}, r.sentAt())
	if got := r.extra(nil, 10, nil); len(got) != 0 {
		t.Errorf("an instance EC2 no longer knows is still read ahead: %v", got)
	}
}

func TestReadAheadServesInstancesInTransitionOnlyForTheShortTTL(t *testing.T) {
	now := time.Unix(1000, 0)
	r := newReadAhead(time.Minute, 2*time.Second, func() time.Time { return now }, testKind)
	r.expect([]string{"i-new"})
	if got := r.extra(nil, 10, nil); len(got) != 1 || got[0] != "i-new" {
		t.Fatalf("an expected instance is not in the next batch: %v", got)
	}
	r.invalidate("i-new") // just launched by this client
	r.store([]string{"i-new"}, map[string]*vm{"i-new": {id: "i-new", state: "pending"}}, r.sentAt())
	now = now.Add(time.Second)
	if inst, ok := r.lookup("i-new"); !ok || inst.state != "pending" {
		t.Fatalf("a pending answer a second old was not served: %v %v", inst, ok)
	}
	if got := r.extra(nil, 10, nil); len(got) != 1 {
		t.Errorf("a pending answer older than half its ttl should be refreshed by the next batch: %v", got)
	}
	now = now.Add(1500 * time.Millisecond)
	if _, ok := r.lookup("i-new"); ok {
		t.Error("a pending answer older than the transition ttl was served")
	}
	r.store([]string{"i-new"}, map[string]*vm{"i-new": {id: "i-new", state: "shutting-down"}}, r.sentAt())
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
	ra := newReadAhead(ttl, 0, func() time.Time { return now }, testKind)
	ids := []string{"i-live1", "i-live2", "i-elsewhere", "i-terminated-here"}
	ra.expect(ids)
	found := map[string]*vm{}
	for _, id := range ids {
		found[id] = &vm{id: id, state: "running"}
	}
	found["i-elsewhere"].state = "terminated"
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

// TestReadAheadKeepsAnswersWithAKnownChangeApplied: a change whose outcome the client
// knows (a tag written) is applied to what read-ahead holds and to the answer of a
// batch in flight, which are served without another describe, until EC2's answers
// can be expected to show the change themselves.
func TestReadAheadKeepsAnswersWithAKnownChangeApplied(t *testing.T) {
	now := time.Unix(1000, 0)
	r := newReadAhead(time.Minute, 0, func() time.Time { return now }, testKind)
	r.lookup("i-1")
	r.store([]string{"i-1"}, map[string]*vm{"i-1": {id: "i-1", state: "running"}}, r.sentAt())
	inFlight := r.sentAt()
	now = now.Add(time.Second)
	tagged := func(v *vm) *vm { v.tag = "own"; return v }
	r.patch([]string{"i-1"}, tagged)
	if v, ok := r.lookup("i-1"); !ok || v.tag != "own" {
		t.Fatalf("after the patch: %+v, %v; want the remembered answer with the change", v, ok)
	}
	// The batch sent before the change answers without it: it is kept, patched.
	r.store([]string{"i-1"}, map[string]*vm{"i-1": {id: "i-1", state: "running"}}, inFlight)
	if v, ok := r.lookup("i-1"); !ok || v.tag != "own" {
		t.Fatalf("an answer from before the change: %+v, %v; want it kept with the change", v, ok)
	}
	// Long after, EC2's answer is taken as it is.
	now = now.Add(2 * changeSettleTime)
	r.store([]string{"i-1"}, map[string]*vm{"i-1": {id: "i-1", state: "stopped"}}, r.sentAt())
	if v, ok := r.lookup("i-1"); !ok || v.state != "stopped" || v.tag != "" {
		t.Fatalf("a settled answer after the change: %+v, %v; want it as EC2 gave it", v, ok)
	}
	if len(r.patched) != 0 {
		t.Errorf("patches kept after they settled: %v", r.patched)
	}
}
