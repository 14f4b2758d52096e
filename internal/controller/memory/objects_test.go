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

package memory

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
	"github.com/ec2-operator/ec2-operator/internal/events"
)

// TestAnObjectsMemoryGoesWhenItIsDeletedOrReplacedUnderItsName checks the rule behind
// internal/controller's TestWhatTheReconcilerKeepsPerObjectGoesWithTheObjects for what
// that test cannot provoke on purpose: an EC2 event remembered for an instance whose
// object went before the next pass, and an object deleted and
// created again under its name between two passes (its NotFound pass never comes).
func TestAnObjectsMemoryGoesWhenItIsDeletedOrReplacedUnderItsName(t *testing.T) {
	var m Objects
	spot := events.Event{DetailType: events.DetailSpotInterruption, InstanceID: "i-1"}
	changed := events.Event{DetailType: events.DetailStateChange, InstanceID: "i-1"}
	name := types.NamespacedName{Namespace: "team", Name: "web"}
	obj := &computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web", UID: "uid-1"}}
	obj.Status.InstanceID = "i-1"

	m.Remember(name, obj)
	m.Events.Mark(spot)
	m.Attributes.Put("uid-1", 1, time.Now(), plan.ObservedAttributes{}, "")
	m.Forget(name)
	if stale, spot := m.Events.Sizes(); stale+spot != 0 || m.Attributes.Size() != 0 {
		t.Errorf("after the object went: %d stale marks, %d Spot warnings, %d attribute entries", stale, spot, m.Attributes.Size())
	}

	m.Remember(name, obj)
	m.Events.Mark(changed)
	m.Attributes.Put("uid-1", 1, time.Now(), plan.ObservedAttributes{}, "")
	again := obj.DeepCopy()
	again.UID, again.Status.InstanceID = "uid-2", ""
	m.Remember(name, again)
	if stale, _ := m.Events.Sizes(); stale != 0 || m.Attributes.Known("uid-1") {
		t.Errorf("after the object was created again under its name: %d stale marks, the old UID's attributes kept: %v", stale, m.Attributes.Known("uid-1"))
	}

	// A replacement instance: what the events said of the old one goes.
	m.Remember(name, obj)
	m.Events.Mark(changed)
	replaced := obj.DeepCopy()
	replaced.Status.InstanceID = "i-2"
	m.Remember(name, replaced)
	if stale, _ := m.Events.Sizes(); stale != 0 {
		t.Errorf("after the instance was replaced: %d stale marks", stale)
	}
}
