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

package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	"github.com/ec2-operator/ec2-operator/internal/sim/simworld"
)

// The fault campaign drives many objects through their whole life (create, change
// type, tags and power, delete) against an emulator of its own that fails and slows
// calls the way a bad day on EC2 does while the manager is killed with SIGKILL three
// times (once per phase), and once without faults or kills for comparison. The two
// run side by side, each with its own emulator, manager and namespace.
// Afterwards each object launched exactly one instance, none is left running, no
// object is stuck, and the faults cost at most three times the fault-free calls.

const (
	// campaignObjects is how many EC2Instances one campaign drives.
	campaignObjects = 50
	// campaignPhaseTimeout bounds each phase; a phase that does not finish in it has a
	// stuck object. EC2's documented RunInstances budget (5, then 2 a second) alone
	// takes 25 s for 50 launches, and every call here may wait up to 2 s.
	campaignPhaseTimeout = 6 * time.Minute
	// campaignCallRatio is how many times the fault-free campaign's calls the faulty
	// ones may make.
	campaignCallRatio = 3.0
)

// campaign is one run's settings.
type campaign struct {
	name   string
	faults bool
	// kills is how many times the manager is killed (one phase each, at a random
	// moment within it) and restarted.
	kills int
}

// campaignResult is what one run measured.
type campaignResult struct {
	calls    int            // EC2 calls received, failed ones and retries included
	byOp     map[string]int // the same by operation
	faulted  int            // calls answered with an injected error
	launched int            // instances the emulator launched
	phases   []time.Duration
}

func TestAFaultCampaignNeitherDuplicatesNorStrandsNorSticks(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CAMPAIGN_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("campaign seed %d (CAMPAIGN_SEED=%d repeats the faults and kill points)", seed, seed)

	results := map[string]*campaignResult{}
	var mu sync.Mutex
	campaigns := []campaign{
		{name: "fault-free"},
		{name: "faults-and-kills", faults: true, kills: 3},
	}
	t.Run("run", func(t *testing.T) {
		for i, c := range campaigns {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				r := runCampaign(t, c, seed+uint64(i))
				mu.Lock()
				results[c.name] = r
				mu.Unlock()
			})
		}
	})
	if t.Failed() {
		return
	}
	base := results["fault-free"]
	for _, c := range campaigns {
		r := results[c.name]
		ratio := float64(r.calls) / float64(base.calls)
		t.Logf("%-17s %4d EC2 calls (%.2fx fault-free), %d answered with a fault, %d instances launched, phases %v, by operation %v",
			c.name, r.calls, ratio, r.faulted, r.launched, r.phases, sortedCounts(r.byOp))
		if ratio > campaignCallRatio {
			t.Errorf("%s made %d EC2 calls, %.2f times the fault-free %d (at most %.0fx)", c.name, r.calls, ratio, base.calls, campaignCallRatio)
		}
	}
}

