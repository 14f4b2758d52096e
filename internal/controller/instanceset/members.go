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
	"sort"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// member is one instance of a set, as the decisions see it.
type member struct {
	obj *computev1alpha1.EC2Instance
	// current: made from the current template (its template-hash label).
	current bool
	// ready: Ready for its current generation.
	ready bool
	// available: ready for at least the set's minReadySeconds.
	available bool
}

// fleet is a set's instances sorted out for one pass.
type fleet struct {
	live []member
	// taken holds every instance name in use, deleting ones included: a new
	// instance never takes the name of one still being deleted.
	taken map[string]bool
	// deleting counts the instances on their way out.
	deleting int
	// recheck is when the next instance becomes available (zero: none is waiting).
	recheck time.Duration
}

// sortFleet sorts a set's instances: which are current, ready and available, and
// when the next one that is ready becomes available.
func sortFleet(set *computev1alpha1.EC2InstanceSet, children []computev1alpha1.EC2Instance, hash string, now time.Time) fleet {
	f := fleet{taken: map[string]bool{}}
	minReady := time.Duration(set.Spec.MinReadySeconds) * time.Second
	for i := range children {
		child := &children[i]
		f.taken[child.Name] = true
		if child.DeletionTimestamp != nil {
			f.deleting++
			continue
		}
		m := member{obj: child, current: child.Labels[computev1alpha1.TemplateHashLabel] == hash}
		ready := meta.FindStatusCondition(child.Status.Conditions, computev1alpha1.ConditionReady)
		m.ready = ready != nil && ready.Status == metav1.ConditionTrue && child.Status.ObservedGeneration == child.Generation
		if m.ready {
			readyFor := now.Sub(ready.LastTransitionTime.Time)
			m.available = readyFor >= minReady
			if wait := minReady - readyFor; !m.available && (f.recheck == 0 || wait < f.recheck) {
				f.recheck = wait
			}
		}
		f.live = append(f.live, m)
	}
	return f
}

// split returns the current members and the old ones.
func split(members []member) (current, old []member) {
	for _, m := range members {
		if m.current {
			current = append(current, m)
		} else {
			old = append(old, m)
		}
	}
	return current, old
}

// countAvailable counts the available members.
func countAvailable(members []member) int {
	n := 0
	for _, m := range members {
		if m.available {
			n++
		}
	}
	return n
}

// removalOrder sorts members in the order a scale-down removes them: instances that
// are not Ready first, then old ones before current ones, then the newest first (an
// instance that has run longest has proven itself longest).
func removalOrder(members []member) []member {
	out := append([]member(nil), members...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.ready != b.ready {
			return !a.ready
		}
		if a.current != b.current {
			return !a.current
		}
		if !a.obj.CreationTimestamp.Equal(&b.obj.CreationTimestamp) {
			return b.obj.CreationTimestamp.Before(&a.obj.CreationTimestamp)
		}
		return a.obj.Name > b.obj.Name
	})
	return out
}

// instanceName is the name of a set's instance: the set, the template hash and a
// slot number. Names are decided, not generated, so that creating an instance again
// after a crash or a stale read finds the one already there instead of adding one.
func instanceName(set string, hash string, slot int) string {
	return set + "-" + hash + "-" + strconv.Itoa(slot)
}

// freeNames returns n names for new instances of the template hash, taking the
// lowest slots no instance (deleting ones included) holds.
func freeNames(set, hash string, taken map[string]bool, n int) []string {
	var out []string
	for slot := 0; len(out) < n; slot++ {
		if name := instanceName(set, hash, slot); !taken[name] {
			out = append(out, name)
		}
	}
	return out
}
