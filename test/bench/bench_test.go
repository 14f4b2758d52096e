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
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// raisedLimits is an account whose RunInstances and StartInstances limits AWS raised
// tenfold, the only way to launch 1,000 instances in about a minute: with the
// documented two launches a second it takes over eight. The emulator enforces the
// same buckets the manager is told about.
const raisedLimits = "RunInstances=50/20,RunInstances.resources=1000/20,StartInstances=50/20,StartInstances.resources=1000/20"

// benchScenarios are the runs `make bench` reports.
func benchScenarios(t *testing.T) []scenario {
	documented := ec2limits.Documented()
	raised, err := ec2limits.Documented().Parse(raisedLimits)
	if err != nil {
		t.Fatal(err)
	}
	// An account whose every limit AWS raised tenfold, which the manager is not told.
	tenfold := ec2limits.Documented().Scaled(10)
	// And one raised a hundredfold: 200 launches a second, for ten thousand objects.
	hundredfold := ec2limits.Documented().Scaled(100)
	return []scenario{
		// The peers' harness: an EC2 that neither throttles nor waits, and no client
		// pacing, so the time is the operator's own.
		{name: "unthrottled, limits off", n: 100, timeout: 5 * time.Minute, args: []string{"--aws-api-limits=off"}},
		// The same EC2 with the defaults: the manager starts from the documented
		// limits and learns that there are none to speak of.
		{name: "unthrottled, learned", n: 100, timeout: 5 * time.Minute, learning: true},
		// The defaults against an EC2 enforcing its documented limits: the time is
		// what AWS allows (5 launches, then 2 a second), plus the one probe that
		// finds the documented limit is the account's.
		{name: "documented limits, learned", n: 100, timeout: 5 * time.Minute, sim: ec2sim.Config{Throttle: &documented}, learning: true},
		// The same with the limits pinned: nothing is ever throttled.
		{name: "documented limits, pinned", n: 100, timeout: 5 * time.Minute, sim: ec2sim.Config{Throttle: &documented},
			args: []string{"--aws-api-limits=documented"}},
		// The documented limits with instances that take time to boot and to shut down.
		{name: "documented, realistic delays", n: 100, timeout: 5 * time.Minute, learning: true,
			sim: ec2sim.Config{Throttle: &documented, PendingDuration: 15 * time.Second, ShuttingDownDuration: 5 * time.Second}},
		// The documented limits with a data volume and an allocated Elastic IP on
		// every object.
		{name: "documented, volumes and addresses", n: 100, timeout: 5 * time.Minute, storage: true, learning: true,
			sim: ec2sim.Config{Throttle: &documented}},
		// Limits raised tenfold that the manager is not told: it learns them.
		{name: "raised tenfold, learned", n: 100, timeout: 5 * time.Minute, sim: ec2sim.Config{Throttle: &tenfold}, learning: true},
		{name: "raised tenfold, learned", n: 1000, timeout: 10 * time.Minute, sim: ec2sim.Config{Throttle: &tenfold}, learning: true,
			steady: 65 * time.Second},
		// Ten thousand objects against an account with every limit raised a
		// hundredfold, with the defaults: create, a settled resync period (the
		// bench's 60 s), restart and delete, with the reconciles' durations.
		{name: "raised hundredfold, learned", n: 10000, timeout: 20 * time.Minute, sim: ec2sim.Config{Throttle: &hundredfold},
			learning: true, steady: 65 * time.Second},
		// Every object reads its user data from a Secret or a ConfigMap, so the
		// manager watches both kinds in the namespace; then the same next to 10,000
		// Secrets and ConfigMaps there that no object reads, which may cost at most
		// unrelatedGrowthMiB more (checkUnrelatedGrowth).
		{name: "user data from sources", n: 100, timeout: 5 * time.Minute, sources: true, args: []string{"--aws-api-limits=off"}},
		{name: "user data from sources, 10,000 unrelated", n: 100, timeout: 5 * time.Minute, sources: true, unrelated: 10000,
			args: []string{"--aws-api-limits=off"}},
		// The same hundred, and a thousand, as the replicas of one EC2InstanceSet
		// instead of separate objects, with a rolling image change (maxSurge 25%,
		// maxUnavailable 0) that must keep every replica Ready throughout. The set
		// launches its instances in batches of up to a hundred per RunInstances call,
		// past the separate objects' per-call floor: the targets are 10 s for
		// a hundred and 60 s for a thousand under the documented limits. (The
		// thousand do not roll under the documented limits: see scenario.roll.)
		{name: "documented limits, one set", n: 100, timeout: 5 * time.Minute, sim: ec2sim.Config{Throttle: &documented},
			learning: true, set: true, target: 10 * time.Second, roll: true},
		{name: "documented limits, one set", n: 1000, timeout: 10 * time.Minute, sim: ec2sim.Config{Throttle: &documented},
			learning: true, set: true, target: time.Minute},
		{name: "raised tenfold, one set", n: 1000, timeout: 10 * time.Minute, sim: ec2sim.Config{Throttle: &tenfold},
			learning: true, set: true, roll: true},
		// A thousand objects against an account with raised launch limits, which the
		// manager is told.
		{name: "raised launch limits, configured", n: 1000, timeout: 10 * time.Minute, sim: ec2sim.Config{Throttle: &raised},
			args: []string{"--aws-api-limits=" + raisedLimits}},
	}
}

// TestBench runs the scenarios of `make bench` (BENCH=1) and prints one table; with
// BENCH_SCENARIOS it runs only the scenarios whose names contain one of its
// comma-separated words. It asserts the same ceilings as the small test.
func TestBench(t *testing.T) {
	if os.Getenv("BENCH") == "" {
		t.Log("set BENCH=1 (make bench) to run the bulk benchmark")
		return
	}
	var phases []phase
	for _, sc := range benchScenarios(t) {
		if !selected(sc.name) {
			continue
		}
		// BENCH_ARGS replaces the manager's flags, for a build (BENCH_MANAGER) that
		// does not know the current ones.
		if args, ok := os.LookupEnv("BENCH_ARGS"); ok {
			sc.args = strings.Fields(args)
		}
		start := time.Now()
		p := run(t, sc)
		t.Logf("%s: %s", sc.name, time.Since(start).Round(time.Second))
		phases = append(phases, p...)
		if sc.sim.Throttle != nil {
			checkCeilings(t, p, sc.sim.PendingDuration == 0, sc.storage)
		}
	}
	checkUnrelatedGrowth(t, phases)
	fmt.Printf("\n%s\n", table(phases))
}

// selected reports whether BENCH_SCENARIOS selects a scenario.
func selected(name string) bool {
	want := os.Getenv("BENCH_SCENARIOS")
	if want == "" {
		return true
	}
	for _, w := range strings.Split(want, ",") {
		if w != "" && strings.Contains(name, w) {
			return true
		}
	}
	return false
}
