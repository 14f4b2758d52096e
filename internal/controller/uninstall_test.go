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
	"strings"
	"sync/atomic"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/deletion"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
	"github.com/ec2-operator/ec2-operator/internal/uninstall"
)

// TestUninstallReleasesTheFleetWithoutTerminatingIt deletes the operator's CRDs, as
// OLM v1 does when its ClusterExtension is deleted (or `kubectl delete crd`), under a
// running operator with a fleet of Ready instances: with deletionPolicy Delete (the
// default, in the operator's own account and in an AWSAccount's) and Retain. The API
// server deletes every object; each must be released without any change in AWS (no
// TerminateInstances, no StopInstances, not even the removal of the ownership tags),
// with an event saying why, so that both CRD deletions complete. The awsaccounts CRD
// goes first, while an EC2Instance still uses its AWSAccount: the account's finalizer
// must not hold that deletion back.
//
// Deleting a CRD deletes the objects of every test that shares the package's API
// server, and re-installing it in the middle of their runs would not undo that. So this
// test has a kube-apiserver of its own, as the two-cluster test does; it costs a few
// seconds of start-up and nothing else can see what it deletes.
func TestUninstallReleasesTheFleetWithoutTerminatingIt(t *testing.T) {
	testenv.SkipInUnitTier(t)
	own, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = own.Stop() })
	h := newHarness(t, harnessOptions{accounts: true, cluster: own.Config})
	h.timeout = 2 * time.Minute // each CRD's deletion polls its objects every 5 s
	a := h.account("a", roleA, externalIDA, computev1alpha1.AllowedNamespaces{Names: []string{h.ns}})
	h.waitAccount(a.Name, computev1alpha1.ReasonVerified)

	h.create(h.instance("web"))
	keep := h.instance("keep")
	keep.Spec.DeletionPolicy = computev1alpha1.DeletionPolicyRetain
	h.create(keep)
	h.createIn(a, "in-a")
	fleet := map[string]*computev1alpha1.EC2Instance{}
	for _, name := range []string{"web", "keep", "in-a"} {
		fleet[name] = h.waitReady(name)
	}
	h.waitAccountInUse(a.Name, 1)
	changesBefore := h.worldChanges()

	// The awsaccounts CRD first: its AWSAccount is used by in-a, and goes all the same.
	h.deleteCRD(uninstall.AWSAccountsCRD)
	h.waitCRDGone(uninstall.AWSAccountsCRD)
	if got := h.get("in-a"); !got.DeletionTimestamp.IsZero() {
		t.Fatalf("in-a is being deleted although only the awsaccounts CRD was")
	}
	// Then the ec2instances CRD, which the API server deletes only once every object
	// is gone: their finalizers were removed.
	h.deleteCRD(uninstall.EC2InstancesCRD)
	h.waitCRDGone(uninstall.EC2InstancesCRD)

	for name, obj := range fleet {
		note := h.waitEventOn(obj.UID, deletion.ReasonReleasedOnUninstall)
		if !strings.Contains(note, uninstall.EC2InstancesCRD+" is being deleted") || !strings.Contains(note, "not terminated") {
			t.Errorf("%s: the event says %q", name, note)
		}
		h.expectUntouched(name, obj)
	}
	for _, op := range []string{"TerminateInstances", "StopInstances", "DeleteTags"} {
		if n := h.worldCalls(op); n != 0 {
			t.Errorf("%d %s calls during the uninstall", n, op)
		}
	}
	if after := h.worldChanges(); after != changesBefore {
		t.Errorf("%d calls that change something in EC2 during the uninstall, want none", after-changesBefore)
	}
}

// TestDeleteWhenTheCRDCannotBeReadKeepsTheInstanceAndSaysWhy: while the operator
// cannot read its CRD (RBAC forbids it here), a deletion with deletionPolicy Delete
// terminates nothing, keeps the finalizer and says why (CRDUnreadable); once the CRD
// can be read and is not being deleted, the deletion terminates the instance as
// usual. (That a plain deletion terminates is also what every other deletion test
// proves, through the same guard.)
func TestDeleteWhenTheCRDCannotBeReadKeepsTheInstanceAndSaysWhy(t *testing.T) {
	t.Parallel()
	var forbid atomic.Bool
	h := newHarness(t, harnessOptions{apiMiddleware: func(rt http.RoundTripper) http.RoundTripper {
		return forbidCRDReads{next: rt, on: &forbid}
	}})
	h.create(h.instance("web"))
	id := h.waitReady("web").Status.InstanceID

	forbid.Store(true)
	h.deleteObject("web")
	obj := h.waitCondition("web", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonCRDUnreadable)
	if !controllerutil.ContainsFinalizer(obj, computev1alpha1.Finalizer) {
		t.Fatal("the finalizer is gone although the CRD could not be read")
	}
	if n := h.sim.Calls("TerminateInstances"); n != 0 || h.simInstance(id).State != ec2sim.StateRunning {
		t.Fatalf("%d TerminateInstances, instance %s, while the CRD cannot be read", n, h.simInstance(id).State)
	}

	forbid.Store(false)
	h.waitGone("web")
	if s := h.terminating(id); s != "" {
		t.Fatalf("instance is %s after the deletion went ahead", s)
	}
}

