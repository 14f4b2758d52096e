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
	"net/http/httptest"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// bench is one scenario's world: the emulator, the API server proxy that counts
// writes, a client, the namespace and the manager that currently runs.
type bench struct {
	t       *testing.T
	sc      scenario
	sim     *ec2sim.Sim
	simURL  string
	proxy   *apiProxy
	k8s     client.Client
	ns      string
	current *manager
	// phaseStart is when the phase being measured began.
	phaseStart time.Time
}

// newBench starts the emulator, the proxy, a namespace and the manager for sc. The
// emulator's server stops when the test ends.
func newBench(t *testing.T, sc scenario) *bench {
	t.Helper()
	sim := ec2sim.New(sc.sim)
	if sc.storage {
		// One address per object: the account's quota raised, as AWS does on request.
		sim.SetAddressLimit(sc.n)
	}
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	b := &bench{t: t, sc: sc, sim: sim, simURL: srv.URL, proxy: startAPIProxy(t, env.Config)}
	k8s, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b.k8s = k8s
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-"}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	b.ns = ns.Name
	if sc.sources {
		createSources(t, k8s, ns.Name, sc.unrelated)
	}
	b.current = b.startManager()
	if sc.guardrails != nil {
		guardedAccount(t, k8s, ns.Name, sc.guardrails)
	}
	return b
}

// startManager starts a manager for the scenario (the first, or one after a restart).
func (b *bench) startManager() *manager {
	return startManager(b.t, string(b.proxy.kubeconfig(b.t)), b.simURL, b.ns, b.sc.args)
}

// measure runs do, waits until done reports nothing missing (bounded by the
// scenario's timeout), and returns what the phase cost.
func (b *bench) measure(name string, do func(), done func() string) phase {
	t, sc := b.t, b.sc
	t.Helper()
	before, measured := scrapeReconcileHistogram(b.current.metricsURL), b.current
	b.sim.ResetCalls()
	throttledBefore := b.sim.ThrottledCalls()
	writes := b.proxy.writes.Load()
	start := time.Now()
	b.phaseStart = start
	do()
	deadline := start.Add(sc.timeout)
	for {
		missing := done()
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s: not done after %s: %s", sc.name, name, sc.timeout, missing)
		}
		time.Sleep(pollEvery(sc.n))
	}
	p := phase{scenario: sc.name, name: name, n: sc.n, wall: time.Since(start), calls: b.sim.CallCounts(),
		throttledBy: countsSince(b.sim.ThrottledCalls(), throttledBefore), writes: b.proxy.writes.Load() - writes, learning: sc.learning, set: sc.set}
	if b.current != measured {
		// A restarted manager counts from zero.
		before = nil
	}
	if after := scrapeReconcileHistogram(b.current.metricsURL); after != nil {
		p.reconciles = after.since(before).summary()
	}
	p.bursts, p.largestBurst = throttleBursts(b.sim.Requests())
	if p.calls["RunInstances"] > sc.n {
		p.launches = launchLog(b.sim)
	}
	return p
}

// restart stops the manager and measures a new one's first look at the fleet.
func (b *bench) restart() phase {
	b.current.stop()
	p := b.measure("restart", func() { b.current = b.startManager() }, quietFor(b.sim, 5*time.Second))
	p.rssMiB = b.current.peakRSS()
	return p
}

// checkNothingLeft fails when an instance (or, with storage, an address or a volume)
// outlives the objects, or when more instances were launched than launches wanted.
func (b *bench) checkNothingLeft(launches int) {
	t, sc, sim := b.t, b.sc, b.sim
	live := 0
	for _, i := range sim.Instances() {
		if i.State != ec2sim.StateShuttingDown && i.State != ec2sim.StateTerminated {
			live++
		}
	}
	if live != 0 || len(sim.Instances()) != launches {
		t.Errorf("%s: %d instances launched for %d launches wanted, %d left running", sc.name, len(sim.Instances()), launches, live)
	}
	if !sc.storage {
		return
	}
	// Nothing the operator created may outlive the objects: the addresses are
	// released, and the data volumes (deleteOnTermination) go with the instances once
	// they are terminated.
	if n := len(sim.Addresses()); n != 0 {
		t.Errorf("%s: %d Elastic IPs left allocated", sc.name, n)
	}
	deadline := time.Now().Add(sc.timeout)
	for {
		left := 0
		for _, v := range sim.Volumes() {
			if v.State != "deleted" {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s: %d volumes left", sc.name, left)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// logLaunchSpan logs when the phase's first and last RunInstances calls came, against
// when the objects were all created (BENCH_DEBUG).
func (b *bench) logLaunchSpan(createdAt time.Time) {
	var first, last time.Time
	for _, r := range b.sim.Requests() {
		if r.Operation == "RunInstances" {
			if first.IsZero() {
				first = r.Time
			}
			last = r.Time
		}
	}
	b.t.Logf("RunInstances from %s to %s after the phase began; objects created by %s",
		first.Sub(b.phaseStart), last.Sub(b.phaseStart), createdAt.Sub(b.phaseStart))
}
