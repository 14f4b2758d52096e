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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/adoption"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// TestObserveNeverChangesTheInstance observes instances made outside Kubernetes
// (IMDSv1, monitoring and protection on, stopped, an Elastic IP): status is filled
// from them; drift made outside is reported as Synced=False without being corrected;
// an object switched to Full is claimed and converged, switched back it stops at
// once; deletion only releases. Across all of it the emulator's log shows no
// changing call but the test's own and the one claim of the switch to Full. The
// harness's one-second resync is what finds the drift here: the reaction tested is
// the resync itself.
func TestObserveNeverChangesTheInstance(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	ctx := context.Background()
	c := h.ec2Client()
	ids := h.launchVariedFleet(c, 3)
	h.stopOutside(c, ids[1])
	eip, err := c.AllocateAddress(ctx, "", map[string]string{"Name": "legacy"})
	if err != nil {
		t.Fatal(err)
	}
	inst2, err := c.GetInstance(ctx, ids[2])
	if err != nil {
		t.Fatal(err)
	}
	assoc, err := c.AssociateAddress(ctx, eip.AllocationID, ids[2], inst2.NetworkInterfaces[0].ID)
	if err != nil {
		t.Fatal(err)
	}

	setup := h.sim.CallCounts()
	observe := computev1alpha1.ManagementPolicyObserve
	full := h.importedSpec(c, ids[0])
	full.ManagementPolicy = observe
	specs := map[string]computev1alpha1.EC2InstanceSpec{
		"imported": full,
		"minimal":  {InstanceID: ids[1], ManagementPolicy: observe},
		"with-eip": {InstanceID: ids[2], ManagementPolicy: observe, ElasticIP: &computev1alpha1.ElasticIP{AllocationID: eip.AllocationID}},
		"nothing":  {InstanceType: "t3.micro", ImageID: ec2sim.DefaultImageID, ManagementPolicy: observe},
	}
	for name, spec := range specs {
		h.create(&computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: h.ns}, Spec: spec})
	}
	for _, name := range []string{"imported", "minimal", "with-eip"} {
		got := h.waitCondition(name, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonObserving)
		h.waitCondition(name, computev1alpha1.ConditionSynced, metav1.ConditionTrue, computev1alpha1.ReasonInSync)
		if got.Status.PrivateIP == "" || got.Status.State == "" || len(got.Finalizers) != 0 {
			t.Errorf("%s: status not filled from the instance, or a finalizer added: %+v %v", name, got.Status, got.Finalizers)
		}
	}
	if got := h.get("minimal"); got.Status.State != ec2sim.StateStopped || got.Spec.Monitoring != nil {
		t.Errorf("minimal: state %q, spec written in Observe: %+v", got.Status.State, got.Spec)
	}
	if got := h.waitCondition("with-eip", computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionTrue, computev1alpha1.ReasonAssociated); got.Status.ElasticIP == nil || got.Status.ElasticIP.PublicIP != eip.PublicIP {
		t.Errorf("with-eip: Elastic IP not reported: %+v", got.Status.ElasticIP)
	}
	h.waitCondition("nothing", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonNothingToObserve)

	// Drift made outside Kubernetes is reported, not corrected.
	before := h.sim.CallCounts()
	if err := c.SetDetailedMonitoring(ctx, ids[0], false); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTags(ctx, []string{ids[0]}, map[string]string{"cost-center": "43"}); err != nil {
		t.Fatal(err)
	}
	if err := c.DisassociateAddress(ctx, assoc, ids[2]); err != nil {
		t.Fatal(err)
	}
	own := mutatingSince(before, h.sim.CallCounts())
	got := h.waitCondition("imported", computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonDriftDetected)
	if msg := findCondition(got, computev1alpha1.ConditionSynced).Message; !strings.Contains(msg, "monitoring") || !strings.Contains(msg, "tags.cost-center") {
		t.Errorf("imported: drift not named: %s", msg)
	}
	h.waitEvent("imported", computev1alpha1.ReasonDriftDetected)
	h.waitCondition("with-eip", computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonDriftDetected)
	if calls := mutatingSince(setup, h.sim.CallCounts()); calls != own {
		t.Fatalf("Observe made changing calls: all since the objects were created %q, the test's own %q", calls, own)
	}
	if h.simInstance(ids[0]).Monitoring {
		t.Errorf("monitoring drift of %s was corrected in Observe", ids[0])
	}

	// Switched to Full: claimed (the one CreateTags) and late-initialized, nothing
	// else; switched back, a field set is only reported.
	before = h.sim.CallCounts()
	m := h.mark("minimal")
	h.update("minimal", func(o *computev1alpha1.EC2Instance) { o.Spec.ManagementPolicy = computev1alpha1.ManagementPolicyFull })
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonStopped)
	h.waitEvent("minimal", "Adopted")
	if calls := mutatingSince(before, h.sim.CallCounts()); calls != "CreateTags=1" {
		t.Errorf("switching to Full made %q, want only the claim CreateTags=1", calls)
	}
	before = h.sim.CallCounts()
	h.update("minimal", func(o *computev1alpha1.EC2Instance) {
		o.Spec.ManagementPolicy = observe
		o.Spec.Monitoring = ptr.To(false)
		o.Spec.DesiredState = computev1alpha1.DesiredStateRunning
	})
	got = h.waitCondition("minimal", computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonDriftDetected)
	if msg := findCondition(got, computev1alpha1.ConditionSynced).Message; !strings.Contains(msg, "monitoring") || !strings.Contains(msg, "desiredState") {
		t.Errorf("minimal: drift not named after switching back: %s", msg)
	}

	// Deletion releases, with or without the finalizer Full added.
	for _, name := range []string{"imported", "minimal", "with-eip", "nothing"} {
		h.deleteObject(name)
		h.waitGone(name)
	}
	if calls := mutatingSince(before, h.sim.CallCounts()); calls != "" {
		t.Errorf("Observe made changing calls after switching back and on deletion: %s", calls)
	}
	for _, id := range ids {
		if st := h.simInstance(id).State; st == ec2sim.StateTerminated || st == ec2sim.StateShuttingDown {
			t.Errorf("%s is %s after its Observe object was deleted", id, st)
		}
	}
	if h.simInstance(ids[1]).State != ec2sim.StateStopped {
		t.Errorf("%s was started in Observe", ids[1])
	}
}

