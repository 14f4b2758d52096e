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
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func TestOwnedInstancesListsANamespacesLiveInstancesInOneSharedCall(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 6}, Options{})
	launchFor := func(ns, name string) *Instance {
		req := basicLaunch(ns + "-" + name)
		req.Tags = OwnershipTags(ns, name, "uid-"+name, "cluster-1")
		inst, err := e.client.RunInstance(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return inst
	}
	a1, a2 := launchFor("team-a", "web"), launchFor("team-a", "db")
	gone := launchFor("team-a", "old")
	launchFor("team-b", "web")
	if err := e.sim.TerminateInstance(gone.ID); err != nil {
		t.Fatal(err)
	}
	e.sim.ResetCalls()

	var wg sync.WaitGroup
	results := make([][]Instance, 5)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if results[i], err = e.client.OwnedInstances(context.Background(), "team-a", ""); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, got := range results {
		ids := map[string]bool{}
		for _, i := range got {
			ids[i.ID] = true
		}
		if len(got) != 2 || !ids[a1.ID] || !ids[a2.ID] {
			t.Errorf("listing of team-a: %v, want %s and %s (not the terminated one, not team-b's)", ids, a1.ID, a2.ID)
		}
	}
	if _, err := e.client.OwnedInstances(context.Background(), "team-a", ""); err != nil {
		t.Fatal(err)
	}
	if n := e.sim.Calls("DescribeInstances"); n != 1 {
		t.Errorf("six listings of one namespace made %d DescribeInstances calls, want 1", n)
	}
}

func TestALaunchJoinsTheSharedListingInsteadOfEndingIt(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 7}, Options{})
	ctx := context.Background()
	launch := func(name string) *Instance {
		req := basicLaunch("bulk-" + name)
		req.Tags = OwnershipTags("bulk", name, "uid-"+name, "cluster-1")
		inst, err := e.client.RunInstance(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return inst
	}
	first := launch("a")
	if _, err := e.client.OwnedInstances(ctx, "bulk", ""); err != nil {
		t.Fatal(err)
	}
	// A bulk create: every object lists, then launches. Each launch must not send the
	// next object to EC2 for a listing of its own.
	var launched []*Instance
	for _, name := range []string{"b", "c", "d"} {
		if _, err := e.client.OwnedInstances(ctx, "bulk", ""); err != nil {
			t.Fatal(err)
		}
		launched = append(launched, launch(name))
	}
	got, err := e.client.OwnedInstances(ctx, "bulk", "")
	if err != nil {
		t.Fatal(err)
	}
	if n := e.sim.Calls("DescribeInstances"); n != 1 {
		t.Errorf("listings around four launches made %d DescribeInstances calls, want the one shared", n)
	}
	ids := map[string]string{}
	for _, i := range got {
		ids[i.ID] = i.Tags[TagOwnerName]
	}
	if len(got) != 4 || ids[first.ID] != "a" {
		t.Errorf("listing %v, want the four instances with their owner names", ids)
	}
	for _, l := range launched {
		if ids[l.ID] == "" {
			t.Errorf("instance %s launched after the listing is missing from it or has no owner tag: %v", l.ID, ids)
		}
	}
}

func TestOwnedInstancesOfOneNameAnswersFromTheSharedListingWithThatNamesInstancesOnly(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 8}, Options{})
	ctx := context.Background()
	launch := func(name, uid string) *Instance { return e.launchOwned(t, "team", name, uid) }
	web1, web2 := launch("web", "uid-1"), launch("web", "uid-2")
	launch("db", "uid-3")
	e.sim.ResetCalls()
	// The listing starts here: a later launch is added to the answers of its own name.
	if _, err := e.client.OwnedInstances(ctx, "team", "db"); err != nil {
		t.Fatal(err)
	}
	later := launch("web", "uid-4")
	launch("cache", "uid-5")

	got, err := e.client.OwnedInstances(ctx, "team", "web")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, i := range got {
		ids[i.ID] = true
		if n := OwnerTag(i.Tags, TagOwnerName); n != "web" {
			t.Errorf("the answer for web holds %s, tagged for %q", i.ID, n)
		}
	}
	if len(got) != 3 || !ids[web1.ID] || !ids[web2.ID] || !ids[later.ID] {
		t.Errorf("instances for web: %v, want %s, %s and the later %s", ids, web1.ID, web2.ID, later.ID)
	}
	if none, err := e.client.OwnedInstances(ctx, "team", "api"); err != nil || len(none) != 0 {
		t.Errorf("instances for a name nothing carries: %v (%v), want none", none, err)
	}
	all, err := e.client.OwnedInstances(ctx, "team", "")
	if err != nil || len(all) != 5 {
		t.Errorf("every object's instances: %d (%v), want 5", len(all), err)
	}
	if n := e.sim.Calls("DescribeInstances"); n != 1 {
		t.Errorf("four answers made %d DescribeInstances calls, want the one shared listing", n)
	}
}

// TestThePreviousListingAnswersWhileTheNextIsFetched is a bulk delete of thousands of
// instances, where one listing takes seconds: the callers after the listing's ttl must
// not all stop for the next one. EC2 holds DescribeInstances here until the test lets
// it go; the answer meanwhile is the previous listing with the launches since.
func TestThePreviousListingAnswersWhileTheNextIsFetched(t *testing.T) {
	gate := make(chan struct{})
	var held atomic.Bool
	holding := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if held.Load() && strings.Contains(string(body), "Action=DescribeInstances") {
				select {
				case <-gate:
				case <-time.After(20 * time.Second):
				}
			}
			h.ServeHTTP(w, r)
		})
	}
	e := newSimEnvBehind(t, ec2sim.Config{Seed: 9}, Options{}, holding)
	ctx := context.Background()
	launch := func(name, uid string) *Instance { return e.launchOwned(t, "team", name, uid) }
	first := launch("web", "uid-1")
	if got, err := e.client.OwnedInstances(ctx, "team", "web"); err != nil || len(got) != 1 {
		t.Fatalf("first listing: %v (%v)", got, err)
	}
	later := launch("web", "uid-2")
	e.client.owned.ttl = time.Millisecond // the listing is due again at once
	time.Sleep(5 * time.Millisecond)
	held.Store(true)

	answered := make(chan []Instance, 1)
	go func() {
		got, err := e.client.OwnedInstances(ctx, "team", "web")
		if err != nil {
			t.Error(err)
		}
		answered <- got
	}()
	select {
	case got := <-answered:
		ids := map[string]bool{}
		for _, i := range got {
			ids[i.ID] = true
		}
		if len(got) != 2 || !ids[first.ID] || !ids[later.ID] {
			t.Errorf("answer while the next listing is held: %v, want %s and the later %s", ids, first.ID, later.ID)
		}
	case <-time.After(10 * time.Second):
		t.Error("the caller waited for the listing in flight although an earlier one could answer")
	}
	close(gate)
}

// launchOwned launches an instance with the ownership tags of an object of this
// cluster.
func (e *simEnv) launchOwned(t *testing.T, namespace, name, uid string) *Instance {
	t.Helper()
	req := basicLaunch("owned-" + uid)
	req.Tags = OwnershipTags(namespace, name, uid, "cluster-1")
	inst, err := e.client.RunInstance(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return inst
}
