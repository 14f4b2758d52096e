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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/events"
)

// instanceIDIndex indexes EC2Instances by status.instanceId, so that an EC2 event
// finds the object that owns its instance without listing every object.
const instanceIDIndex = "status.instanceId"

// spotNotice is how long before the interruption EC2 sends its warning (the
// documented two minutes); a warning older than memory.SpotWarningTTL is forgotten.
const spotNotice = 2 * time.Minute

// HandleEvent is the events.Handler: it finds the EC2Instance that owns the event's
// instance, remembers what the next pass must know, and queues the object. Events for
// instances no object owns are ignored.
func (r *EC2InstanceReconciler) HandleEvent(ctx context.Context, e events.Event) bool {
	r.defaults()
	list := &computev1alpha1.EC2InstanceList{}
	if err := r.List(ctx, list, client.MatchingFields{instanceIDIndex: e.InstanceID}); err != nil || len(list.Items) == 0 {
		return false
	}
	r.memory.Events.Mark(e)
	for i := range list.Items {
		obj := &list.Items[i]
		if e.DetailType == events.DetailRebalanceAdvisory && r.Recorder != nil {
			r.Recorder.Eventf(obj, nil, corev1.EventTypeNormal, "RebalanceRecommended", "RebalanceRecommended",
				"EC2 recommends rebalancing Spot Instance %s: it is at elevated risk of interruption", e.InstanceID)
		}
		select {
		case r.requeue <- event.GenericEvent{Object: obj}:
		case <-ctx.Done():
			return true
		}
	}
	return true
}

// reportSpotInterruption sets the SpotInterruption condition while a warning is
// fresh, with a Warning event when it first appears, and removes it otherwise.
func (r *EC2InstanceReconciler) reportSpotInterruption(s *pass.Scope, instanceID string) {
	w, ok := r.memory.Events.SpotWarning(instanceID, r.now())
	if !ok {
		meta.RemoveStatusCondition(&s.Obj.Status.Conditions, computev1alpha1.ConditionSpotInterruption)
		return
	}
	at := w.Time.Add(spotNotice).UTC().Format(time.RFC3339)
	msg := fmt.Sprintf("EC2 warned at %s that it will %s Spot Instance %s at about %s", w.Time.UTC().Format(time.RFC3339), w.Action, instanceID, at)
	if c := s.Condition(computev1alpha1.ConditionSpotInterruption); c == nil || c.Message != msg {
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonInterruptionWarning, msg)
	}
	s.SetCondition(computev1alpha1.ConditionSpotInterruption, metav1.ConditionTrue, computev1alpha1.ReasonInterruptionWarning, msg)
}

// indexInstanceIDs registers the index HandleEvent queries.
func indexInstanceIDs(ctx context.Context, indexer client.FieldIndexer) error {
	return indexer.IndexField(ctx, &computev1alpha1.EC2Instance{}, instanceIDIndex, func(o client.Object) []string {
		if id := o.(*computev1alpha1.EC2Instance).Status.InstanceID; id != "" {
			return []string{id}
		}
		return nil
	})
}
