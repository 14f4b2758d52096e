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
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/launch"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// The failure paths of real EC2: each test makes the emulator answer as EC2 does in
// that failure and checks that the instance is neither stranded nor duplicated, that
// nothing repeats in a hot loop, and that the user is told.

func TestATypeChangeEC2CannotStartIsRetriedForCapacityThenApplied(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("resize"))
	id := h.waitReady("resize").Status.InstanceID
	// No capacity for the new type for two starts, then there is.
	defer h.sim.InjectFault(ec2sim.Fault{Operation: "StartInstances", Code: "InsufficientInstanceCapacity", Times: 2})()

	m := h.mark("resize")
	h.update("resize", func(o *computev1alpha1.EC2Instance) { o.Spec.InstanceType = "t3.large" })
	h.waitEventSince(m, computev1alpha1.ReasonInsufficientCapacity)
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
	if i := h.simInstance(id); i.InstanceType != "t3.large" || i.State != ec2sim.StateRunning {
		t.Fatalf("instance is %s %s, want running t3.large", i.State, i.InstanceType)
	}
}

func TestATypeChangeEC2CannotStartIsRevertedAndNotTriedAgainForTheSameType(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: func(r *EC2InstanceReconciler) { r.TypeChangeTimeout = 2 * time.Second }})
	h.create(h.instance("revert"))
	id := h.waitReady("revert").Status.InstanceID
	// The instance's zone has no t3.large capacity for as long as the test runs;
	// it still has capacity for the type the instance ran with.
	h.sim.SetCapacity(h.simInstance(id).AZ, "t3.large", false)

	m := h.mark("revert")
	h.update("revert", func(o *computev1alpha1.EC2Instance) { o.Spec.InstanceType = "t3.large" })
	h.eventually(h.timeout, func() string {
		i := h.simInstance(id)
		return unless(i.InstanceType == "t3.micro" && i.State == ec2sim.StateRunning, "instance is %s %s", i.State, i.InstanceType)
	})
	got := h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonInstanceTypeUnavailable)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "InsufficientInstanceCapacity") ||
		!strings.Contains(c.Message, "sufficient t3.large capacity") {
		t.Errorf("Ready does not carry EC2's answer: %q", c.Message)
	}
	h.waitConditionSince(m, computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonInstanceTypeUnavailable)
	h.waitEventSince(m, computev1alpha1.ReasonInstanceTypeUnavailable)
	if got := h.get("revert").Status.RefusedInstanceType; got != "t3.large" {
		t.Errorf("refusedInstanceType %q, want t3.large", got)
	}

	// An unrelated edit does not repeat the outage for the same refused type.
	stops := h.sim.Calls("StopInstances")
	h.update("revert", func(o *computev1alpha1.EC2Instance) { o.Spec.Tags = map[string]string{"team": "other"} })
	h.eventually(h.timeout, func() string {
		return unless(h.simInstance(id).Tags["team"] == "other", "tags not applied")
	})
	time.Sleep(2 * time.Second)
	if n := h.sim.Calls("StopInstances"); n != stops {
		t.Errorf("the instance was stopped %d more times for a type EC2 refused", n-stops)
	}

	// Another type is tried.
	m = h.mark("revert")
	h.update("revert", func(o *computev1alpha1.EC2Instance) { o.Spec.InstanceType = "t3.small" })
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
	if i := h.simInstance(id); i.InstanceType != "t3.small" {
		t.Errorf("instance type %s, want t3.small", i.InstanceType)
	}
}

func TestATypeTheZoneDoesNotOfferIsRevertedAtOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("unsupported"))
	id := h.waitReady("unsupported").Status.InstanceID
	h.sim.SetOffered(h.simInstance(id).AZ, "t3.large", false)
	m := h.mark("unsupported")
	h.update("unsupported", func(o *computev1alpha1.EC2Instance) { o.Spec.InstanceType = "t3.large" })
	got := h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonInstanceTypeUnavailable)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "not supported in your requested Availability Zone") {
		t.Errorf("Ready does not carry EC2's message: %q", c.Message)
	}
	h.eventually(h.timeout, func() string {
		i := h.simInstance(id)
		return unless(i.InstanceType == "t3.micro" && i.State == ec2sim.StateRunning, "instance is %s %s", i.State, i.InstanceType)
	})
	// A permanent refusal is not retried: one start of t3.large, no more.
	starts := 0
	for _, r := range h.sim.Requests() {
		if r.Operation == "StartInstances" && r.ErrorCode == "Unsupported" {
			starts++
		}
	}
	if starts != 1 {
		t.Errorf("StartInstances refused as Unsupported %d times, want 1", starts)
	}
}

// failingRegion is a client provider whose region stops working (credentials revoked,
// the region disabled) once fail is set.
type failingRegion struct {
	*harness
	fail bool
}

