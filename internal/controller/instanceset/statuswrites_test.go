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

package instanceset

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

func TestAStatusWriteOfCountsAloneWaitsAndATransitionDoesNot(t *testing.T) {
	key := types.NamespacedName{Namespace: "team-a", Name: "web"}
	before := testSet(100)
	before.Status.ObservedGeneration = 1
	before.Status.ReadyReplicas = 10
	before.Status.Conditions = []metav1.Condition{{Type: computev1alpha1.ConditionReady, Status: metav1.ConditionFalse,
		Reason: ReasonWaitingForInstances, Message: "10 of 100 instances available"}}
	var w writeTimes
	if wait := w.due(key, before, before, epoch); wait != 0 {
		t.Errorf("the first write of a set waited %s", wait)
	}
	w.put(key, epoch)

	counts := before.DeepCopy()
	counts.Status.ReadyReplicas = 11
	counts.Status.Conditions[0].Message = "11 of 100 instances available"
	if wait := w.due(key, before, counts, epoch.Add(500*time.Millisecond)); wait != statusInterval-500*time.Millisecond {
		t.Errorf("a change of counts half a second after a write waits %s, want the rest of %s", wait, statusInterval)
	}
	if wait := w.due(key, before, counts, epoch.Add(statusInterval)); wait != 0 {
		t.Errorf("a change of counts %s after the last write waited %s", statusInterval, wait)
	}

	ready := counts.DeepCopy()
	ready.Status.Conditions[0].Status, ready.Status.Conditions[0].Reason = metav1.ConditionTrue, ReasonComplete
	if wait := w.due(key, before, ready, epoch.Add(time.Millisecond)); wait != 0 {
		t.Errorf("Ready turning True waited %s: kubectl wait and Argo CD wait for it", wait)
	}
	newGeneration := counts.DeepCopy()
	newGeneration.Status.ObservedGeneration = 2
	if wait := w.due(key, before, newGeneration, epoch.Add(time.Millisecond)); wait != 0 {
		t.Errorf("a new observed generation waited %s", wait)
	}
	w.forget(key)
	if wait := w.due(key, before, counts, epoch.Add(time.Millisecond)); wait != 0 {
		t.Errorf("a forgotten set's write waited %s", wait)
	}
}
