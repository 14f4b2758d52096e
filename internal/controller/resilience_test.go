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
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

func TestInstanceNotYetVisibleAfterLaunchIsWaitedForNotReplaced(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{sim: ec2sim.Config{VisibilityDelay: 2 * time.Second}})
	h.create(h.instance("slow"))

	got := h.waitReady("slow")
	if got.Status.Recreations != 0 {
		t.Errorf("an instance that was only invisible was replaced %d times", got.Status.Recreations)
	}
	if n := len(h.sim.Instances()); n != 1 {
		t.Errorf("want one instance ever launched, got %d", n)
	}
}

func TestDeleteRightAfterCreateTerminatesAnInstanceNotYetVisible(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{sim: ec2sim.Config{VisibilityDelay: 3 * time.Second}})
	h.create(h.instance("hasty"))
	id := h.waitRecorded("hasty")
	h.deleteObject("hasty")
	h.waitGone("hasty")
	if s := h.terminating(id); s != "" {
		t.Fatalf("the instance was leaked: it is %s after its object was deleted", s)
	}
}

func TestInstanceThatDiesDuringLaunchIsReportedAndReplacedWithBackoff(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{sim: ec2sim.Config{PendingDuration: time.Hour}})
	h.create(h.instance("doomed"))
	var id string
	h.eventually(h.timeout, func() string {
		id = h.get("doomed").Status.InstanceID
		return unless(id != "" && h.get("doomed").Status.State == "pending", "not pending yet")
	})
	// EC2 gives up on the launch, as it does for an unusable KMS key.
	h.stopManager() // so that no pass sees the instance between the two edits
	if err := h.sim.ModifyInstance(id, func(i *ec2sim.InstanceRecord) { i.State = ec2sim.StateTerminated }); err != nil {
		t.Fatal(err)
	}
	if err := h.sim.ModifyInstance(id, func(i *ec2sim.InstanceRecord) {
		i.StateReasonCode = "Client.InternalError"
		i.StateReasonMessage = "Client.InternalError: Client error on launch"
	}); err != nil {
		t.Fatal(err)
	}
	h.startManager()
	note := h.waitEvent("doomed", computev1alpha1.ReasonLaunchFailed)
	if !strings.Contains(note, "Client error on launch") {
		t.Errorf("event %q does not carry EC2's reason", note)
	}
	h.eventually(h.timeout, func() string {
		got := h.get("doomed")
		return unless(got.Status.Recreations == 1 && got.Status.InstanceID != "" && got.Status.InstanceID != id,
			"no replacement yet: %+v", got.Status)
	})
}

func TestPendingInstanceTerminatedByAUserIsReplacedAsOutOfBand(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{sim: ec2sim.Config{PendingDuration: time.Hour}})
	h.create(h.instance("cancelled"))
	id := h.waitRecorded("cancelled")
	m := h.mark("cancelled")
	if err := h.sim.TerminateInstance(id); err != nil {
		t.Fatal(err)
	}
	h.waitEventSince(m, computev1alpha1.ReasonTerminatedOutOfBand)
}

func TestDeletingAPersistentSpotInstanceCancelsItsRequestFirst(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("spot")
	obj.Spec.Spot = &computev1alpha1.SpotOptions{InterruptionBehavior: "stop"}
	h.create(obj)
	id := h.waitReady("spot").Status.InstanceID
	req := h.simInstance(id).SpotRequestID
	if req == "" {
		t.Fatal("the emulator launched no Spot request")
	}
	h.deleteObject("spot")
	h.waitGone("spot")
	if !h.sim.SpotRequestCancelled(req) {
		t.Error("the persistent Spot request was not cancelled, so EC2 would relaunch the instance")
	}
}