// launchVariedFleet launches n running instances the way another tool would, with the
// settings the operator's launch defaults would otherwise change: IMDSv1, detailed
// monitoring, termination protection on every other one, their own tags.
func (h *harness) launchVariedFleet(c ec2.Client, n int) []string {
	h.t.Helper()
	ids := make([]string, n)
	for i := range ids {
		inst, err := c.RunInstance(context.Background(), ec2.LaunchRequest{
			ClientToken: fmt.Sprintf("terraform-%s-%d", h.ns, i), ImageID: ec2sim.DefaultImageID, InstanceType: "t3.small",
			SubnetID: ec2sim.DefaultSubnetIDs[i%2], DetailedMonitoring: true, DisableAPITermination: i%2 == 0,
			MetadataOptions: ec2.MetadataOptions{HTTPTokens: "optional", HTTPPutResponseHopLimit: 1, HTTPEndpoint: "enabled",
				InstanceMetadataTags: "disabled", HTTPProtocolIPv6: "disabled"},
			Tags: map[string]string{"Name": fmt.Sprintf("legacy-%d", i), "cost-center": "42"},
		})
		if err != nil {
			h.t.Fatal(err)
		}
		ids[i] = inst.ID
	}
	h.eventually(h.timeout, func() string {
		for _, id := range ids {
			if st := h.simInstance(id).State; st != ec2sim.StateRunning {
				return id + " is " + st
			}
		}
		return ""
	})
	return ids
}

// stopOutside stops instances the way another tool would, and waits until they are
// stopped.
func (h *harness) stopOutside(c ec2.Client, ids ...string) {
	h.t.Helper()
	for _, id := range ids {
		if err := c.StopInstance(context.Background(), id); err != nil {
			h.t.Fatal(err)
		}
	}
	h.eventually(h.timeout, func() string {
		for _, id := range ids {
			if st := h.simInstance(id).State; st != ec2sim.StateStopped {
				return id + " is " + st
			}
		}
		return ""
	})
}

