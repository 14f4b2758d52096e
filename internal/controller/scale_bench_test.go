package controller

import (
	"fmt"
	"testing"
	"time"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// BenchmarkSteadyStateDescribeCallsPerInstance measures what a fleet of settled
// instances costs in EC2 calls: it creates 100 EC2Instances, waits until all are Ready,
// then counts DescribeInstances calls over several resync periods. A controller that
// describes each instance on each resync (ACK's behaviour) scores 1.0
// describes/instance/resync; lower is better.
func BenchmarkSteadyStateDescribeCallsPerInstance(b *testing.B) {
	const fleet = 100
	const resync = 2 * time.Second
	h := newHarness(b, harnessOptions{tweak: func(r *EC2InstanceReconciler) {
		r.ResyncPeriod = resync
		r.AttributeResyncPeriod = time.Hour
		r.MaxConcurrentReconciles = 4
	}})
	h.timeout = 3 * time.Minute
	for i := range fleet {
		h.create(h.instance(fmt.Sprintf("fleet-%03d", i)))
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
		perResync := float64(h.sim.Calls("DescribeInstances")) / 3
		b.ReportMetric(perResync/fleet, "describes/instance/resync")
		b.ReportMetric(float64(h.mutatingCalls()), "mutating-calls")
		b.ReportMetric(float64(h.apiWrites.Load()-writes), "api-writes")
	}
}
