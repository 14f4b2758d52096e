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
	"os"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// scenario is one bulk run: N objects against an emulator configured as sim, with a
// manager started with args.
type scenario struct {
	name string
	n    int
	sim  ec2sim.Config
	args []string
	// timeout bounds each phase.
	timeout time.Duration
	// storage gives every object a data volume and an Elastic IP the operator
	// allocates, so that their calls are counted too.
	storage bool
	// sources has every object read its user data from a Secret or a ConfigMap of
	// its namespace, next to unrelated Secrets and ConfigMaps that none reads.
	sources   bool
	unrelated int
	// steady, when set, measures the settled fleet for that long between create and
	// restart.
	steady time.Duration
	// learning says the manager is not told the emulator's limits and learns them,
	// which costs a few throttled answers (see throttleAllowance).
	learning bool
	// guardrails, when set, puts the objects under an AWSAccount (the operator's own
	// credentials) with these guardrails, so that the checks every request passes
	// are counted too.
	guardrails *computev1alpha1.Guardrails
	// set makes the n objects one EC2InstanceSet's replicas, and adds a rolling
	// image change between restart and delete (runSet).
	set bool
	// target, when set, is the most a set's create may take (the targets
	// for batched launches).
	target time.Duration
	// roll adds a set's rolling image change. Under the documented limits a
	// thousand replacements wait for the RunInstances resource bucket (a thousand
	// tokens, two a second), over eight minutes however they are batched.
	roll bool
}

// phase is what one phase cost.
type phase struct {
	scenario, name string
	n              int
	wall           time.Duration
	calls          map[string]int
	// throttledBy counts the phase's RequestLimitExceeded answers by action.
	throttledBy map[string]int
	// bursts is how many bursts of RequestLimitExceeded answers the phase had (see
	// throttleBursts), and largestBurst the most answers one of them held.
	bursts, largestBurst int
	writes               int64
	rssMiB               float64
	// launches says, for a phase with more RunInstances calls than objects, how the
	// calls went (client token and answer), so that a ceiling failure can be read.
	launches string
	// floor is the least time the emulator's RunInstances buckets allow for the
	// phase's launches (zero when they do not limit it); set for create.
	floor time.Duration
	// learning and set are the scenario's.
	learning, set bool
	// accepted is how long the API server took to accept the create phase's objects.
	accepted time.Duration
	// reconciles are the phase's EC2Instance reconciles and their durations'
	// percentiles.
	reconciles string
}

// launchFloor is the least time n separate RunInstances calls take under limits: a
// full bucket's worth at once, then the refill rate, for the request bucket and the
// resource-token bucket alike; zero without limits.
func launchFloor(limits *ec2limits.Limits, n int) time.Duration {
	if limits == nil {
		return 0
	}
	floor := floorOf(limits.Request("RunInstances"), n)
	if b, ok := limits.Resource("RunInstances"); ok {
		floor = max(floor, floorOf(b, n))
	}
	return floor
}

func floorOf(b ec2limits.Bucket, n int) time.Duration {
	if float64(n) <= b.Capacity {
		return 0
	}
	return time.Duration((float64(n) - b.Capacity) / b.RefillPerSecond * float64(time.Second))
}

// perInstance is a count divided by the number of objects.
func (p phase) perInstance(action string) float64 { return float64(p.calls[action]) / float64(p.n) }

// totalCalls is every EC2 call of the phase.
func (p phase) totalCalls() int {
	n := 0
	for _, c := range p.calls {
		n += c
	}
	return n
}

// run creates sc.n objects at once and waits until all are Ready, restarts the
// manager and waits until it has looked at them all, then deletes them all at once
// and waits until they are gone. With sc.set, the objects are one EC2InstanceSet's
// (runSet).
func run(t *testing.T, sc scenario) []phase {
	t.Helper()
	if sc.set {
		return runSet(t, sc)
	}
	b := newBench(t, sc)
	names := make([]string, sc.n)
	for i := range names {
		names[i] = fmt.Sprintf("bench-%04d", i)
	}
	var createdAt time.Time
	create := b.measure("create", func() {
		parallel(names, func(name string) {
			if err := b.k8s.Create(context.Background(), instance(b.ns, name, sc)); err != nil {
				t.Errorf("creating %s: %v", name, err)
			}
		})
		createdAt = time.Now()
	}, func() string { return notReady(t, b.k8s, b.ns, sc.n) })
	create.rssMiB = b.current.peakRSS()
	create.floor = launchFloor(sc.sim.Throttle, sc.n)
	create.accepted = createdAt.Sub(b.phaseStart)
	phases := []phase{create}
	if sc.steady > 0 {
		steady := b.measure("steady", func() {}, elapsed(sc.steady))
		steady.rssMiB = b.current.peakRSS()
		phases = append(phases, steady)
	}
	if os.Getenv("BENCH_DEBUG") != "" {
		b.logLaunchSpan(createdAt)
	}
	restart := b.restart()
	del := b.measure("delete", func() {
		parallel(names, func(name string) {
			obj := &computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Namespace: b.ns, Name: name}}
			if err := b.k8s.Delete(context.Background(), obj); client.IgnoreNotFound(err) != nil {
				t.Errorf("deleting %s: %v", name, err)
			}
		})
	}, func() string { return remaining(t, b.k8s, b.ns) })
	del.rssMiB = b.current.peakRSS()
	b.checkNothingLeft(sc.n)
	return append(phases, restart, del)
}

