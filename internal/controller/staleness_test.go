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
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

func TestAStatusWriteFromAStaleCopyCannotEraseTheInstanceID(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("raced")
	h.create(obj)
	stale := obj.DeepCopy() // as created: no instance yet, an old resourceVersion
	id := h.waitReady("raced").Status.InstanceID

	// A pass working from the stale copy decides to record another instance.
	s := pass.NewScope(stale, logf.Log, nil)
	s.Obj.Status.InstanceID = "i-0ffffffffffffffff"
	s.Obj.Status.ClientToken = "a-stale-token"
	err := s.PatchStatus(context.Background(), h.k8s)
	if !apierrors.IsConflict(err) {
		t.Fatalf("a status write from a stale copy gave %v, want a conflict", err)
	}
	if got := h.get("raced").Status.InstanceID; got != id {
		t.Fatalf("the recorded instance %s was overwritten with %s", id, got)
	}
	if n := len(h.liveInstances()); n != 1 {
		t.Errorf("%d live instances, want 1", n)
	}
}

func TestAnObjectGoneWithoutItsFinalizerIsForgotten(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("orphaned"))
	uid := h.waitReady("orphaned").UID
	h.mu.Lock()
	r := h.reconciler
	h.mu.Unlock()
	if !r.memory.Attributes.Known(uid) {
		t.Fatal("the reconciler remembers nothing about a Ready object; the test proves nothing")
	}
	// Someone removes the finalizer and deletes the object (kubectl patch, a backup
	// tool): the operator never runs its deletion.
	h.update("orphaned", func(o *computev1alpha1.EC2Instance) { o.Finalizers = nil })
	h.deleteObject("orphaned")
	h.waitGone("orphaned")
	h.eventually(h.timeout, func() string {
		named := r.memory.Named(types.NamespacedName{Namespace: h.ns, Name: "orphaned"})
		return unless(!r.memory.Attributes.Known(uid) && !named, "the reconciler still remembers the deleted object")
	})
}