func TestTypeChangeEC2RefusesLeavesTheInstanceRunningAndSaysWhy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("stubborn"))
	id := h.waitReady("stubborn").Status.InstanceID
	defer h.sim.InjectFault(ec2sim.Fault{Operation: "ModifyInstanceAttribute", Code: "InvalidParameterValue", HTTPStatus: 400,
		Message: "The instance configuration for this AWS Marketplace product is not supported."})()

	m := h.mark("stubborn")
	h.update("stubborn", func(o *computev1alpha1.EC2Instance) { o.Spec.InstanceType = "t3.large" })
	got := h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonUpdateFailed)
	if c := findCondition(got, computev1alpha1.ConditionSynced); c.Reason != computev1alpha1.ReasonUpdateFailed || !strings.Contains(c.Message, "InvalidParameterValue") {
		t.Errorf("Synced should carry EC2's refusal: %+v", c)
	}
	h.eventually(h.timeout, func() string {
		return unless(h.simInstance(id).State == "running", "instance is %s", h.simInstance(id).State)
	})
	stops := h.sim.Calls("StopInstances")
	time.Sleep(3 * time.Second) // several resyncs
	if n := h.sim.Calls("StopInstances"); n != stops {
		t.Errorf("the instance was stopped again %d times for a change EC2 refuses", n-stops)
	}
}

// regionRecorder remembers which regions the reconciler asked clients for.
type regionRecorder struct {
	*harness
	mu      sync.Mutex
	regions map[string]int
}

func (r *regionRecorder) ForRegion(ctx context.Context, region string) (ec2.Client, error) {
	r.mu.Lock()
	r.regions[region]++
	r.mu.Unlock()
	return r.harness.ForRegion(ctx, region)
}

func TestChangingTheDefaultRegionDoesNotMoveExistingInstances(t *testing.T) {
	t.Parallel()
	var rec *regionRecorder
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("pinned"))
	h.waitReady("pinned")

	h.stopManager()
	rec = &regionRecorder{harness: h, regions: map[string]int{}}
	h.opts.tweak = func(r *EC2InstanceReconciler) {
		r.DefaultRegion = "eu-west-1"
		r.EC2 = rec
	}
	h.startManager()
	h.eventually(h.timeout, func() string {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return unless(rec.regions["us-east-1"] >= 2, "regions asked: %v", rec.regions)
	})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.regions["eu-west-1"] != 0 {
		t.Errorf("the operator looked for the instance in the new default region: %v", rec.regions)
	}
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("RunInstances called %d times", n)
	}
}

func TestThrottledTypeChangeIsRetriedUntilApplied(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("retry"))
	id := h.waitReady("retry").Status.InstanceID
	// More throttles than the SDK's attempts: one pass fails while the instance is
	// stopped for the change; a later pass must apply it rather than give up.
	defer h.sim.InjectFault(ec2sim.Fault{Operation: "ModifyInstanceAttribute", Code: "RequestLimitExceeded", HTTPStatus: 503, Times: 6})()

	m := h.mark("retry")
	h.update("retry", func(o *computev1alpha1.EC2Instance) { o.Spec.InstanceType = "t3.large" })
	h.timeout = 90 * time.Second
	h.eventually(h.timeout, func() string {
		i := h.simInstance(id)
		return unless(i.InstanceType == "t3.large" && i.State == "running", "%s %s", i.InstanceType, i.State)
	})
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
}

func TestDeletingALoserOfAnAdoptionRaceLeavesTheWinnersInstanceAlone(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	legacy := h.launchOutsideKubernetes("contested", ec2sim.DefaultSubnetIDs[0])
	obj := h.instance("loser")
	obj.Spec.InstanceID = legacy
	h.create(obj)
	h.waitReady("loser")
	m := h.mark("loser")
	// Another object's adoption won the race for the ownership tags.
	if err := h.sim.SetTags(legacy, ec2.OwnershipTags(h.ns, "winner", "uid-of-the-winner", h.clusterID())); err != nil {
		t.Fatal(err)
	}
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonOwnedByAnother)

	h.deleteObject("loser")
	h.waitGone("loser")
	i := h.simInstance(legacy)
	if i.State != "running" || i.Tags[ec2.TagOwnerUID] != "uid-of-the-winner" {
		t.Errorf("deleting the loser touched the winner's instance: %s %v", i.State, i.Tags)
	}
}
