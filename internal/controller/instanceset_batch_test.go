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
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A set's new instances launch in batches (the launch phase's batch.go): one
// RunInstances call, each instance taken by the member at its launch index. These
// tests stop the manager at each point of a batch where a crash could double or
// leak an instance, with the shipped batch timings, and count what EC2 holds.

// checkBatchMembers fails unless every member of the set has recorded the instance
// at its launch index of its batch, tagged with its own name and UID, and EC2 holds
// no other live instance.
func (h *harness) checkBatchMembers(set string, replicas int) {
	h.t.Helper()
	members := h.setMembers(set)
	if len(members) != replicas {
		h.t.Fatalf("%d members, want %d", len(members), replicas)
	}
	for i := range members {
		m := &members[i]
		b, ok := plan.BatchOf(m)
		if !ok {
			h.t.Errorf("%s: not in a batch (%v)", m.Name, m.Annotations)
			continue
		}
		inst := h.simInstance(m.Status.InstanceID)
		if inst.ClientToken != b.Token || int32(inst.AmiLaunchIndex) != b.Index {
			h.t.Errorf("%s: instance %s has token %q index %d, want the batch's %q index %d",
				m.Name, inst.ID, inst.ClientToken, inst.AmiLaunchIndex, b.Token, b.Index)
		}
		if inst.Tags[ec2.TagOwnerUID] != string(m.UID) || inst.Tags[ec2.TagOwnerName] != m.Name || inst.Tags[ec2.TagName] != m.Name {
			h.t.Errorf("%s: instance %s tags %v, want its own name and UID", m.Name, inst.ID, inst.Tags)
		}
	}
	if n := len(h.liveInstances()); n != replicas {
		h.t.Errorf("%d live instances in EC2, want %d", n, replicas)
	}
}

func TestASetLaunchesItsInstancesInOneCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.timeout = 60 * time.Second
	h.newSet("web", 6)
	h.waitSetSettled("web", 6)
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("%d RunInstances calls for 6 instances, want 1", n)
	}
	h.checkBatchMembers("web", 6)
	list := &eventsv1.EventList{}
	if err := h.k8s.List(context.Background(), list, client.InNamespace(h.ns)); err != nil {
		t.Fatal(err)
	}
	sent := 0
	for _, e := range list.Items {
		if e.Reason == "LaunchedBatch" {
			sent++
		}
	}
	if sent != 1 {
		t.Errorf("%d LaunchedBatch events, want one, from the member that sent the call", sent)
	}
}

// batchInFlight starts a harness, creates a set of four and returns once its batch's
// RunInstances has reached EC2, whose answer the returned gate holds back.
func batchInFlight(t *testing.T) (*harness, *ec2sim.Gate) {
	h := newHarness(t, harnessOptions{})
	h.timeout = 60 * time.Second
	gate := h.sim.BlockResponse("RunInstances")
	h.newSet("web", 4)
	select {
	case <-gate.Arrived():
	case <-time.After(30 * time.Second):
		t.Fatal("RunInstances never arrived")
	}
	return h, gate
}

func TestACrashAfterTheBatchCallAndBeforeAnyRecordLeavesOneInstanceEach(t *testing.T) {
	t.Parallel()
	h, gate := batchInFlight(t)
	// EC2 launched the batch; the operator dies before it hears the answer.
	h.stopManager()
	gate.Release()
	launched := h.liveInstances()
	if len(launched) != 4 {
		t.Fatalf("%d instances launched, want the batch's 4", len(launched))
	}
	for _, m := range h.setMembers("web") {
		if m.Status.InstanceID != "" {
			t.Fatalf("%s recorded %s although the answer was lost", m.Name, m.Status.InstanceID)
		}
	}
	h.startManager()
	h.waitSetSettled("web", 4)
	h.checkBatchMembers("web", 4)
	for _, inst := range launched {
		if h.simInstance(inst.ID).State != ec2sim.StateRunning {
			t.Errorf("instance %s of the lost answer is %s, want it taken", inst.ID, h.simInstance(inst.ID).State)
		}
	}
}