func (f *failingRegion) ForRegion(ctx context.Context, region string) (ec2.Client, error) {
	if f.fail {
		return nil, errors.New("the region's endpoint cannot be reached")
	}
	return f.harness.ForRegion(ctx, region)
}

func TestAnObjectThatNeverLaunchedIsReleasedAtOnceEvenWithoutAWS(t *testing.T) {
	t.Parallel()
	var provider *failingRegion
	h := newHarness(t, harnessOptions{})
	h.stopManager()
	provider = &failingRegion{harness: h}
	h.opts.tweak = func(r *EC2InstanceReconciler) { r.EC2 = provider }
	h.startManager()
	bad := h.instance("never")
	bad.Spec.ImageID = "ami-00000000000000000"
	h.create(bad)
	got := h.waitCondition("never", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonImageNotFound)
	// The image is refused before any launch (the architecture check describes it).
	if got.Status.LastLaunchAttempt != nil || h.sim.Calls("RunInstances") != 0 {
		t.Errorf("after EC2 refused the image: lastLaunchAttempt %v (want none), %d RunInstances",
			got.Status.LastLaunchAttempt, h.sim.Calls("RunInstances"))
	}
	h.stopManager()
	provider.fail = true
	h.startManager()
	calls := h.sim.CallCounts()
	h.deleteObject("never")
	h.waitGone("never")
	if after := h.sim.CallCounts(); fmt.Sprint(after) != fmt.Sprint(calls) {
		t.Errorf("deleting an object that never launched called EC2: %v -> %v", calls, after)
	}
}

// TestIdempotencyConflictsStopAfterAFewAttemptsAndResumeOnRequest runs with the
// shipped resync periods, so the retry annotation is what brings the stalled object
// back. The failure backoff is short, so that the five conflicts take a second rather
// than half a minute: a stalled object is not retried at all, so no backoff can bring
// it back in its place.
func TestIdempotencyConflictsStopAfterAFewAttemptsAndResumeOnRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: func(r *EC2InstanceReconciler) {
		shippedTimings(r)
		r.MinBackoff, r.MaxBackoff = 100*time.Millisecond, 5*time.Second
	}})
	remove := h.sim.InjectFault(ec2sim.Fault{Operation: "RunInstances", Code: "IdempotentParameterMismatch",
		Message: "Arguments on this idempotent request are inconsistent with arguments used in previous request(s)."})
	h.create(h.instance("conflicted"))
	got := h.waitCondition("conflicted", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonIdempotencyConflict)
	if c := findCondition(got, computev1alpha1.ConditionReady); c.Reason != computev1alpha1.ReasonIdempotencyConflict || !strings.Contains(c.Message, got.Status.ClientToken) {
		t.Errorf("Ready should name the conflict and the token: %+v", c)
	}
	h.waitEvent("conflicted", computev1alpha1.ReasonIdempotencyConflict)
	runs := h.sim.Calls("RunInstances")
	if runs != pass.MaxIdempotencyConflicts {
		t.Errorf("RunInstances called %d times before stopping, want %d", runs, pass.MaxIdempotencyConflicts)
	}
	time.Sleep(3 * time.Second)
	if n := h.sim.Calls("RunInstances"); n != runs {
		t.Fatalf("RunInstances called %d more times after the operator stopped", n-runs)
	}

	// The user resolved it and asks for another try.
	remove()
	m := h.mark("conflicted")
	h.update("conflicted", func(o *computev1alpha1.EC2Instance) {
		o.Annotations = map[string]string{computev1alpha1.RetryAnnotation: "1"}
	})
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
	if n := len(h.liveInstances()); n != 1 {
		t.Errorf("%d live instances, want 1", n)
	}
	h.deleteObject("conflicted")
	h.waitGone("conflicted")
}

func TestADeletionOfAStalledLaunchStillWorks(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: func(r *EC2InstanceReconciler) { r.VisibilityGracePeriod = time.Second }})
	defer h.sim.InjectFault(ec2sim.Fault{Operation: "RunInstances", Code: "IdempotentParameterMismatch"})()
	h.create(h.instance("stuck"))
	h.waitCondition("stuck", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonIdempotencyConflict)
	h.deleteObject("stuck")
	h.waitGone("stuck")
}

func TestOneRefusedChangeDoesNotHoldBackTheOthers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("partial"))
	id := h.waitReady("partial").Status.InstanceID
	defer h.sim.InjectFault(ec2sim.Fault{Operation: "CreateTags", Code: "UnauthorizedOperation", HTTPStatus: 403,
		Message: "You are not authorized to perform this operation."})()

	m := h.mark("partial")
	h.update("partial", func(o *computev1alpha1.EC2Instance) {
		o.Spec.Tags = map[string]string{"team": "new"}
		o.Spec.Monitoring = ptr.To(true)
		o.Spec.DesiredState = computev1alpha1.DesiredStateStopped
	})
	h.eventually(h.timeout, func() string {
		i := h.simInstance(id)
		return unless(i.Monitoring && i.State == ec2sim.StateStopped, "monitoring %v, state %s", i.Monitoring, i.State)
	})
	got := h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonAuthFailure)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "tags") || !strings.Contains(c.Message, "UnauthorizedOperation") {
		t.Errorf("Ready should say which aspect failed and why: %q", c.Message)
	}
	if h.simInstance(id).Tags["team"] != "platform" {
		t.Error("tags changed although CreateTags was refused")
	}
}

