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
	"bytes"
	"context"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/launch"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

func TestClaimOfTellsThisObjectsResourcesFromOtherObjectsAndClusters(t *testing.T) {
	const uid, cluster = "uid-1", "cluster-a"
	testCases := []struct {
		name string
		tags map[string]string
		want pass.Claim
	}{
		{"no tags", map[string]string{"Name": "web"}, pass.ClaimNone},
		{"this object in this cluster", map[string]string{ec2.TagOwnerUID: uid, ec2.TagCluster: cluster}, pass.ClaimOurs},
		{"this object's UID without a cluster tag (an earlier version)", map[string]string{ec2.TagOwnerUID: uid}, pass.ClaimOurs},
		{"another object of this cluster", map[string]string{ec2.TagOwnerUID: "uid-2", ec2.TagCluster: cluster}, pass.ClaimSibling},
		{"another object without a cluster tag", map[string]string{ec2.TagOwnerUID: "uid-2"}, pass.ClaimUnproven},
		{"another cluster's object", map[string]string{ec2.TagOwnerUID: "uid-2", ec2.TagCluster: "cluster-b"}, pass.ClaimOtherCluster},
		{"this object's UID under another cluster's tag", map[string]string{ec2.TagOwnerUID: uid, ec2.TagCluster: "cluster-b"}, pass.ClaimOtherCluster},
		{"only another cluster's tag", map[string]string{ec2.TagCluster: "cluster-b"}, pass.ClaimOtherCluster},
		{"an empty cluster tag is another cluster's", map[string]string{ec2.TagOwnerUID: uid, ec2.TagCluster: ""}, pass.ClaimOtherCluster},
		{"only this cluster's tag", map[string]string{ec2.TagCluster: cluster}, pass.ClaimNone},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := pass.ClaimOf(tc.tags, uid, cluster); got != tc.want {
				t.Errorf("claimOf(%v) = %d, want %d", tc.tags, got, tc.want)
			}
		})
	}
}

// clusterID is the identity the test's operator tags its resources with.
func (h *harness) clusterID() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reconciler.ClusterID
}

// callLog records the EC2 calls one operator makes, for a test of what it must not
// touch when several operators share one emulator (one AWS account).
type callLog struct {
	mu    sync.Mutex
	calls []url.Values
}

func (l *callLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if form, err := url.ParseQuery(string(body)); err == nil {
			l.mu.Lock()
			l.calls = append(l.calls, form)
			l.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

// changesTo returns the operations other than Describe* whose parameters name id.
func (l *callLog) changesTo(id string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, form := range l.calls {
		op := form.Get("Action")
		if strings.HasPrefix(op, "Describe") {
			continue
		}
		for _, vs := range form {
			if slices.Contains(vs, id) {
				out = append(out, op)
				break
			}
		}
	}
	return out
}

// count returns how many calls of op were made.
func (l *callLog) count(op string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, form := range l.calls {
		if form.Get("Action") == op {
			n++
		}
	}
	return n
}

// TestTwoClustersSharingAnAccountNeverTakeEachOthersInstances runs two operators, each
// with its own API server (so each its own kube-system UID), against one emulator,
// with the same namespace and object name in both. Each must report the other's
// instance (InstanceExists), never take it over, change or terminate it, under both
// restore policies; deleting one cluster's object leaves the other's instance running.
func TestTwoClustersSharingAnAccountNeverTakeEachOthersInstances(t *testing.T) {
	testenv.SkipInUnitTier(t)
	second, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = second.Stop() })
	for _, policy := range []launch.RestorePolicy{launch.RestoreAdopt, launch.RestoreRefuse} {
		t.Run(string(policy), func(t *testing.T) {
			t.Parallel()
			twoClusters(t, policy, second)
		})
	}
}