// importedSpec is the spec an import writes for the instance: as it is in AWS.
func (h *harness) importedSpec(c ec2.Client, id string) computev1alpha1.EC2InstanceSpec {
	h.t.Helper()
	inst, err := c.GetInstance(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	attrs, err := c.GetInstanceAttributes(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return adoption.SpecFromInstance(adoption.Facts{Instance: inst, Attributes: attrs})
}

// TestObserveSwitchFollowsTheSpecAtShippedPeriods switches the policy with the
// periods the manager ships (a ten-minute resync): the spec change itself, through
// the watch, must start and stop the management, well before any resync would.
func TestObserveSwitchFollowsTheSpecAtShippedPeriods(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: shippedTimings})
	c := h.ec2Client()
	id := h.launchVariedFleet(c, 1)[0]
	h.create(&computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Name: "switched", Namespace: h.ns},
		Spec: computev1alpha1.EC2InstanceSpec{InstanceID: id, ManagementPolicy: computev1alpha1.ManagementPolicyObserve}})
	h.waitCondition("switched", computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonObserving)

	m := h.mark("switched")
	h.update("switched", func(o *computev1alpha1.EC2Instance) { o.Spec.ManagementPolicy = computev1alpha1.ManagementPolicyFull })
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
	h.waitEvent("switched", "Adopted")

	before := h.sim.CallCounts()
	m = h.mark("switched")
	h.update("switched", func(o *computev1alpha1.EC2Instance) {
		o.Spec.ManagementPolicy = computev1alpha1.ManagementPolicyObserve
		o.Spec.Monitoring = ptr.To(false)
	})
	h.waitConditionSince(m, computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonDriftDetected)
	if calls := mutatingSince(before, h.sim.CallCounts()); calls != "" || !h.simInstance(id).Monitoring {
		t.Errorf("back in Observe, the monitoring change was applied (%q)", calls)
	}
}

// TestSwitchingToFullRightAfterAnOutsideChangeChangesNothing observes an instance,
// turns its detailed monitoring off outside Kubernetes, and at once switches the
// object to Full: the adoption describes the instance afresh, so the late
// initialisation copies monitoring off into the spec and nothing but the ownership
// claim is written to EC2 (no MonitorInstances from a description taken before).
func TestSwitchingToFullRightAfterAnOutsideChangeChangesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: shippedTimings})
	c := h.ec2Client()
	id := h.launchVariedFleet(c, 1)[0]
	h.create(&computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Name: "switched", Namespace: h.ns},
		Spec: computev1alpha1.EC2InstanceSpec{InstanceID: id, ManagementPolicy: computev1alpha1.ManagementPolicyObserve}})
	h.waitCondition("switched", computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonObserving)

	// Another tool turns monitoring off: straight in EC2, not through the client the
	// manager shares with the test (whose own calls would drop what it remembers).
	if err := h.sim.ModifyInstance(id, func(i *ec2sim.InstanceRecord) { i.Monitoring = false }); err != nil {
		t.Fatal(err)
	}
	before := h.sim.CallCounts()
	m := h.mark("switched")
	h.update("switched", func(o *computev1alpha1.EC2Instance) { o.Spec.ManagementPolicy = computev1alpha1.ManagementPolicyFull })
	got := h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
	h.waitEvent("switched", "Adopted")
	if calls := mutatingSince(before, h.sim.CallCounts()); calls != "CreateTags=1" {
		t.Errorf("switching to Full called %q, want only the ownership claim (CreateTags)", calls)
	}
	if h.simInstance(id).Monitoring {
		t.Error("the outside change (monitoring off) was undone")
	}
	if got.Spec.Monitoring == nil || *got.Spec.Monitoring {
		t.Errorf("spec.monitoring late-initialised to %v, want false (the instance as it is now)", got.Spec.Monitoring)
	}
}
