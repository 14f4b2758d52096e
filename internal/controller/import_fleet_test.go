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
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/importer"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// TestImportedFleetObserveThenFull is the brownfield path end to end: a fleet of 20
// varied instances made outside Kubernetes is imported (internal/importer, what
// `kubectl ec2 import` runs) and applied in Observe; across creation, resyncs, drift
// made outside and deletion the emulator sees no changing call but the test's own.
// Imported again and switched to Full, the switch writes only the ownership claims,
// and a field then set is converged. The harness's one-second resync stands for the
// shipped one: the reaction tested is the periodic look itself.
func TestImportedFleetObserveThenFull(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	ctx := context.Background()
	c := h.ec2Client()
	const fleet = 20
	ids := h.launchVariedFleet(c, fleet)
	var stopped []string
	for i := 1; i < fleet; i += 5 {
		stopped = append(stopped, ids[i])
	}
	h.stopOutside(c, stopped...)

	start := h.sim.CallCounts()
	objs := h.importFleet()
	h.createAndObserve(objs)
	// A few resyncs go by.
	describes := h.sim.CallCounts()["DescribeInstances"]
	h.eventually(h.timeout, func() string {
		n := h.sim.CallCounts()["DescribeInstances"]
		return unless(n >= describes+3, "%d DescribeInstances since the fleet was observed", n-describes)
	})
	before := h.sim.CallCounts()
	for _, id := range ids[:3] {
		if err := c.SetDetailedMonitoring(ctx, id, false); err != nil {
			t.Fatal(err)
		}
	}
	own := mutatingSince(before, h.sim.CallCounts())
	for _, obj := range objs {
		if obj.Spec.InstanceID == ids[0] || obj.Spec.InstanceID == ids[1] || obj.Spec.InstanceID == ids[2] {
			h.waitCondition(obj.Name, computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonDriftDetected)
		}
	}
	for _, obj := range objs {
		h.deleteObject(obj.Name)
	}
	for _, obj := range objs {
		h.waitGone(obj.Name)
	}
	if calls := mutatingSince(start, h.sim.CallCounts()); calls != own {
		t.Fatalf("in Observe, across creation, resyncs, drift and deletion: changing calls %q, the test's own %q", calls, own)
	}
	if n := len(h.liveInstances()); n != fleet {
		t.Fatalf("%d live instances after deleting the Observe objects, want %d", n, fleet)
	}

	// Imported again (the drift is now part of what the instances are), observed,
	// then switched to Full.
	objs = h.importFleet()
	h.createAndObserve(objs)
	before = h.sim.CallCounts()
	for _, obj := range objs {
		h.update(obj.Name, func(o *computev1alpha1.EC2Instance) { o.Spec.ManagementPolicy = computev1alpha1.ManagementPolicyFull })
	}
	for _, obj := range objs {
		h.waitEvent(obj.Name, "Adopted")
		h.eventually(h.timeout, func() string {
			got := h.get(obj.Name)
			ready := findCondition(got, computev1alpha1.ConditionReady)
			return unless(ready.Status == metav1.ConditionTrue && ready.Reason != computev1alpha1.ReasonObserving,
				"%s: Ready %s %s", obj.Name, ready.Status, ready.Reason)
		})
	}
	if calls := mutatingSince(before, h.sim.CallCounts()); calls != fmt.Sprintf("CreateTags=%d", fleet) {
		t.Errorf("switching %d imported objects to Full made %q, want only the claims", fleet, calls)
	}
	// Taking control of a field: monitoring off on an instance that has it.
	target := objs[len(objs)-1]
	if !h.simInstance(target.Spec.InstanceID).Monitoring {
		t.Fatalf("%s has no monitoring to turn off", target.Spec.InstanceID)
	}
	before = h.sim.CallCounts()
	h.update(target.Name, func(o *computev1alpha1.EC2Instance) { o.Spec.Monitoring = ptr.To(false) })
	h.eventually(h.timeout, func() string {
		return unless(!h.simInstance(target.Spec.InstanceID).Monitoring, "monitoring still on")
	})
	if calls := mutatingSince(before, h.sim.CallCounts()); calls != "UnmonitorInstances=1" {
		t.Errorf("setting monitoring: false made %q, want UnmonitorInstances=1", calls)
	}
}

// importFleet imports the fleet launchVariedFleet made, as `kubectl ec2 import --tag
// cost-center=42` would, into the test's namespace.
func (h *harness) importFleet() []computev1alpha1.EC2Instance {
	h.t.Helper()
	inv := ec2.NewFromConfig(aws.Config{Region: ec2sim.DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDIMPORT", "import", "")}, ec2.Options{Endpoint: h.simURL})
	res, err := importer.Import(context.Background(), inv, ec2.InventoryQuery{Tags: map[string][]string{"cost-center": {"42"}}},
		importer.Options{Namespace: h.ns, Region: ec2sim.DefaultRegion})
	if err != nil {
		h.t.Fatal(err)
	}
	if len(res.Skipped) > 0 {
		h.t.Fatalf("the import skipped %v", res.Skipped)
	}
	return res.Objects
}

// createAndObserve creates the imported objects and waits for each to observe its
// instance, in sync.
func (h *harness) createAndObserve(objs []computev1alpha1.EC2Instance) {
	h.t.Helper()
	for i := range objs {
		h.create(objs[i].DeepCopy())
	}
	for _, obj := range objs {
		h.waitCondition(obj.Name, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonObserving)
		h.waitCondition(obj.Name, computev1alpha1.ConditionSynced, metav1.ConditionTrue, computev1alpha1.ReasonInSync)
	}
}