// runCampaign creates, changes and deletes campaignObjects objects with one manager
// against an emulator of its own, and checks the invariants.
func runCampaign(t *testing.T, c campaign, seed uint64) *campaignResult {
	rng := rand.New(rand.NewPCG(seed, 0xca))
	sim := ec2sim.New(ec2sim.Config{
		Seed:                 int64(seed),
		PendingDuration:      300 * time.Millisecond,
		StoppingDuration:     300 * time.Millisecond,
		ShuttingDownDuration: 300 * time.Millisecond,
	})
	simURL := simtest.Serve(t, sim)
	if c.faults {
		injectCampaignFaults(sim)
	}
	ns := newNamespace(t, c.name)
	args := []string{"--ec2-endpoint=" + simURL}
	m := startManager(t, c.name, ns, args...)

	// Each phase with a kill gets one, at a random moment early enough to land while
	// the phase is still under way.
	killPhases := map[string]bool{}
	for i, p := range []string{"create", "change", "delete"} {
		killPhases[p] = i < c.kills
	}
	maybeKill := func(phase string) {
		if !killPhases[phase] {
			return
		}
		time.Sleep(500*time.Millisecond + time.Duration(rng.Int64N(int64(5*time.Second))))
		t.Logf("%s: killing the manager (SIGKILL) during %s", c.name, phase)
		m.Kill()
		m = startManager(t, c.name, ns, args...)
	}
	res := &campaignResult{}
	ctx := context.Background()
	names := make([]string, campaignObjects)
	for i := range names {
		names[i] = fmt.Sprintf("c-%02d", i)
	}

	start := time.Now()
	for _, name := range names {
		if err := k8s.Create(ctx, campaignObject(ns, name)); err != nil {
			t.Fatal(err)
		}
	}
	maybeKill("create")
	waitCampaign(t, ns, names, func(o *computev1alpha1.EC2Instance) string {
		return readyFor(o, computev1alpha1.ReasonAvailable)
	})
	res.phases = append(res.phases, time.Since(start).Round(time.Second))

	// A third of the objects change type, a third their tags, a third stop.
	start = time.Now()
	for i, name := range names {
		var patch string
		switch i % 3 {
		case 0:
			patch = `{"spec":{"instanceType":"t3.small"}}`
		case 1:
			patch = `{"spec":{"tags":{"team":null,"wave":"two"}}}`
		case 2:
			patch = `{"spec":{"desiredState":"stopped"}}`
		}
		obj := &computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		if err := k8s.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			t.Fatal(err)
		}
	}
	maybeKill("change")
	waitCampaign(t, ns, names, func(o *computev1alpha1.EC2Instance) string {
		want := computev1alpha1.ReasonAvailable
		if o.Spec.DesiredState == computev1alpha1.DesiredStateStopped {
			want = computev1alpha1.ReasonStopped
		}
		if missing := readyFor(o, want); missing != "" {
			return missing
		}
		inst, ok := sim.Instance(o.Status.InstanceID)
		switch {
		case !ok:
			return "the emulator has no instance " + o.Status.InstanceID
		case inst.InstanceType != o.Spec.InstanceType:
			return "instance type " + inst.InstanceType
		case inst.Tags["wave"] != o.Spec.Tags["wave"] || inst.Tags["team"] != o.Spec.Tags["team"]:
			return fmt.Sprintf("instance tags %v", inst.Tags)
		}
		return ""
	})
	res.phases = append(res.phases, time.Since(start).Round(time.Second))

	start = time.Now()
	for _, name := range names {
		obj := &computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		if err := k8s.Delete(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	maybeKill("delete")
	waitCampaign(t, ns, nil, nil)
	res.phases = append(res.phases, time.Since(start).Round(time.Second))

	// None left running: every instance is terminating or gone (shutting-down lasts
	// 300 ms here).
	eventually(t, waitTimeout, func() string {
		var live []ec2sim.InstanceRecord
		for _, i := range sim.Instances() {
			if i.State != ec2sim.StateTerminated {
				live = append(live, i)
			}
		}
		return unlessEmpty(live)
	})
	checkOneLaunchPerObject(t, sim, ns, names)

	res.byOp = sim.CallCounts()
	for _, n := range res.byOp {
		res.calls += n
	}
	for _, r := range sim.Requests() {
		if r.ErrorCode != "" {
			res.faulted++
		}
	}
	res.launched = len(sim.Instances())
	if t.Failed() {
		t.Logf("%s manager log (last 80 lines):\n%s", c.name, fileTail(m.LogPath, 80))
	}
	return res
}

// injectCampaignFaults makes 5% of calls fail with HTTP 500 (half of them after the
// call took effect, as when EC2's answer is lost), 30% with RequestLimitExceeded,
// and delays every call by up to 2 s. The first fault that fires decides the error,
// so the later ones' probabilities are scaled to the calls the earlier ones left.
func injectCampaignFaults(sim *ec2sim.Sim) {
	sim.InjectFault(ec2sim.Fault{HTTPStatus: 500, Probability: 0.025})
	sim.InjectFault(ec2sim.Fault{HTTPStatus: 500, Probability: 0.025 / 0.975, AfterEffect: true})
	sim.InjectFault(ec2sim.Fault{Code: "RequestLimitExceeded", Probability: 0.30 / 0.95})
	sim.InjectFault(ec2sim.Fault{Jitter: 2 * time.Second})
}

// campaignObject is one object of a campaign, with EC2's IDs written out (no SSM
// lookup: the campaign counts the operator's instance calls).
func campaignObject(ns, name string) *computev1alpha1.EC2Instance {
	return &computev1alpha1.EC2Instance{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: computev1alpha1.EC2InstanceSpec{
			ImageID:          ec2sim.DefaultImageID,
			InstanceType:     "t3.micro",
			SubnetID:         ec2sim.DefaultSubnetIDs[0],
			SecurityGroupIDs: []string{ec2sim.WebSecurityGroupID},
			Tags:             map[string]string{"team": "platform"},
		},
	}
}

// readyFor says what keeps o from being Ready with reason for its current generation.
func readyFor(o *computev1alpha1.EC2Instance, reason string) string {
	c := meta.FindStatusCondition(o.Status.Conditions, computev1alpha1.ConditionReady)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != reason || c.ObservedGeneration != o.Generation {
		return fmt.Sprintf("Ready %+v, want True/%s for generation %d", c, reason, o.Generation)
	}
	return ""
}

// waitCampaign waits until every object of names satisfies done, or, with names nil,
// until the namespace has no EC2Instance left. It names the objects still waiting.
func waitCampaign(t *testing.T, ns string, names []string, done func(*computev1alpha1.EC2Instance) string) {
	t.Helper()
	deadline := time.Now().Add(campaignPhaseTimeout)
	for {
		var list computev1alpha1.EC2InstanceList
		if err := k8s.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		var waiting []string
		if names == nil {
			for _, o := range list.Items {
				waiting = append(waiting, fmt.Sprintf("%s: %s", o.Name, conditionSummary(&o)))
			}
		} else {
			byName := map[string]*computev1alpha1.EC2Instance{}
			for i := range list.Items {
				byName[list.Items[i].Name] = &list.Items[i]
			}
			for _, n := range names {
				o := byName[n]
				if o == nil {
					waiting = append(waiting, n+": missing")
				} else if missing := done(o); missing != "" {
					waiting = append(waiting, n+": "+missing)
				}
			}
		}
		if len(waiting) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d object(s) stuck after %s:\n%s", len(waiting), campaignPhaseTimeout, strings.Join(waiting, "\n"))
		}
		time.Sleep(time.Second)
	}
}