// forbidCRDReads answers the manager's reads of CRDs with 403 Forbidden while on is
// set, as the API server does when the RBAC rule is missing.
type forbidCRDReads struct {
	next http.RoundTripper
	on   *atomic.Bool
}

func (f forbidCRDReads) RoundTrip(req *http.Request) (*http.Response, error) {
	if !f.on.Load() || !strings.HasPrefix(req.URL.Path, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/") {
		return f.next.RoundTrip(req)
	}
	name := req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:]
	body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"Forbidden","code":403,`+
		`"message":"customresourcedefinitions.apiextensions.k8s.io %q is forbidden: the test forbids it",`+
		`"details":{"name":%q,"group":"apiextensions.k8s.io","kind":"customresourcedefinitions"}}`, name, name)
	return &http.Response{StatusCode: http.StatusForbidden, Status: "403 Forbidden", Request: req,
		Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}, nil
}

// crdMeta is a CRD's metadata, for the test's own reads and deletions.
func crdMeta(name string) *metav1.PartialObjectMetadata {
	crd := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name}}
	crd.SetGroupVersionKind(uninstall.CRDKind)
	return crd
}

func (h *harness) deleteCRD(name string) {
	h.t.Helper()
	if err := h.k8s.Delete(context.Background(), crdMeta(name)); err != nil {
		h.t.Fatalf("deleting CRD %s: %v", name, err)
	}
}

func (h *harness) waitCRDGone(name string) {
	h.t.Helper()
	h.eventually(h.timeout, func() string {
		err := h.k8s.Get(context.Background(), client.ObjectKey{Name: name}, crdMeta(name))
		if apierrors.IsNotFound(err) {
			return ""
		}
		return fmt.Sprintf("CRD %s is still there (%v)", name, err)
	})
}

// waitAccountInUse waits until the AWSAccount counts n EC2Instances that use it.
func (h *harness) waitAccountInUse(name string, n int32) {
	h.t.Helper()
	h.eventually(h.timeout, func() string {
		a, err := h.getAccount(name)
		if err != nil {
			return err.Error()
		}
		return unless(a.Status.InUseBy == n, "AWSAccount %s is used by %d, want %d", name, a.Status.InUseBy, n)
	})
}

// waitEventOn waits for an event with the reason about the object with the UID (the
// object itself may be gone), and returns its note.
func (h *harness) waitEventOn(uid types.UID, reason string) string {
	h.t.Helper()
	var note string
	h.eventually(h.timeout, func() string {
		list := &eventsv1.EventList{}
		if err := h.k8s.List(context.Background(), list, client.InNamespace(h.ns)); err != nil {
			return err.Error()
		}
		for _, e := range list.Items {
			if e.Regarding.UID == uid && e.Reason == reason {
				note = e.Note
				return ""
			}
		}
		return fmt.Sprintf("no %s event about %s", reason, uid)
	})
	return note
}

// expectUntouched checks that the object's instance still runs, in whichever account
// it lives, with the ownership tags the object gave it.
func (h *harness) expectUntouched(name string, obj *computev1alpha1.EC2Instance) {
	h.t.Helper()
	var inst ec2sim.InstanceRecord
	found := false
	for _, sim := range h.world.sims {
		if i, ok := sim.Instance(obj.Status.InstanceID); ok {
			inst, found = i, true
		}
	}
	if !found || inst.State != ec2sim.StateRunning {
		h.t.Errorf("%s: instance %s is %+v, want it running", name, obj.Status.InstanceID, inst.State)
		return
	}
	for k, want := range map[string]string{ec2.TagOwnerUID: string(obj.UID), ec2.TagOwnerNamespace: h.ns, ec2.TagOwnerName: name} {
		if got := inst.Tags[k]; got != want {
			h.t.Errorf("%s: tag %s = %q, want %q", name, k, got, want)
		}
	}
	if inst.Tags[ec2.TagCluster] == "" {
		h.t.Errorf("%s: the cluster tag is gone: %v", name, inst.Tags)
	}
}

// worldCalls sums the calls of op in every account.
func (h *harness) worldCalls(op string) int {
	n := 0
	for _, sim := range h.world.sims {
		n += sim.Calls(op)
	}
	return n
}

// worldChanges sums, in every account, the calls that may change something: all but
// the reads.
func (h *harness) worldChanges() int {
	n := 0
	for _, sim := range h.world.sims {
		for op, count := range sim.CallCounts() {
			if !strings.HasPrefix(op, "Describe") && !strings.HasPrefix(op, "Get") {
				n += count
			}
		}
	}
	return n
}
