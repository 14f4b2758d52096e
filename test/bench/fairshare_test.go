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

package bench

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// fairShareCeiling is the most launches of another namespace that may be sent between
// an object's creation and its own launch while one namespace has a backlog: the
// backlog's launch in flight and the one whose turn had come, with room for a pass
// that was already running.
const fairShareCeiling = 5

// TestBenchFairShare (make bench) creates a thousand objects in one namespace against
// EC2's documented limits (five launches, then two a second), then, once their
// launches wait in line, one object in another namespace. Namespaces take turns, so
// that object's launch must come after at most a handful of the backlog's, not after
// the backlog (eight minutes). BENCH_FAIR_N changes the backlog's size.
func TestBenchFairShare(t *testing.T) {
	if os.Getenv("BENCH") == "" {
		t.Log("set BENCH=1 (make bench) to run the fair-share benchmark")
		return
	}
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("BENCH_FAIR_N")); err == nil && v > 0 {
		n = v
	}
	documented := ec2limits.Documented()
	sim := ec2sim.New(ec2sim.Config{Throttle: &documented})
	srv := httptest.NewServer(sim)
	defer srv.Close()
	proxy := startAPIProxy(t, env.Config)
	k8s, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var bulk, team string
	for _, prefix := range []string{"bulk-", "team-"} {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}
		if err := k8s.Create(context.Background(), ns); err != nil {
			t.Fatal(err)
		}
		bulk, team = team, ns.Name
	}
	startManager(t, string(proxy.kubeconfig(t)), srv.URL, bulk+","+team, nil)

	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("bulk-%04d", i)
	}
	sc := scenario{n: n}
	parallel(names, func(name string) {
		if err := k8s.Create(context.Background(), instance(bulk, name, sc)); err != nil {
			t.Errorf("creating %s: %v", name, err)
		}
	})
	// The backlog is in line once the burst is spent and launches go at the refill rate.
	waitFor(t, 2*time.Minute, func() bool { return sim.Calls("RunInstances") >= 20 })

	created := time.Now()
	if err := k8s.Create(context.Background(), instance(team, "lonely", sc)); err != nil {
		t.Fatal(err)
	}
	var own time.Time
	waitFor(t, 5*time.Minute, func() bool {
		own = launchOf(sim.Requests(), team)
		return !own.IsZero()
	})
	others := 0
	for _, r := range sim.Requests() {
		if r.Operation == "RunInstances" && r.ErrorCode == "" && r.Time.After(created) && r.Time.Before(own) {
			others++
		}
	}
	t.Logf("\n| backlog | launches of the backlog sent before the other namespace's | its wait | the backlog's remaining wait |\n|---|---|---|---|\n| %d | %d | %s | %s |",
		n, others, own.Sub(created).Round(10*time.Millisecond), (time.Duration(n-sim.Calls("RunInstances")) * time.Second / 2).Round(time.Second))
	if others > fairShareCeiling {
		t.Errorf("%d launches of the backlog went before the other namespace's launch; ceiling %d", others, fairShareCeiling)
	}
}

// launchOf is when the first launch tagged for namespace was answered, zero if none.
func launchOf(log []ec2sim.Request, namespace string) time.Time {
	for _, r := range log {
		if r.Operation != "RunInstances" || r.ErrorCode != "" {
			continue
		}
		for _, values := range r.Params {
			if slices.Contains(values, namespace) {
				return r.Time
			}
		}
	}
	return time.Time{}
}

// waitFor polls cond every 100 ms until it holds, failing the test after timeout.
func waitFor(t *testing.T, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not done after %s", timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
