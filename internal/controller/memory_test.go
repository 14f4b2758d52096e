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
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// remembered counts the entries of every map the reconciler keeps per object or per
// instance.
func remembered(r *EC2InstanceReconciler) map[string]int {
	out := r.memory.Sizes()
	out["sources.watches"], out["sources.users"] = r.sources.counts()
	return out
}

// TestWhatTheReconcilerKeepsPerObjectGoesWithTheObjects creates 1,000 objects (EC2
// events on, a tenth of them with user data from a Secret), lets them launch, deletes
// them all, and checks that every map the reconciler keeps per object or instance is
// back to its size before: nothing a tenant creates and deletes stays in memory.
//
// It is not parallel: its 1,000 launches and deletions load the API server for about
// a minute and a half, which would stretch the bounded waits of the tests beside it.
func TestWhatTheReconcilerKeepsPerObjectGoesWithTheObjects(t *testing.T) {
	const objects = 1000
	h := newHarness(t, harnessOptions{events: true, tweak: func(r *EC2InstanceReconciler) { r.MaxConcurrentReconciles = 16 }})
	h.timeout = 5 * time.Minute
	before := remembered(h.reconciler)
	h.createSecret("boot", "user-data", secretUserData)
	start := time.Now()
	for i := range objects {
		obj := h.instance(fmt.Sprintf("m-%04d", i))
		if i%10 == 0 {
			obj.Spec.UserDataFrom = &computev1alpha1.UserDataSource{SecretKeyRef: &computev1alpha1.SecretKeySelector{Name: "boot", Key: "user-data"}}
		}
		h.create(obj)
	}
	h.eventually(h.timeout, func() string {
		return unless(h.countReady() == objects, "%d of %d objects Ready", h.countReady(), objects)
	})
	t.Logf("%d objects Ready in %s", objects, time.Since(start).Round(time.Second))
	full := remembered(h.reconciler)
	if full["uids"] != objects || full["sources.users"] != objects/10 {
		t.Fatalf("with %d objects the reconciler remembers %v: the check below would prove nothing", objects, full)
	}

	start = time.Now()
	// One delete-collection of 1,000 objects can outlast the API server's request
	// timeout on a loaded machine; it goes on server-side, and what it had not reached
	// is deleted again below. What this test checks is memory, not that latency.
	deleteAll := func() error {
		err := h.k8s.DeleteAllOf(context.Background(), &computev1alpha1.EC2Instance{}, client.InNamespace(h.ns))
		if apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) {
			t.Logf("deleting the objects: %v (deleting the rest again)", err)
			return nil
		}
		return err
	}
	if err := deleteAll(); err != nil {
		t.Fatal(err)
	}
	h.eventually(h.timeout, func() string {
		list := &computev1alpha1.EC2InstanceList{}
		if err := h.k8s.List(context.Background(), list, client.InNamespace(h.ns)); err != nil {
			return err.Error()
		}
		for _, o := range list.Items {
			if o.DeletionTimestamp == nil {
				if err := deleteAll(); err != nil {
					return err.Error()
				}
				break
			}
		}
		return unless(len(list.Items) == 0, "%d objects left", len(list.Items))
	})
	t.Logf("deleted in %s; remembered with all objects: %v", time.Since(start).Round(time.Second), full)
	h.eventually(h.timeout, func() string {
		now := remembered(h.reconciler)
		return unless(fmt.Sprint(now) == fmt.Sprint(before), "remembered %v after every object went, %v before", now, before)
	})
}

// countReady counts the test namespace's objects that are Ready.
func (h *harness) countReady() int {
	list := &computev1alpha1.EC2InstanceList{}
	if err := h.k8s.List(context.Background(), list, client.InNamespace(h.ns)); err != nil {
		return -1
	}
	n := 0
	for _, o := range list.Items {
		if meta.IsStatusConditionTrue(o.Status.Conditions, computev1alpha1.ConditionReady) {
			n++
		}
	}
	return n
}
