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

// Package memory is what the EC2Instance reconciler remembers about objects between
// passes: the extra attributes last read, launches not recorded yet, volumes being
// created, what EC2 events said, vanished instances and conflicting writes. Each store
// is a small type with its own lock; Objects holds one of each and forgets an object
// from all of them at once, so that what is remembered stays bounded by the objects
// that exist. The reconciler owns the one Objects and hands each phase only the store
// it needs. Nothing here is needed for correctness after a restart: status holds what
// must survive one.
package memory

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// Objects is everything remembered per object. Each store is keyed by the object's UID
// (the EC2 event marks by its instance).
type Objects struct {
	// Attributes are the extra attributes last read.
	Attributes Attributes
	// Launches are the launches not recorded in status yet.
	Launches Launches
	// Batches is what this process knows of sets' batch launches.
	Batches Batches
	// Creating are the data volumes whose CreateVolume answer is awaited.
	Creating CreatingVolumes
	// Events are what EC2 events said of instances.
	Events EventMarks
	// Vanished are the instances EC2 no longer knows.
	Vanished Vanished
	// Conflicts follows conflicting writes, for their backoff and the report of a
	// second writer.
	Conflicts Conflicts
	// uids maps each object's name to its record, so that what is remembered per UID
	// can be dropped when the object is gone (also when it went without the
	// finalizer).
	uids sync.Map
}

// record is what is known of an object by its name: its UID, and the instance its
// status recorded, which is what EC2 events are remembered by.
type record struct {
	uid        types.UID
	instanceID string
}

// Forgotten is an object whose memory was dropped, for what the caller keeps outside
// Objects (the watch of its user data source, its metrics).
type Forgotten struct {
	UID types.UID
	// Paused are the account/region keys whose count of paused replacements changed,
	// with their new counts.
	Paused map[string]int
}

// Remember records the object's UID and instance under its name. An object of the same
// name with another UID (deleted and created again between two passes) has its memory
// dropped here, since its own NotFound pass may never come; so has what the events
// said of an instance the object no longer records.
func (m *Objects) Remember(name types.NamespacedName, obj *computev1alpha1.EC2Instance) (Forgotten, bool) {
	prev, loaded := m.uids.Swap(name, record{uid: obj.UID, instanceID: obj.Status.InstanceID})
	if !loaded {
		return Forgotten{}, false
	}
	switch p := prev.(record); {
	case p.uid != obj.UID:
		return m.forget(p), true
	case p.instanceID != "" && p.instanceID != obj.Status.InstanceID:
		m.Events.Forget(p.instanceID)
	}
	return Forgotten{}, false
}

// Forget drops everything remembered about an object that no longer exists.
func (m *Objects) Forget(name types.NamespacedName) (Forgotten, bool) {
	v, ok := m.uids.LoadAndDelete(name)
	if !ok {
		return Forgotten{}, false
	}
	return m.forget(v.(record)), true
}

// Named reports whether an object of that name is remembered.
func (m *Objects) Named(name types.NamespacedName) bool {
	_, ok := m.uids.Load(name)
	return ok
}

// forget drops what is remembered per UID and about the object's instance.
func (m *Objects) forget(r record) Forgotten {
	m.Attributes.Forget(r.uid)
	m.Launches.Forget(r.uid)
	m.Conflicts.Forget(r.uid)
	m.Creating.Forget(r.uid)
	if r.instanceID != "" {
		m.Events.Forget(r.instanceID)
	}
	return Forgotten{UID: r.uid, Paused: m.Vanished.Forget(r.uid)}
}

// Sizes counts the entries of every store, for the tests that prove that what is
// remembered goes with the objects.
func (m *Objects) Sizes() map[string]int {
	out := map[string]int{}
	m.uids.Range(func(any, any) bool { out["uids"]++; return true })
	out["attributes"] = m.Attributes.Size()
	out["conflicts"] = m.Conflicts.Size()
	out["events.stale"], out["events.spot"] = m.Events.Sizes()
	m.Launches.mu.Lock()
	out["launched"] = len(m.Launches.entries)
	m.Launches.mu.Unlock()
	m.Vanished.mu.Lock()
	out["vanished"] = len(m.Vanished.seen) + len(m.Vanished.paused)
	m.Vanished.mu.Unlock()
	m.Creating.mu.Lock()
	out["creating"] = len(m.Creating.since)
	m.Creating.mu.Unlock()
	return out
}
