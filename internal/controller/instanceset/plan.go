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
	"maps"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// Default bounds of a rolling update, as a Deployment's: a quarter more instances
// while replacing, and none fewer available.
var (
	defaultMaxSurge       = intstr.FromString("25%")
	defaultMaxUnavailable = intstr.FromInt32(0)
)

// Decision is what one pass does to a set's instances.
type Decision struct {
	// Create names the instances to create from the current template.
	Create []string
	// Update holds current instances with the template's in-place changes applied.
	Update []*computev1alpha1.EC2Instance
	// Delete holds the instances to delete.
	Delete []*computev1alpha1.EC2Instance
	// RecheckAfter is when an instance becomes available and the set should look
	// again (zero: the instances' own changes wake it).
	RecheckAfter time.Duration
}

// Decide says what a pass does: how many instances to create and delete so that the
// set moves toward spec.replicas instances of its current template within its
// strategy's bounds, and which current instances take the template's in-place
// changes. It reads nothing and writes nothing.
func Decide(set *computev1alpha1.EC2InstanceSet, f fleet, hash string) Decision {
	d := Decision{RecheckAfter: f.recheck}
	replicas := int(desiredReplicas(set))
	surge, unavailable := rollingBounds(set, replicas)
	var create int
	var remove []member
	if set.Spec.Strategy.Type == computev1alpha1.OnDelete {
		create, remove = onDelete(f.live, replicas)
	} else {
		create, remove = rolling(f.live, replicas, surge, unavailable)
	}
	d.Create = freeNames(set.Name, hash, f.taken, create)
	removing := map[string]bool{}
	for _, m := range remove {
		d.Delete = append(d.Delete, m.obj)
		removing[m.obj.Name] = true
	}
	d.Update = inPlace(set, f.live, removing, max(1, unavailable))
	return d
}

// desiredReplicas is spec.replicas (the API server defaults it to 1).
func desiredReplicas(set *computev1alpha1.EC2InstanceSet) int32 {
	if set.Spec.Replicas == nil {
		return 1
	}
	return *set.Spec.Replicas
}

// rollingBounds resolves maxSurge (a percentage rounds up) and maxUnavailable (rounds
// down) against the replica count. When both come to 0 (a small set with
// percentages), one instance may be unavailable, as a Deployment allows, so that a
// replacement can start.
func rollingBounds(set *computev1alpha1.EC2InstanceSet, replicas int) (surge, unavailable int) {
	maxSurge, maxUnavailable := &defaultMaxSurge, &defaultMaxUnavailable
	if ru := set.Spec.Strategy.RollingUpdate; ru != nil {
		if ru.MaxSurge != nil {
			maxSurge = ru.MaxSurge
		}
		if ru.MaxUnavailable != nil {
			maxUnavailable = ru.MaxUnavailable
		}
	}
	// CEL admits only numbers and "N%", so these do not fail.
	surge, _ = intstr.GetScaledValueFromIntOrPercent(maxSurge, replicas, true)
	unavailable, _ = intstr.GetScaledValueFromIntOrPercent(maxUnavailable, replicas, false)
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable
}

// rolling replaces old instances with current ones: current instances are created
// up to replicas while the total stays within replicas+surge, and old ones are
// deleted while at least replicas-unavailable instances stay available. Old
// instances that are not available count for nothing and go at once. Current ones
// above replicas (a scale-down) go in removal order.
func rolling(live []member, replicas, surge, unavailable int) (create int, remove []member) {
	current, old := split(live)
	if len(current) < replicas {
		create = max(0, min(replicas-len(current), replicas+surge-len(live)))
	}
	if extra := len(current) - replicas; extra > 0 {
		remove = append(remove, removalOrder(current)[:extra]...)
	}
	budget := countAvailable(live) - (replicas - unavailable)
	for _, m := range removalOrder(old) {
		switch {
		case !m.available:
			remove = append(remove, m)
		case budget > 0:
			remove = append(remove, m)
			budget--
		}
	}
	return create, remove
}

// onDelete keeps replicas instances whatever their template: missing ones are
// created from the current template, extra ones removed in removal order. An old
// instance is replaced only once someone deletes it.
func onDelete(live []member, replicas int) (create int, remove []member) {
	if len(live) < replicas {
		return replicas - len(live), nil
	}
	return 0, removalOrder(live)[:len(live)-replicas]
}

// inPlace returns the current instances, not being removed, whose spec, labels or
// annotations lag the template, with the template applied. A change to a field EC2
// changes only on a stopped instance (computev1alpha1.StopFields) goes to an instance
// only while fewer than wave current instances are not Ready, so that a type change
// does not stop the whole set at once; an instance not launched yet (a launch a
// guardrail refused) has nothing to stop, and takes it at once.
func inPlace(set *computev1alpha1.EC2InstanceSet, live []member, removing map[string]bool, wave int) []*computev1alpha1.EC2Instance {
	var out []*computev1alpha1.EC2Instance
	stopping := 0
	for _, m := range live {
		if !m.current || removing[m.obj.Name] {
			continue
		}
		if !m.ready && m.obj.Status.InstanceID != "" {
			// Taking an earlier change, or failing: it counts against the wave either
			// way. One with no instance yet has nothing to stop.
			stopping++
		}
	}
	for _, m := range live {
		if !m.current || removing[m.obj.Name] {
			continue
		}
		want := withTemplate(set, m.obj)
		if equality.Semantic.DeepEqual(want.Spec, m.obj.Spec) && equality.Semantic.DeepEqual(want.ObjectMeta, m.obj.ObjectMeta) {
			continue
		}
		if stopsFor(set, m.obj) && m.obj.Status.InstanceID != "" {
			if stopping >= wave {
				continue
			}
			stopping++
		}
		out = append(out, want)
	}
	return out
}

// withTemplate returns the instance with the template's spec, labels and
// annotations. Labels and annotations the template does not name are kept: others
// (a user, a tool) may have put them there.
func withTemplate(set *computev1alpha1.EC2InstanceSet, obj *computev1alpha1.EC2Instance) *computev1alpha1.EC2Instance {
	want := obj.DeepCopy()
	want.Spec = *set.Spec.Template.Spec.DeepCopy()
	want.Labels = maps.Clone(want.Labels)
	if want.Labels == nil {
		want.Labels = map[string]string{}
	}
	maps.Copy(want.Labels, set.Spec.Template.Metadata.Labels)
	if len(set.Spec.Template.Metadata.Annotations) > 0 {
		want.Annotations = maps.Clone(want.Annotations)
		if want.Annotations == nil {
			want.Annotations = map[string]string{}
		}
		maps.Copy(want.Annotations, set.Spec.Template.Metadata.Annotations)
	}
	return want
}
