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

package controller

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// BenchmarkSteadyStateDescribeCallsPerInstance measures what a fleet of settled
// instances costs in EC2 calls: it creates 100 EC2Instances, waits until all are Ready,
// then counts DescribeInstances calls over several resync periods. A controller that
// describes each instance on each resync (ACK's behaviour) scores 1.0
// describes/instance/resync; lower is better.
func BenchmarkSteadyStateDescribeCallsPerInstance(b *testing.B) {
	benchmarkSteadyState(b, false)
}

// BenchmarkSteadyStateWithVolumesAndAddresses is the same fleet with a data volume and
// an allocated Elastic IP on every instance: a settled volume or address must cost no
// call of its own (the instance's description shows both), so DescribeInstances stays
// where it is without them and DescribeVolumes and DescribeAddresses stay at zero
// between attribute resyncs.
func BenchmarkSteadyStateWithVolumesAndAddresses(b *testing.B) {
	benchmarkSteadyState(b, true)
}

// BenchmarkSteadyStateWithEvents is the fleet with EC2 events on: the resync (here
// scaled down like the others) is the only reason to describe a settled instance, so
// the per-hour figure is the per-resync one at the 1 h resync events allow.
func BenchmarkSteadyStateWithEvents(b *testing.B) {
	benchmarkSteadyStateWith(b, false, true)
}

// benchFleet is the fleet size of the steady-state benchmarks: BENCH_FLEET, or 100.
func benchFleet() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_FLEET")); err == nil && n > 0 {
		return n
	}
	return 100
}

func benchmarkSteadyState(b *testing.B, storage bool) { benchmarkSteadyStateWith(b, storage, false) }

// benchmarkSteadyState measures a settled fleet over three scaled-down resync periods
// and reports the DescribeInstances per instance per resync, and per hour at the
// production resync period: 10 minutes without events (6 resyncs an hour), 1 hour
// with them.
func benchmarkSteadyStateWith(b *testing.B, storage, withEvents bool) {
	fleet := benchFleet()
	const resync = 2 * time.Second
	h := newHarness(b, harnessOptions{events: withEvents, tweak: func(r *EC2InstanceReconciler) {
		r.ResyncPeriod = resync
		r.AttributeResyncPeriod = time.Hour
		r.MaxConcurrentReconciles = 4
	}})
	h.sim.SetAddressLimit(fleet)
	h.timeout = 3*time.Minute + time.Duration(fleet)*100*time.Millisecond
	for i := range fleet {
		obj := h.instance(fmt.Sprintf("fleet-%03d", i))
		if storage {
			obj.Spec.Volumes = []computev1alpha1.DataVolume{{DeviceName: "/dev/sdf", SizeGiB: ptr.To[int32](10)}}
			obj.Spec.ElasticIP = &computev1alpha1.ElasticIP{Allocate: true}
		}
		h.create(obj)
	}
	for i := range fleet {
		h.waitCondition(fmt.Sprintf("fleet-%03d", i), computev1alpha1.ConditionSynced, "True", computev1alpha1.ReasonInSync)
	}
	time.Sleep(resync)

	b.ResetTimer()
	for range b.N {
		h.sim.ResetCalls()
		writes := h.apiWrites.Load()
		time.Sleep(3 * resync)
		per := func(op string) float64 { return float64(h.sim.Calls(op)) / 3 / float64(fleet) }
		b.ReportMetric(per("DescribeInstances"), "describes/instance/resync")
		resyncsPerHour := 6.0 // the default 10-minute resync
		if withEvents {
			resyncsPerHour = 1 // the 1-hour default with events
		}
		b.ReportMetric(per("DescribeInstances")*resyncsPerHour, "describes/instance/hour")
		if storage {
			b.ReportMetric(per("DescribeVolumes"), "volume-describes/instance/resync")
			b.ReportMetric(per("DescribeAddresses"), "address-describes/instance/resync")
		}
		b.ReportMetric(float64(h.mutatingCalls()), "mutating-calls")
		b.ReportMetric(float64(h.apiWrites.Load()-writes), "api-writes")
	}
}