func TestAnInstanceThatStopsRightAfterEachStartIsStartedLessAndLessOften(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{
		sim:   ec2sim.Config{PendingDuration: time.Hour},
		tweak: func(r *EC2InstanceReconciler) { r.MinBackoff = time.Second; r.MaxBackoff = time.Minute },
	})
	h.create(h.instance("kms"))
	id := h.waitRecorded("kms")
	if err := h.sim.ModifyInstance(id, func(i *ec2sim.InstanceRecord) { i.State = ec2sim.StateRunning }); err != nil {
		t.Fatal(err)
	}
	h.waitReady("kms")
	// Stopped by its user; the operator starts it; it never gets past pending, as
	// with a disabled KMS key on its encrypted volume.
	failStart := func() {
		h.eventually(h.timeout, func() string {
			return unless(h.simInstance(id).State == ec2sim.StatePending, "instance is %s", h.simInstance(id).State)
		})
		// Two edits: entering a state sets its own state reason, which the second
		// replaces with the one EC2 gives a start that failed.
		if err := h.sim.ModifyInstance(id, func(i *ec2sim.InstanceRecord) { i.State = ec2sim.StateStopped }); err != nil {
			t.Fatal(err)
		}
		if err := h.sim.ModifyInstance(id, func(i *ec2sim.InstanceRecord) {
			i.StateReasonCode = "Client.InternalError"
			i.StateReasonMessage = "Client.InternalError: Client error on launch"
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.sim.StopInstance(id); err != nil {
		t.Fatal(err)
	}
	failStart()
	got := h.waitCondition("kms", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonStartFailed)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "Client error on launch") {
		t.Errorf("Ready should carry EC2's state reason: %q", c.Message)
	}
	h.waitEvent("kms", computev1alpha1.ReasonStartFailed)
	// The next starts wait 2 s, then 4 s: over 5 s at most two more starts, not one
	// per poll (which would be fifty).
	starts := h.sim.Calls("StartInstances")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if h.simInstance(id).State == ec2sim.StatePending {
			failStart()
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := h.sim.Calls("StartInstances") - starts; n < 1 || n > 2 {
		t.Errorf("%d starts in 5 s after repeated start failures, want 1 or 2 (backing off)", n)
	}
	if got := h.get("kms").Status.StartFailures; got < 2 {
		t.Errorf("startFailures %d, want the failures counted", got)
	}
}

func TestOnlyTheVolumesTheInstanceWasLaunchedWithAreTagged(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("volumes")
	obj.Spec.DeletionPolicy = computev1alpha1.DeletionPolicyRetain
	h.create(obj)
	got := h.waitReady("volumes")
	id, root := got.Status.InstanceID, h.simInstance(got.Status.InstanceID).RootVolumeID
	if len(got.Status.LaunchVolumeIDs) != 1 || got.Status.LaunchVolumeIDs[0] != root {
		t.Errorf("launchVolumeIds %v, want the root volume %s", got.Status.LaunchVolumeIDs, root)
	}
	// A CSI driver attaches a volume of its own.
	foreign, err := h.sim.AttachForeignVolume(id, "/dev/sdf", 20, map[string]string{"kubernetes.io/created-for/pvc/name": "data"})
	if err != nil {
		t.Fatal(err)
	}
	h.update("volumes", func(o *computev1alpha1.EC2Instance) { o.Spec.Tags = map[string]string{"team": "changed"} })
	h.eventually(h.timeout, func() string {
		v, _ := h.sim.Volume(root)
		return unless(v.Tags["team"] == "changed", "root volume tags %v", v.Tags)
	})
	h.deleteObject("volumes")
	h.waitGone("volumes")
	v, _ := h.sim.Volume(foreign)
	if len(v.Tags) != 1 || v.Tags["kubernetes.io/created-for/pvc/name"] != "data" {
		t.Errorf("the foreign volume's tags were touched: %v", v.Tags)
	}
	if n := h.sim.Calls("CreateTags") + h.sim.Calls("DeleteTags"); n == 0 {
		t.Fatal("no tag calls at all: the test proves nothing")
	}
	rv, _ := h.sim.Volume(root)
	if _, owned := rv.Tags[ec2.TagOwnerUID]; owned {
		t.Errorf("the retained root volume still carries the ownership tag: %v", rv.Tags)
	}
}

func TestARestoredObjectTakesOverItsInstanceInsteadOfLaunchingAnother(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("restored"))
	first := h.waitReady("restored")
	// Deleted without its finalizer (a cluster rebuilt, a namespace force-cleaned) and
	// re-created from a backup: a new UID, no status.
	h.update("restored", func(o *computev1alpha1.EC2Instance) { o.Finalizers = nil })
	h.deleteObject("restored")
	h.waitGone("restored")
	h.create(h.instance("restored"))
	got := h.waitReady("restored")
	if got.UID == first.UID {
		t.Fatal("the re-created object has the old UID; the test proves nothing")
	}
	if got.Status.InstanceID != first.Status.InstanceID {
		t.Fatalf("the restored object manages %s, want the running %s", got.Status.InstanceID, first.Status.InstanceID)
	}
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("RunInstances called %d times: a second instance was launched", n)
	}
	if tags := h.simInstance(got.Status.InstanceID).Tags; tags[ec2.TagOwnerUID] != string(got.UID) {
		t.Errorf("the instance still names the old object: %v", tags)
	}
	note := h.waitEvent("restored", computev1alpha1.ReasonRestored)
	if !strings.Contains(note, string(first.UID)) {
		t.Errorf("the event should name the earlier object: %q", note)
	}
	if c := findCondition(got, computev1alpha1.ConditionInstanceLaunched); c.Reason != computev1alpha1.ReasonRestored {
		t.Errorf("InstanceLaunched %+v, want the note that the instance was taken over", c)
	}
}