// conditionSummary is an object's Ready condition in one line.
func conditionSummary(o *computev1alpha1.EC2Instance) string {
	c := meta.FindStatusCondition(o.Status.Conditions, computev1alpha1.ConditionReady)
	if c == nil {
		return "no Ready condition"
	}
	return fmt.Sprintf("Ready=%s %s: %s", c.Status, c.Reason, c.Message)
}

// checkOneLaunchPerObject checks, from the emulator's records, that each object
// launched exactly one instance in all, and from its call log that each object's
// launches used one client token.
func checkOneLaunchPerObject(t *testing.T, sim *ec2sim.Sim, ns string, names []string) {
	t.Helper()
	perObject := map[string][]string{}
	for _, i := range sim.Instances() {
		if i.Tags[ec2.TagOwnerNamespace] != ns {
			t.Errorf("instance %s is not tagged for namespace %s: %v", i.ID, ns, i.Tags)
			continue
		}
		owner := i.Tags[ec2.TagOwnerName]
		perObject[owner] = append(perObject[owner], i.ID)
	}
	for _, n := range names {
		if got := perObject[n]; len(got) != 1 {
			t.Errorf("object %s launched %d instances: %v", n, len(got), got)
		}
	}
	tokens := simworld.ClientTokens("RunInstances", sim)
	if len(tokens) != len(names) {
		t.Errorf("RunInstances was called with %d client tokens for %d objects", len(tokens), len(names))
	}
}

// unlessEmpty names the instances that are not terminated, or returns "".
func unlessEmpty(live []ec2sim.InstanceRecord) string {
	if len(live) == 0 {
		return ""
	}
	return "instances not terminated: " + describeInstances(live)
}

// sortedCounts renders per-operation counts in a stable order.
func sortedCounts(m map[string]int) string {
	var parts []string
	for _, k := range simtest.SortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}
