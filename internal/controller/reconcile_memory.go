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
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// perObject is everything the reconciler remembers about objects between passes. Each
// store is keyed by the object's UID (the EC2 events by its instance); forgetUID drops
// an object from all of them at once, so that what is remembered stays bounded by the
// objects that exist.
type perObject struct {
	// attributes are the extra attributes last read (converge_attributes.go).
	attributes attributeCache
	// launched are the launches not recorded in status yet (launch_memory.go).
	launched launchMemory
	// creating are the data volumes whose CreateVolume answer is awaited
	// (converge_volumes_create.go).
	creating creatingVolumes
	// events are what EC2 events said of instances (inputs_ec2events.go).
	events eventState
	// vanished are the instances EC2 no longer knows (instance_vanished.go).
	vanished vanishTracker
	// sources watches the Secrets and ConfigMaps userDataFrom names
	// (inputs_sourcewatch.go).
	sources sourceWatches
	// conflicts follows conflicting writes, for their backoff and the report of a
	// second writer (reconcile_conflicts.go).
	conflicts conflictTracker
	// uids maps each object's name to its objectMemory, so that what is remembered per
	// UID can be dropped when the object is gone (also when it went without the
	// finalizer).
	uids sync.Map
}

// objectMemory is what the reconciler knows of an object by its name: its UID, and
// the instance its status recorded, which is what EC2 events are remembered by.
type objectMemory struct {
	uid        types.UID
	instanceID string
}

// remember records the object's UID and instance under its name. An object of the
// same name with another UID (deleted and created again between two passes) had its
// memory dropped here, since its own NotFound pass may never come; so had what the
// events said of an instance the object no longer records.
func (r *EC2InstanceReconciler) remember(name types.NamespacedName, obj *computev1alpha1.EC2Instance) {
	prev, loaded := r.uids.Swap(name, objectMemory{uid: obj.UID, instanceID: obj.Status.InstanceID})
	if !loaded {
		return
	}
	switch p := prev.(objectMemory); {
	case p.uid != obj.UID:
		r.forgetUID(p)
	case p.instanceID != "" && p.instanceID != obj.Status.InstanceID:
		r.events.forget(p.instanceID)
	}
}

// forgetObject drops everything remembered about an object that no longer exists.
func (r *EC2InstanceReconciler) forgetObject(name types.NamespacedName) {
	v, ok := r.uids.LoadAndDelete(name)
	if !ok {
		return
	}
	r.forgetUID(v.(objectMemory))
	r.Metrics.ForgetInstance(name.Namespace, name.Name)
}

// forgetUID drops what is remembered per UID and about the object's instance: every
// map the reconciler keeps per object is bounded by the objects that exist.
func (r *EC2InstanceReconciler) forgetUID(m objectMemory) {
	uid := m.uid
	r.forgetAttributes(uid)
	r.launched.forget(uid)
	r.sources.release(uid)
	r.conflicts.forget(uid)
	r.creating.forget(uid)
	if m.instanceID != "" {
		r.events.forget(m.instanceID)
	}
	for key, n := range r.vanished.forget(uid) {
		account, region, _ := strings.Cut(key, "/")
		r.Metrics.ReplacementsPaused(account, region, n)
	}
	r.Metrics.InstanceState(uid, "")
}
