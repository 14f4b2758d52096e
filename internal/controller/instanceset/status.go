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
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// Reasons of a set's conditions.
const (
	// ReasonComplete: spec.replicas instances of the current template, all available.
	ReasonComplete = "Complete"
	// ReasonScaling: instances are being created or removed.
	ReasonScaling = "Scaling"
	// ReasonRolling: old instances are being replaced.
	ReasonRolling = "Rolling"
	// ReasonWaitingForInstances: the instances exist, and some are not available yet.
	ReasonWaitingForInstances = "WaitingForInstances"
	// ReasonInstanceRefused: the API server refused to create or change an instance;
	// the message is its answer.
	ReasonInstanceRefused = "InstanceRefused"
	// ReasonMinimumAvailable and ReasonMinimumUnavailable say whether at least
	// spec.replicas minus maxUnavailable instances are available.
	ReasonMinimumAvailable   = "MinimumReplicasAvailable"
	ReasonMinimumUnavailable = "MinimumReplicasUnavailable"
)

// setStatus writes what the pass read into the set's status: the counts, the
// selector the scale subresource reports, and the conditions.
func setStatus(set *computev1alpha1.EC2InstanceSet, f fleet, hash string, refused error, now time.Time) {
	replicas := int(desiredReplicas(set))
	current, old := split(f.live)
	st := &set.Status
	st.ObservedGeneration = set.Generation
	st.Replicas = int32(len(f.live))
	st.UpdatedReplicas = int32(len(current))
	st.ReadyReplicas, st.AvailableReplicas = 0, int32(countAvailable(f.live))
	for _, m := range f.live {
		if m.ready {
			st.ReadyReplicas++
		}
	}
	st.Selector = computev1alpha1.InstanceSetLabel + "=" + set.Name
	st.TemplateHash = hash

	reason, message := progress(replicas, len(current), len(old), len(f.live)+f.deleting, int(st.AvailableReplicas))
	complete := reason == ReasonComplete
	_, unavailable := rollingBounds(set, replicas)
	condition(set, computev1alpha1.ConditionAvailable, int(st.AvailableReplicas) >= replicas-unavailable, now,
		map[bool]string{true: ReasonMinimumAvailable, false: ReasonMinimumUnavailable},
		fmt.Sprintf("%d of %d instances available (at least %d needed)", st.AvailableReplicas, replicas, max(0, replicas-unavailable)))
	if refused != nil {
		reason, message = ReasonInstanceRefused, refused.Error()
	}
	setCondition(set, computev1alpha1.ConditionReady, complete, reason, message, now)
	setCondition(set, computev1alpha1.ConditionProgressing, refused == nil, reason, message, now)
	setCondition(set, computev1alpha1.ConditionReconciling, !complete && refused == nil, reason, message, now)
	if refused != nil {
		setCondition(set, computev1alpha1.ConditionStalled, true, reason, message, now)
	} else {
		meta.RemoveStatusCondition(&st.Conditions, computev1alpha1.ConditionStalled)
	}
}

// progress says where the set is: complete, or what it is waiting for.
func progress(replicas, current, old, total, available int) (reason, message string) {
	switch {
	case old > 0:
		return ReasonRolling, fmt.Sprintf("%d of %d instances replaced; %d old instances left", current, replicas, old)
	case total != replicas:
		return ReasonScaling, fmt.Sprintf("%d instances, %d wanted", total, replicas)
	case available < replicas:
		return ReasonWaitingForInstances, fmt.Sprintf("%d of %d instances available", available, replicas)
	}
	return ReasonComplete, fmt.Sprintf("%d instances of the current template, all available", replicas)
}

// condition sets a condition whose reason follows its status.
func condition(set *computev1alpha1.EC2InstanceSet, kind string, ok bool, now time.Time, reasons map[bool]string, message string) {
	setCondition(set, kind, ok, reasons[ok], message, now)
}

// setCondition sets one condition; its transition time moves only when its status
// changes (meta.SetStatusCondition).
func setCondition(set *computev1alpha1.EC2InstanceSet, kind string, ok bool, reason, message string, now time.Time) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&set.Status.Conditions, metav1.Condition{
		Type: kind, Status: status, Reason: reason, Message: message,
		ObservedGeneration: set.Generation, LastTransitionTime: metav1.NewTime(now),
	})
}