// instance is the object every scenario creates, against the emulator's seeded
// resources; with storage, it has a data volume and an Elastic IP; with sources, it
// reads its user data from a Secret or a ConfigMap.
func instance(ns, name string, sc scenario) *computev1alpha1.EC2Instance {
	obj := &computev1alpha1.EC2Instance{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: computev1alpha1.EC2InstanceSpec{
			ImageID:          ec2sim.DefaultImageID,
			InstanceType:     "t3.micro",
			SubnetID:         subnetFor(name, sc.n),
			SecurityGroupIDs: []string{ec2sim.DefaultSecurityGroupID},
			Tags:             map[string]string{"team": "bench"},
		},
	}
	if sc.sources {
		readUserDataFromSources(obj)
	}
	if sc.guardrails != nil {
		obj.Spec.AccountRef = &computev1alpha1.AccountReference{Name: ns}
	}
	if sc.storage {
		size := int32(10)
		obj.Spec.Volumes = []computev1alpha1.DataVolume{{DeviceName: "/dev/sdf", SizeGiB: &size}}
		obj.Spec.ElasticIP = &computev1alpha1.ElasticIP{Allocate: true}
	}
	return obj
}

// subnetAddresses is how many instances one default subnet (a /20, of which EC2
// reserves five addresses) holds.
const subnetAddresses = 4091

// subnetFor spreads n objects over as many of the default VPC's subnets as they need,
// by their number: all in the first up to 4,091, as a fleet in one subnet is; ten
// thousand over three, or the emulator answers InsufficientFreeAddressesInSubnet, as
// EC2 would.
func subnetFor(name string, n int) string {
	subnets := min(len(ec2sim.DefaultSubnetIDs), (n+subnetAddresses-1)/subnetAddresses)
	var i int
	if _, err := fmt.Sscanf(name, "bench-%d", &i); err != nil || subnets <= 1 {
		return ec2sim.DefaultSubnetIDs[0]
	}
	return ec2sim.DefaultSubnetIDs[i%subnets]
}

// parallel runs f for every name with a few goroutines: objects "applied at once".
func parallel(names []string, f func(string)) {
	work := make(chan string)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range work {
				f(name)
			}
		}()
	}
	for _, n := range names {
		work <- n
	}
	close(work)
	wg.Wait()
}

// notReady says how many of n objects are not Ready yet ("" when all are).
func notReady(t *testing.T, k8s client.Client, ns string, n int) string {
	list := &computev1alpha1.EC2InstanceList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		return err.Error()
	}
	ready := 0
	reasons := map[string]int{}
	for _, o := range list.Items {
		if meta.IsStatusConditionTrue(o.Status.Conditions, computev1alpha1.ConditionReady) {
			ready++
		} else if c := meta.FindStatusCondition(o.Status.Conditions, computev1alpha1.ConditionReady); c != nil {
			reasons[c.Reason]++
		} else {
			reasons["(none yet)"]++
		}
	}
	if ready == n {
		return ""
	}
	return fmt.Sprintf("%d of %d Ready, the others: %v", ready, n, reasons)
}

// remaining says how many objects still exist ("" when none).
func remaining(t *testing.T, k8s client.Client, ns string) string {
	list := &computev1alpha1.EC2InstanceList{}
	if err := k8s.List(context.Background(), list, client.InNamespace(ns)); err != nil {
		return err.Error()
	}
	if len(list.Items) == 0 {
		return ""
	}
	return fmt.Sprintf("%d objects left", len(list.Items))
}

// quietFor is done once the emulator has had no call for d: a restarted manager has
// looked at every object (the next resync is a minute away).
func quietFor(sim *ec2sim.Sim, d time.Duration) func() string {
	last, lastChange := -1, time.Now()
	return func() string {
		n := 0
		for _, c := range sim.CallCounts() {
			n += c
		}
		if n != last {
			last, lastChange = n, time.Now()
		}
		if time.Since(lastChange) < d {
			return fmt.Sprintf("%d calls so far, waiting for %s without one", n, d)
		}
		return ""
	}
}

// pollEvery is how often a phase's end is looked for: every 100 ms, and for more than
// 1,000 objects proportionally less often, so that listing them all does not load the
// API server the manager is measured against (10,000 objects are about 50 MB a list).
func pollEvery(n int) time.Duration {
	return 100 * time.Millisecond * time.Duration(max(1, n/1000))
}

// elapsed is done once d has passed since its first call.
func elapsed(d time.Duration) func() string {
	var since time.Time
	return func() string {
		if since.IsZero() {
			since = time.Now()
		}
		if left := d - time.Since(since); left > 0 {
			return fmt.Sprintf("%s of the window left", left.Round(time.Second))
		}
		return ""
	}
}

// countsSince is the counts of now, less those of before.
func countsSince(now, before map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range now {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func sumOf(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
