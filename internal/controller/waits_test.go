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

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// A wait that follows an action must not be satisfied by what already held before the
// action: "Ready=True" is true before an out-of-band stop, so waiting for it after the
// stop can return before the operator even noticed. The waits here take a mark, made
// just before the action, and accept only what the operator wrote after it.

// mark is a point in a test just before an action: the object as the API server held
// it then, and the time on the test's clock (which is also the recorder's clock, as the
// manager runs in the test process).
type mark struct {
	name string
	obj  *computev1alpha1.EC2Instance
	at   time.Time
}

// mark records the object's current version; take it before the action whose effect
// a later wait looks for.
func (h *harness) mark(name string) mark {
	h.t.Helper()
	at := time.Now()
	return mark{name: name, obj: h.get(name), at: at}
}

// waitConditionSince waits until the operator writes a version of the object, after
// the mark, in which the condition has the status (and the reason, when not empty), and
// the condition did not have it in some version at or after the mark. So when the
// condition already held at the mark, the object must first have left that state and
// come back to it: a stale read of the state before the action can never satisfy it.
// It follows the object with a watch from the mark's resourceVersion, which delivers
// every version written since, so a short intermediate state is not missed between
// two polls.
func (h *harness) waitConditionSince(m mark, condType string, status metav1.ConditionStatus, reason string) *computev1alpha1.EC2Instance {
	h.t.Helper()
	matches := func(obj *computev1alpha1.EC2Instance) bool {
		c := meta.FindStatusCondition(obj.Status.Conditions, condType)
		return c != nil && c.Status == status && (reason == "" || c.Reason == reason)
	}
	left := !matches(m.obj)
	last := m.obj
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	w, err := h.k8s.Watch(ctx, &computev1alpha1.EC2InstanceList{}, client.InNamespace(h.ns), &client.ListOptions{
		Raw: &metav1.ListOptions{ResourceVersion: m.obj.ResourceVersion, FieldSelector: "metadata.name=" + m.name},
	})
	if err != nil {
		h.t.Fatalf("watching %s: %v", m.name, err)
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			h.t.Fatalf("timed out after %s: %s: want %s=%s (%s) reached after the mark (left it first: %v); last conditions %+v",
				h.timeout, m.name, condType, status, reason, left, last.Status.Conditions)
		case ev, ok := <-w.ResultChan():
			if !ok {
				h.t.Fatalf("the watch of %s ended before %s=%s (%s)", m.name, condType, status, reason)
			}
			switch ev.Type {
			case watch.Error:
				h.t.Fatalf("watching %s: %v", m.name, ev.Object)
			case watch.Deleted:
				h.t.Fatalf("%s was deleted while waiting for %s=%s (%s)", m.name, condType, status, reason)
			case watch.Added, watch.Modified:
				obj, ok := ev.Object.(*computev1alpha1.EC2Instance)
				if !ok {
					continue
				}
				last = obj
				if !matches(obj) {
					left = true
				} else if left {
					return obj
				}
			}
		}
	}
}

// waitEventSince waits for an event with the reason on the object that was recorded
// after the mark, and returns its note. An event the recorder folded into an earlier
// one's series counts when the series was last observed after the mark (the events
// API writes a series on its second occurrence and only refreshes it every 30 minutes
// after that, so tests wait for at most the second occurrence of a reason).
func (h *harness) waitEventSince(m mark, reason string) string {
	h.t.Helper()
	since := m.at.Truncate(time.Microsecond)
	var note string
	h.eventually(h.timeout, func() string {
		list := &eventsv1.EventList{}
		if err := h.k8s.List(context.Background(), list, client.InNamespace(h.ns)); err != nil {
			return err.Error()
		}
		var seen []string
		for _, e := range list.Items {
			if e.Regarding.Name != m.name {
				continue
			}
			at := e.EventTime.Time
			if e.Series != nil {
				at = e.Series.LastObservedTime.Time
			}
			if e.Reason == reason && !at.Before(since) {
				note = e.Note
				return ""
			}
			seen = append(seen, fmt.Sprintf("%s@%s", e.Reason, at.Format(time.StampMicro)))
		}
		return fmt.Sprintf("no %s event on %s since %s; events: %v", reason, m.name, since.Format(time.StampMicro), seen)
	})
	return note
}
