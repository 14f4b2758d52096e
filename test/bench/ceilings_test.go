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
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// ceiling is an upper bound on one count (per instance, unless it says otherwise) in
// one phase.
type ceiling struct {
	phase, what string
	max         float64
	value       func(phase) float64
	// fixed is how many calls in all the phase may make on top of max per instance:
	// the namespace's listing of owner-tagged instances, which the restore check
	// before the first launches and the extras check of a deletion share (one call
	// for the namespace, however many objects).
	fixed float64
}

// callsOf is the per-instance count of one EC2 action, a throttled call and its
// repeat counted once: a learning manager finds the account's limits by being
// throttled (see throttleAllowance), and each throttled call is sent again. Only as
// many as the phase may be throttled count once; more are over the burst ceilings.
func callsOf(action string) func(phase) float64 {
	return func(p phase) float64 {
		repeated := min(float64(p.throttledBy[action]), throttleAllowance(p))
		return (float64(p.calls[action]) - repeated) / float64(p.n)
	}
}

// bulkCeilings are the targets for bulk changes, per instance.
var bulkCeilings = []ceiling{
	// Two calls in all may repeat a launch under its own client token: the SDK retries
	// a RunInstances whose connection failed (seen on a loaded 2-core machine), and
	// EC2 answers the repeat with the same instance. run() checks that every object
	// got exactly one instance, and a ceiling failure lists the repeated tokens.
	// A learning manager's throttled launches are repeated too (see callsOf).
	{"create", "RunInstances", 1.0, callsOf("RunInstances"), 2},
	{"create", "DescribeInstances", 0.2, callsOf("DescribeInstances"), 1},
	{"create", "DescribeInstanceAttribute", 0, callsOf("DescribeInstanceAttribute"), 0},
	// Every object has the same spec: one question about its image and one about its
	// instance type answer all of them, however many reconciles ask at once.
	{"create", "DescribeImages", 0, callsOf("DescribeImages"), 1},
	{"create", "DescribeInstanceTypes", 0, callsOf("DescribeInstanceTypes"), 1},
	{"create", "apiserver writes", 3, func(p phase) float64 {
		if p.set {
			return 0 // setCeilings
		}
		return float64(p.writes) / float64(p.n)
	}, 0},
	{"restart", "EC2 calls", 0.05, func(p phase) float64 { return float64(p.totalCalls()) / float64(p.n) }, 0},
	{"restart", "apiserver writes", 0, func(p phase) float64 { return float64(p.writes) / float64(p.n) }, 0},
	{"delete", "TerminateInstances", 1.0, callsOf("TerminateInstances"), 0},
	{"delete", "DescribeInstances", 0.2, callsOf("DescribeInstances"), 1},
	{"delete", "DescribeInstanceAttribute", 0, callsOf("DescribeInstanceAttribute"), 0},
	{"any", "RequestLimitExceeded bursts beyond what learning may cost (in all)", 0, func(p phase) float64 {
		return max(0, float64(p.bursts)-burstAllowance(p))
	}, 0},
	{"any", "RequestLimitExceeded answers in one burst (in all)", 0, func(p phase) float64 {
		return float64(max(0, p.largestBurst-maxBurstAnswers))
	}, 0},
}

// burstAllowance is how many bursts of throttled answers a phase may have. A manager
// that keeps to limits it is told has none. One that learns the account's limits (the
// default) finds them by probing above the documented rate, and EC2 throttles the
// probe that goes too far: on an account at the documented limits that is one burst
// per API (then it stops probing for ten minutes), so two in all; on an account with
// raised limits a few per minute, under 2 % of the calls.
func burstAllowance(p phase) float64 {
	if !p.learning {
		return 0
	}
	return max(2, 0.02*float64(p.totalCalls()))
}

// maxBurstAnswers is the most throttled answers one burst may hold: the calls already
// on their way when EC2 refused the first. The client wakes the calls waiting for
// tokens at a throttle and admits them again at the rate it cut to
// (internal/cloud/ec2/throttle's wait.go), so only calls already sent or about to be
// are refused too; an answer comes back within the client's jitter allowance of half
// a second, and a learning RunInstances rate climbs to at most eight a second in it.
// (One answer was the whole burst on an idle machine and on a busy one; before the
// client admitted waiting calls again, five were seen on a loaded 2-core CI machine.)
const maxBurstAnswers = 4

// throttleAllowance is how many throttled answers a phase may have: its allowed
// bursts, each as large as a burst may be.
func throttleAllowance(p phase) float64 { return burstAllowance(p) * maxBurstAnswers }

// throttleBursts counts the bursts of RequestLimitExceeded answers in a request log
// and the size of the largest. A burst is one API's throttled answers that came within
// a second of the burst's first: the window the client itself gives the calls already
// on their way before it cuts its rate again (cutSpacing in internal/cloud/ec2).
func throttleBursts(log []ec2sim.Request) (bursts, largest int) {
	type open struct {
		start time.Time
		size  int
	}
	current := map[string]*open{}
	for _, r := range log {
		if r.ErrorCode != "RequestLimitExceeded" {
			continue
		}
		b, ok := current[r.Operation]
		if !ok || r.Time.Sub(b.start) > time.Second {
			b = &open{start: r.Time}
			current[r.Operation] = b
			bursts++
		}
		b.size++
		largest = max(largest, b.size)
	}
	return bursts, largest
}