func TestWithRestoreRefusedAnInstanceOfAnEarlierObjectIsReportedNotTaken(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: func(r *EC2InstanceReconciler) { r.RestorePolicy = launch.RestoreRefuse }})
	h.create(h.instance("twin"))
	first := h.waitReady("twin").Status.InstanceID
	h.update("twin", func(o *computev1alpha1.EC2Instance) { o.Finalizers = nil })
	h.deleteObject("twin")
	h.waitGone("twin")
	h.create(h.instance("twin"))
	got := h.waitCondition("twin", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonInstanceExists)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, first) {
		t.Errorf("Ready should name the instance in the way: %q", c.Message)
	}
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("RunInstances called %d times", n)
	}
}

// launchWithTags launches an instance outside the operator with the given tags.
func (h *harness) launchWithTags(token string, tags map[string]string) string {
	h.t.Helper()
	c, err := h.clients.ForRegion(context.Background(), ec2sim.DefaultRegion)
	if err != nil {
		h.t.Fatal(err)
	}
	inst, err := c.RunInstance(context.Background(), ec2.LaunchRequest{
		ClientToken: token, ImageID: ec2sim.DefaultImageID, InstanceType: "t3.micro", SubnetID: ec2sim.DefaultSubnetIDs[0], Tags: tags,
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return inst.ID
}

func TestExtraInstancesWithTheObjectsTagsAreReportedAndTerminatedWithIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("copied"))
	got := h.waitReady("copied")
	extra := h.launchWithTags("manual-copy", ec2.OwnershipTags(h.ns, "copied", string(got.UID), h.clusterID()))
	// Reported on the next read of the instance's attributes (every second here).
	cond := h.waitCondition("copied", computev1alpha1.ConditionDuplicateInstances, metav1.ConditionTrue, computev1alpha1.ReasonExtraInstances)
	if c := findCondition(cond, computev1alpha1.ConditionDuplicateInstances); !strings.Contains(c.Message, extra) {
		t.Errorf("DuplicateInstances should name %s: %q", extra, c.Message)
	}
	if h.simInstance(extra).State != ec2sim.StateRunning {
		t.Fatal("the extra instance was touched before the object was deleted")
	}
	h.deleteObject("copied")
	h.waitGone("copied")
	for _, id := range []string{got.Status.InstanceID, extra} {
		if s := h.terminating(id); s != "" {
			t.Errorf("instance %s is %s after the object was deleted", id, s)
		}
	}
}

func TestRetainReleasesTheExtraInstancesToo(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("kept")
	obj.Spec.DeletionPolicy = computev1alpha1.DeletionPolicyRetain
	h.create(obj)
	got := h.waitReady("kept")
	extra := h.launchWithTags("manual-copy-2", ec2.OwnershipTags(h.ns, "kept", string(got.UID), h.clusterID()))
	h.deleteObject("kept")
	h.waitGone("kept")
	for _, id := range []string{got.Status.InstanceID, extra} {
		i := h.simInstance(id)
		if _, owned := i.Tags[ec2.TagOwnerUID]; owned || h.terminating(id) == "" {
			t.Errorf("instance %s: %s with tags %v, want it left running without ownership tags", id, i.State, i.Tags)
		}
	}
}