func twoClusters(t *testing.T, policy launch.RestorePolicy, second *testenv.Environment) {
	ns := "shared-" + rand.String(6)
	setPolicy := func(r *EC2InstanceReconciler) { r.RestorePolicy = policy }
	logA, logB := &callLog{}, &callLog{}
	a := newHarness(t, harnessOptions{namespace: ns, tweak: setPolicy, middleware: logA.wrap})
	b := newHarness(t, harnessOptions{namespace: ns, tweak: setPolicy, middleware: logB.wrap,
		cluster: second.Config, sharedSim: a.sim})
	if a.clusterID() == b.clusterID() || a.clusterID() == "" {
		t.Fatalf("the clusters' identities are %q and %q; the test proves nothing", a.clusterID(), b.clusterID())
	}

	// Cluster A runs web; cluster B's web must leave A's instance alone.
	a.create(a.instance("web"))
	first := a.waitReady("web").Status.InstanceID
	before := a.simInstance(first)
	b.waitListed(first)
	b.create(b.instance("web"))
	b.expectInstanceExists("web", first, a.clusterID())
	// Several passes of B (the resync is a second here), all of which leave it alone.
	passes := b.reconciles.Load()
	b.eventually(b.timeout, func() string {
		return unless(b.reconciles.Load() >= passes+3, "B reconciled %d times", b.reconciles.Load()-passes)
	})
	if calls := logB.changesTo(first); len(calls) > 0 || logB.count("RunInstances") > 0 {
		t.Errorf("cluster B acted on A's instance %s: %v, or launched (%d)", first, calls, logB.count("RunInstances"))
	}
	b.deleteObject("web")
	b.waitGone("web")
	after := a.simInstance(first)
	if after.State != "running" || !maps.Equal(before.Tags, after.Tags) {
		t.Fatalf("deleting B's object touched A's instance: %s %v (was %v)", after.State, after.Tags, before.Tags)
	}

	// The other way round: B's web launches once A's instance is gone, and A's new
	// web (a new UID) must leave B's instance alone.
	b.create(b.instance("web"))
	b.expectInstanceExists("web", first, a.clusterID())
	a.deleteObject("web")
	a.waitGone("web")
	mine := b.waitReady("web").Status.InstanceID
	if mine == first {
		t.Fatalf("B manages A's terminated instance %s", first)
	}
	a.waitListed(mine)
	a.create(a.instance("web"))
	a.expectInstanceExists("web", mine, b.clusterID())
	a.deleteObject("web")
	a.waitGone("web")
	if calls := logA.changesTo(mine); len(calls) > 0 {
		t.Errorf("cluster A acted on B's instance %s: %v", mine, calls)
	}
	if s := b.simInstance(mine); s.State != "running" || s.Tags[ec2.TagCluster] != b.clusterID() || s.Tags[ec2.TagOwnerUID] != string(b.get("web").UID) {
		t.Errorf("B's instance after A's object went: %s %v", s.State, s.Tags)
	}
}

// expectInstanceExists waits for Ready=False, InstanceExists, naming the instance and
// the other cluster, with an event. A namespace's listing is shared for a few seconds,
// so the first report may still name an instance terminated since; the next pass
// names the one in the way.
func (h *harness) expectInstanceExists(name, instanceID, otherCluster string) {
	h.t.Helper()
	var got *computev1alpha1.EC2Instance
	h.eventually(h.timeout, func() string {
		got = h.get(name)
		c := findCondition(got, computev1alpha1.ConditionReady)
		return unless(c.Status == metav1.ConditionFalse && c.Reason == computev1alpha1.ReasonInstanceExists &&
			strings.Contains(c.Message, instanceID) && strings.Contains(c.Message, ec2.TagCluster+"="+otherCluster),
			"want Ready=False (InstanceExists) naming instance %s and cluster %s: %+v", instanceID, otherCluster, c)
	})
	h.waitEvent(name, computev1alpha1.ReasonInstanceExists)
	if got.Status.InstanceID != "" {
		h.t.Errorf("%s records instance %s", name, got.Status.InstanceID)
	}
}

// waitListed waits until the operator's shared listing of its namespace shows the
// instance: a listing from before it was launched would not show it, and a new
// object created meanwhile would launch as if it were alone (the race of two
// clusters creating the same object at the same moment, which is not this test's).
func (h *harness) waitListed(instanceID string) {
	h.t.Helper()
	c, err := h.clients.ForRegion(context.Background(), ec2sim.DefaultRegion)
	if err != nil {
		h.t.Fatal(err)
	}
	h.eventually(h.timeout, func() string {
		owned, err := c.OwnedInstances(context.Background(), h.ns, "")
		if err != nil {
			return err.Error()
		}
		for _, i := range owned {
			if i.ID == instanceID {
				return ""
			}
		}
		return "the namespace's listing does not show " + instanceID + " yet"
	})
}