// setCeilings are the writes of a set's create: each instance's three, the object the
// operator creates for it (a user's create, uncounted, in the other scenarios), and
// the set's status, written at once on a transition and otherwise at most every two
// seconds (40 writes cover the transitions and 70 s of launching).
var setCeilings = []ceiling{
	{"create", "apiserver writes of a set", 4, func(p phase) float64 { return float64(p.writes) / float64(p.n) }, 40},
	// A set launches in batches of up to a hundred: the issue asks for at most one
	// call per fifty replicas. Each instance then gets its own name and UID tags.
	{"create", "RunInstances of a set", 1.0 / 50, callsOf("RunInstances"), 0},
	{"create", "CreateTags of a set", 1, callsOf("CreateTags"), 0},
	{"own tags follow", "CreateTags of a set", 1, callsOf("CreateTags"), 0},
}

// storageCeilings are the extra calls a data volume and an allocated Elastic IP may
// cost, per instance: the volume is created and attached by RunInstances, the
// address is found (one listing for the namespace), allocated and associated once,
// and DescribeVolumes and DescribeAddresses are batched like DescribeInstances.
var storageCeilings = []ceiling{
	{"create", "CreateVolume", 0, callsOf("CreateVolume"), 0},
	{"create", "AttachVolume", 0, callsOf("AttachVolume"), 0},
	{"create", "AllocateAddress", 1, callsOf("AllocateAddress"), 0},
	{"create", "AssociateAddress", 1, callsOf("AssociateAddress"), 0},
	{"create", "DescribeAddresses", 0.2, callsOf("DescribeAddresses"), 1},
	{"create", "DescribeVolumes", 0.2, callsOf("DescribeVolumes"), 0},
	{"restart", "EC2 calls", 0.05, func(p phase) float64 { return float64(p.totalCalls()) / float64(p.n) }, 0},
	{"delete", "ReleaseAddress", 1, callsOf("ReleaseAddress"), 0},
	{"delete", "DisassociateAddress", 1, callsOf("DisassociateAddress"), 0},
	{"delete", "DescribeAddresses", 0.2, callsOf("DescribeAddresses"), 1},
	{"delete", "DescribeVolumes", 0, callsOf("DescribeVolumes"), 0},
}

// checkCeilings fails for every count over its ceiling. With instant instances the
// create ceiling on writes is three (finalizer, launch record, Ready); an instance that
// is still pending when first seen costs one more (its ID with the pending state).
func checkCeilings(t *testing.T, phases []phase, instant, storage bool) {
	t.Helper()
	ceilings := append([]ceiling(nil), bulkCeilings...)
	if storage {
		ceilings = append(ceilings, storageCeilings...)
	}
	for _, p := range phases {
		if p.set {
			ceilings = append(ceilings, setCeilings...)
			break
		}
	}
	for _, p := range phases {
		for _, c := range ceilings {
			if c.phase != p.name && c.phase != "any" {
				continue
			}
			if c.phase == "create" && c.what == "apiserver writes" && !instant {
				continue
			}
			limit := c.max + c.fixed/float64(p.n)
			if v := c.value(p); v > limit+1e-9 {
				t.Errorf("%s %s: %s %.3f, ceiling %.2f + %.0f in all (calls %v, writes %d; repeated launches: %s)", p.scenario, p.name, c.what, v, c.max, c.fixed, p.calls, p.writes, p.launches)
			}
		}
	}
}

// TestBulkChangesStayUnderTheirCallCeilings is the small version of `make bench` that
// runs in `make test`: 20 objects created, the manager restarted and the objects
// deleted, with the emulator enforcing EC2's documented API limits, must stay under
// the ceilings on EC2 calls and apiserver writes per instance, and never be throttled.
func TestBulkChangesStayUnderTheirCallCeilings(t *testing.T) {
	limits := ec2limits.Documented()
	phases := run(t, scenario{
		name: "ceilings", n: 20, timeout: 3 * time.Minute,
		sim: ec2sim.Config{Throttle: &limits}, learning: true,
	})
	t.Logf("\n%s", table(phases))
	checkCeilings(t, phases, true, false)
}

// TestBulkChangesWithVolumesAndAddressesStayUnderTheirCallCeilings is the same with a
// data volume and an allocated Elastic IP on every object: their calls must be
// batched or shared like the instances', and nothing may be left behind.
func TestBulkChangesWithVolumesAndAddressesStayUnderTheirCallCeilings(t *testing.T) {
	limits := ec2limits.Documented()
	phases := run(t, scenario{
		name: "ceilings, volumes and addresses", n: 20, timeout: 3 * time.Minute, storage: true,
		sim: ec2sim.Config{Throttle: &limits}, learning: true,
	})
	t.Logf("\n%s", table(phases))
	checkCeilings(t, phases, true, true)
}

// TestBulkChangesUnderGuardrailsStayUnderTheirCallCeilings is the same under an
// AWSAccount with guardrails: every request is checked where it leaves, and the
// lookups the checks need (the subnet's VPC, the image's owner) are shared like the
// rest, so the ceilings are the same, and not one request is refused.
func TestBulkChangesUnderGuardrailsStayUnderTheirCallCeilings(t *testing.T) {
	limits := ec2limits.Documented()
	phases := run(t, scenario{
		name: "ceilings, under guardrails", n: 20, timeout: 3 * time.Minute,
		sim: ec2sim.Config{Throttle: &limits}, learning: true, guardrails: platformGuardrails(),
	})
	t.Logf("\n%s", table(phases))
	checkCeilings(t, phases, true, false)
}