// holdStatus refuses the status writes of the EC2Instances whose names match, while on.
type holdStatus struct {
	next  http.RoundTripper
	names *regexp.Regexp
	on    *atomic.Bool
}

func (f holdStatus) RoundTrip(req *http.Request) (*http.Response, error) {
	if !f.on.Load() || req.Method == http.MethodGet || !strings.HasSuffix(req.URL.Path, "/status") ||
		!strings.Contains(req.URL.Path, "/ec2instances/") || !f.names.MatchString(req.URL.Path) {
		return f.next.RoundTrip(req)
	}
	body := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"ServiceUnavailable","code":503,"message":"the test holds this write"}`
	return &http.Response{StatusCode: http.StatusServiceUnavailable, Status: "503 Service Unavailable", Request: req,
		Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}, nil
}

// holdFirstMember returns a harness whose API server refuses the status writes of
// the set's instance in slot 0 while the returned switch is on: its launch record
// cannot be written, so its batch cannot be sent.
func holdFirstMember(t *testing.T, set string) (*harness, *atomic.Bool) {
	var on atomic.Bool
	on.Store(true)
	names := regexp.MustCompile("/ec2instances/" + set + "-[0-9a-f]+-0/status$")
	h := newHarness(t, harnessOptions{apiMiddleware: func(rt http.RoundTripper) http.RoundTripper {
		return holdStatus{next: rt, names: names, on: &on}
	}})
	h.timeout = 90 * time.Second
	return h, &on
}

// waitRecords waits until n of the set's members have a launch record.
func (h *harness) waitRecords(set string, n int) {
	h.t.Helper()
	h.eventually(h.timeout, func() string {
		recorded := 0
		for _, m := range h.setMembers(set) {
			if m.Status.ClientToken != "" && m.Status.LastLaunchAttempt != nil {
				recorded++
			}
		}
		if recorded < n {
			return fmt.Sprintf("%d members have a launch record, want %d", recorded, n)
		}
		return ""
	})
}

func TestACrashBeforeTheBatchCallLaunchesTheBatchOnceAfterTheRestart(t *testing.T) {
	t.Parallel()
	h, hold := holdFirstMember(t, "web")
	h.newSet("web", 4)
	h.waitRecords("web", 3)
	if n := h.sim.Calls("RunInstances"); n != 0 {
		t.Fatalf("%d RunInstances calls while a member has no launch record", n)
	}
	h.stopManager()
	hold.Store(false)
	h.startManager()
	h.waitSetSettled("web", 4)
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("%d RunInstances calls, want the batch's one", n)
	}
	h.checkBatchMembers("web", 4)
}

func TestACrashHalfWayThroughTheMembersTakingTheirInstancesLeavesOneEach(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.timeout = 60 * time.Second
	// One worker, and ownership tags that take a while, so that members take their
	// instances one after another and the manager can be stopped between two.
	h.stopManager()
	h.opts.tweak = func(r *EC2InstanceReconciler) { r.MaxConcurrentReconciles = 1 }
	h.sim.InjectFault(ec2sim.Fault{Operation: "CreateTags", Latency: 400 * time.Millisecond})
	h.startManager()
	h.newSet("web", 4)
	halfWay := false
	h.eventually(h.timeout, func() string {
		recorded := 0
		for _, m := range h.setMembers("web") {
			if m.Status.InstanceID != "" {
				recorded++
			}
		}
		if recorded == 4 {
			return ""
		}
		if recorded > 0 {
			h.stopManager()
			halfWay = true
			return ""
		}
		return "no member has taken its instance yet"
	})
	if !halfWay {
		t.Fatal("every member took its instance before the manager could be stopped half-way")
	}
	h.startManager()
	h.waitSetSettled("web", 4)
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("%d RunInstances calls, want the batch's one", n)
	}
	h.checkBatchMembers("web", 4)
}

func TestAMemberDeletedBeforeTheBatchCallLetsTheOthersLaunchAlone(t *testing.T) {
	t.Parallel()
	h, hold := holdFirstMember(t, "web")
	h.newSet("web", 4)
	h.waitRecords("web", 3)
	var held string
	for _, m := range h.setMembers("web") {
		if strings.HasSuffix(m.Name, "-0") {
			held = m.Name
		}
	}
	h.deleteObject(held)
	h.waitGone(held)
	hold.Store(false)
	defer func() {
		if t.Failed() {
			for _, m := range h.setMembers("web") {
				t.Logf("%s: token %s at %v, annotations %v", m.Name, m.Status.ClientToken, m.Status.LastLaunchAttempt, m.Annotations)
			}
			list := &eventsv1.EventList{}
			_ = h.k8s.List(context.Background(), list, client.InNamespace(h.ns))
			for _, e := range list.Items {
				t.Logf("event %s %s: %s", e.Regarding.Name, e.Reason, e.Note)
			}
		}
	}()
	h.waitSetSettled("web", 4)
	h.eventually(h.timeout, func() string {
		if n := len(h.liveInstances()); n != 4 {
			return fmt.Sprintf("%d live instances, want 4", n)
		}
		return ""
	})
	// Three launched alone once the batch was abandoned, and the set's replacement
	// for the deleted one alone too: nothing was launched for the deleted member.
	if n := h.sim.Calls("RunInstances"); n != 4 {
		t.Errorf("%d RunInstances calls, want 4 launches alone", n)
	}
	for _, inst := range h.liveInstances() {
		if strings.HasPrefix(inst.ClientToken, "ec2set-") {
			t.Errorf("instance %s was launched by the abandoned batch", inst.ID)
		}
	}
}

func TestAMemberDeletedWhileTheBatchCallIsInFlightTerminatesItsInstance(t *testing.T) {
	t.Parallel()
	h, gate := batchInFlight(t)
	var gone computev1alpha1.EC2Instance
	for _, m := range h.setMembers("web") {
		if strings.HasSuffix(m.Name, "-1") {
			gone = m
		}
	}
	if err := h.k8s.Delete(context.Background(), &gone); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	gate.Release()
	h.waitGone(gone.Name)
	h.waitSetSettled("web", 4)
	var batch []ec2sim.InstanceRecord
	for _, inst := range h.sim.Instances() {
		if inst.AmiLaunchIndex == 1 && strings.HasPrefix(inst.ClientToken, "ec2set-") {
			batch = append(batch, inst)
		}
	}
	if len(batch) != 1 || (batch[0].State != ec2sim.StateShuttingDown && batch[0].State != ec2sim.StateTerminated) {
		t.Errorf("the deleted member's batch instance: %+v, want one, terminating", batch)
	}
	h.eventually(h.timeout, func() string {
		if n := len(h.liveInstances()); n != 4 {
			return fmt.Sprintf("%d live instances, want 4", n)
		}
		return ""
	})
}

func TestTheMembersABatchLaunchedNoInstanceForLaunchAlone(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.timeout = 60 * time.Second
	// EC2 has capacity for two instances per call: the batch of four gets two.
	h.sim.SetLaunchCapacity(2)
	h.newSet("web", 4)
	h.waitSetSettled("web", 4)
	if n := h.sim.Calls("RunInstances"); n != 3 {
		t.Errorf("%d RunInstances calls, want the batch's and one for each of the two left without an instance", n)
	}
	inBatch := 0
	for _, m := range h.setMembers("web") {
		inst := h.simInstance(m.Status.InstanceID)
		if strings.HasPrefix(inst.ClientToken, "ec2set-") {
			inBatch++
		}
		if inst.Tags[ec2.TagOwnerUID] != string(m.UID) {
			t.Errorf("%s: instance %s tags %v", m.Name, inst.ID, inst.Tags)
		}
	}
	if inBatch != 2 {
		t.Errorf("%d members took a batch instance, want 2", inBatch)
	}
	if n := len(h.liveInstances()); n != 4 {
		t.Errorf("%d live instances, want 4", n)
	}
}
