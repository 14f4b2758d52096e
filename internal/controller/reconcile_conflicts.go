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
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/requeue"
)

// A write that meets a newer version of the object (Conflict) is nearly always the
// cache lagging a few milliseconds behind the operator's own last write, and is
// retried almost at once. When the conflicts go on, something else is writing the
// object: often a second install of the operator watching the same namespace. Then a
// fixed quick retry would have the two fight at ten writes a second for ever, so the
// retries back off exponentially, and once the object's status is seen written by
// someone else memory.SecondWriterAfter times in a row, that is reported on the object.
const (
	// defaultSecondWriterQuiet is how long after the last conflict the report goes.
	defaultSecondWriterQuiet = 2 * time.Minute
)

// conflictBackoff is the wait after the streak's nth conflict: requeue.ConflictRetry, doubled
// for each further one, at most max, spread by a tenth.
func conflictBackoff(n int, max time.Duration) time.Duration {
	d := requeue.ConflictRetry
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	d = min(d, max)
	return d + requeue.Jitter(d/10)
}

// afterConflict decides when an object whose write conflicted comes back, and reports
// a second writer when the streak shows one. The current status is read from the API
// server, not the cache, so that a cache lagging behind the operator's own write is
// not taken for someone else's.
func (r *EC2InstanceReconciler) afterConflict(ctx context.Context, key types.NamespacedName, uid types.UID) ctrl.Result {
	var current *computev1alpha1.EC2Instance
	if r.objectReader != nil {
		current = &computev1alpha1.EC2Instance{}
		if err := r.objectReader.Get(ctx, key, current); err != nil {
			current = nil
		}
	}
	var status *computev1alpha1.EC2InstanceStatus
	if current != nil && current.UID == uid {
		status = &current.Status
	}
	n, report := r.memory.Conflicts.Conflicted(uid, status, r.now())
	wait := conflictBackoff(n, r.MaxBackoff)
	if report {
		r.reportSecondWriter(ctx, current, n, wait)
	}
	return ctrl.Result{RequeueAfter: wait}
}

// reportSecondWriter sets ConditionSecondWriter and emits a Warning event naming the
// field manager that last wrote the status. It is a merge patch of that one
// condition, without optimistic locking, so that it goes through while the other
// writer keeps writing.
func (r *EC2InstanceReconciler) reportSecondWriter(ctx context.Context, obj *computev1alpha1.EC2Instance, n int, wait time.Duration) {
	manager, at := lastStatusWriter(obj)
	msg := fmt.Sprintf("%d writes in a row met a status this operator did not write, last written by field manager %q at %s: is a second ec2-operator watching namespace %s? Writes back off meanwhile (next in %s)",
		n, manager, at, obj.Namespace, wait.Round(time.Millisecond))
	base := obj.DeepCopy()
	meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{Type: computev1alpha1.ConditionSecondWriter,
		Status: metav1.ConditionTrue, Reason: computev1alpha1.ReasonAnotherWriter, Message: msg, ObservedGeneration: obj.Generation})
	if err := r.Status().Patch(ctx, obj, client.MergeFrom(base)); err != nil {
		logf.FromContext(ctx).Info("could not report the second writer on the object", "error", err.Error())
	}
	logf.FromContext(ctx).Info(msg, "reason", computev1alpha1.ReasonAnotherWriter)
	if r.Recorder != nil {
		r.Recorder.Eventf(obj, nil, corev1.EventTypeWarning, computev1alpha1.ReasonAnotherWriter, computev1alpha1.ReasonAnotherWriter, "%s", msg)
	}
}

// lastStatusWriter names the field manager whose write of the status subresource is
// the newest, and when it was.
func lastStatusWriter(obj *computev1alpha1.EC2Instance) (string, string) {
	manager, at := "unknown", "an unknown time"
	var newest time.Time
	for _, f := range obj.ManagedFields {
		if f.Subresource == "status" && f.Time != nil && !f.Time.Time.Before(newest) {
			newest, manager, at = f.Time.Time, f.Manager, f.Time.UTC().Format(time.RFC3339)
		}
	}
	return manager, at
}

// settleSecondWriter drops the report once the conflicts have stopped for a while;
// it is part of the pass's status write.
func (r *EC2InstanceReconciler) settleSecondWriter(s *pass.Scope) {
	if s.Condition(computev1alpha1.ConditionSecondWriter) == nil {
		return
	}
	if r.memory.Conflicts.Quiet(s.Obj.UID, r.now(), r.secondWriterQuiet) {
		meta.RemoveStatusCondition(&s.Obj.Status.Conditions, computev1alpha1.ConditionSecondWriter)
	}
}