// TestAnInstanceOfThisObjectWithoutTheClusterTagGetsItWithoutARelaunch: an instance
// launched by an earlier version (ownership tags, no cluster tag) for this object's
// UID is this object's; its next pass tags it, its root volume and its interface,
// and launches nothing. The shipped resync periods are used: the object's creation
// is the event that must be enough.
func TestAnInstanceOfThisObjectWithoutTheClusterTagGetsItWithoutARelaunch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: func(r *EC2InstanceReconciler) {
		r.ResyncPeriod, r.AttributeResyncPeriod = DefaultResyncPeriod, DefaultAttributeResyncPeriod
	}})
	cluster := h.clusterID()
	// The object exists before the operator sees it, and so does its instance,
	// launched as an earlier version launched them.
	h.stopManager()
	h.create(h.instance("old"))
	uid := string(h.get("old").UID)
	legacy := h.launchWithTags("legacy-old", ec2.DesiredTags(map[string]string{"team": "platform"}, h.ns, "old", uid, ""))
	h.sim.ResetCalls()
	h.startManager()

	got := h.waitReady("old")
	if got.Status.InstanceID != legacy {
		t.Fatalf("the object manages %q, want the existing %s", got.Status.InstanceID, legacy)
	}
	inst := h.simInstance(legacy)
	if inst.Tags[ec2.TagCluster] != cluster {
		t.Errorf("instance tags %v, want %s=%s", inst.Tags, ec2.TagCluster, cluster)
	}
	if v, _ := h.sim.Volume(inst.RootVolumeID); v.Tags[ec2.TagCluster] != cluster {
		t.Errorf("root volume tags %v, want the cluster tag", v.Tags)
	}
	if n := h.sim.Calls("RunInstances"); n != 0 {
		t.Errorf("RunInstances called %d times: the instance was relaunched", n)
	}
	h.waitEvent("old", "ClusterTagged")
}

// TestAnInstanceOfAnEarlierObjectWithoutTheClusterTagIsReportedNotTaken: matched only
// by namespace and name, an instance from before the cluster tag may be another
// cluster's, so it is reported, not taken over, until someone tags it for this
// cluster (as the message says), after which it is restored as usual.
func TestAnInstanceOfAnEarlierObjectWithoutTheClusterTagIsReportedNotTaken(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	legacy := h.launchWithTags("legacy-twin", ec2.DesiredTags(nil, h.ns, "twin", "uid-of-an-earlier-object", ""))
	before := h.simInstance(legacy).Tags
	h.create(h.instance("twin"))
	got := h.waitCondition("twin", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonInstanceExists)
	msg := findCondition(got, computev1alpha1.ConditionReady).Message
	for _, want := range []string{legacy, "spec.instanceId", ec2.TagCluster + "=" + h.clusterID()} {
		if !strings.Contains(msg, want) {
			t.Errorf("Ready should say %q: %q", want, msg)
		}
	}
	h.waitEvent("twin", computev1alpha1.ReasonInstanceExists)
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("RunInstances called %d times, want only the earlier version's launch", n)
	}
	if after := h.simInstance(legacy).Tags; !maps.Equal(before, after) {
		t.Errorf("the instance's tags changed: %v, were %v", after, before)
	}

	// Tagged for this cluster, as the message suggests, it is taken over.
	if err := h.sim.SetTags(legacy, map[string]string{ec2.TagCluster: h.clusterID()}); err != nil {
		t.Fatal(err)
	}
	if id := h.waitReady("twin").Status.InstanceID; id != legacy {
		t.Errorf("the object manages %s, want the restored %s", id, legacy)
	}
}

// TestAdoptingAnInstanceOfAnotherClusterIsRefused: spec.instanceId naming an instance
// that carries another cluster's tag is reported (InstanceExists), and the instance
// is neither tagged nor changed, nor terminated when the object goes.
func TestAdoptingAnInstanceOfAnotherClusterIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	foreign := h.launchWithTags("foreign", map[string]string{"Name": "theirs", ec2.TagCluster: "another-cluster"})
	h.sim.ResetCalls()
	obj := h.instance("adopter")
	obj.Spec.InstanceID = foreign
	h.create(obj)
	h.expectInstanceExists("adopter", foreign, "another-cluster")
	h.deleteObject("adopter")
	h.waitGone("adopter")
	i := h.simInstance(foreign)
	if i.State != "running" || len(i.Tags) != 2 || i.Tags[ec2.TagOwnerUID] != "" {
		t.Errorf("the other cluster's instance was touched: %s %v", i.State, i.Tags)
	}
	if n := h.mutatingCalls(); n != 0 {
		t.Errorf("%d calls changed something: %v", n, h.sim.CallCounts())
	}
}
