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

package pass

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// Scope carries one EC2Instance through one reconcile: the object, the status
// it had when the pass started (so status is written only when it changed), the EC2
// client of the object's region and a logger with the object's identity.
type Scope struct {
	Obj    *computev1alpha1.EC2Instance
	Before *computev1alpha1.EC2Instance
	EC2    ec2.Client
	// inst is the instance the pass manages, once found (ensureInstance).
	Inst   *ec2.Instance
	Region string
	Log    logr.Logger
	// released is set once the finalizer is gone: the object may no longer exist, so
	// its status must not be written.
	Released bool
	// typeRefused is set when the spec's instance type is one EC2 refused: the
	// instance cannot settle as Ready.
	TypeRefused bool
	// account is the AWSAccount the pass acts in, nil for the operator's own
	// credentials without a default account; its guardrails bound the launch.
	Account *computev1alpha1.AWSAccount
	// image is the image the launch described, when it did (not for resolve:ssm:).
	Image *ec2.Image
	// written is set once the pass wrote the status; before then holds what it wrote.
	Written bool
	// recorder emits the pass's events on the object; nil emits none (the log keeps
	// them).
	recorder EventRecorder
}

// EventRecorder is the part of the events API a pass uses.
type EventRecorder interface {
	Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...any)
}

// NewScope starts a pass over obj; its events go to recorder and its log.
func NewScope(obj *computev1alpha1.EC2Instance, log logr.Logger, recorder EventRecorder) *Scope {
	return &Scope{Obj: obj, Before: obj.DeepCopy(), Log: log, recorder: recorder}
}

// Event emits a Kubernetes event on the object and logs it.
func (s *Scope) Event(eventType, reason, message string) {
	s.Log.Info(message, "reason", reason)
	if s.recorder != nil {
		s.recorder.Eventf(s.Obj, nil, eventType, reason, reason, "%s", message)
	}
}

// StatusChanged reports whether the status differs from what the API server holds.
func (s *Scope) StatusChanged() bool {
	return !equality.Semantic.DeepEqual(s.Before.Status, s.Obj.Status)
}

// PatchStatus writes the status now if it changed. The reconciler calls it before and
// after the steps that must survive a crash (the client token before RunInstances, the
// instance ID right after), and once at the end of every pass.
func (s *Scope) PatchStatus(ctx context.Context, c client.Client) error {
	if s.Released {
		return nil
	}
	// Reconciling and Stalled follow Ready in every write, so they never lag behind.
	DeriveProgress(s)
	if !s.StatusChanged() {
		return nil
	}
	s.Obj.Status.ObservedGeneration = s.Obj.Generation
	patch := client.MergeFrom(s.Before)
	if s.launchRecordChanged() {
		// The instance ID and the launch record must never be overwritten from a stale
		// copy of the object (a cache that has not seen a newer write): that would
		// forget an instance and launch a second one. With the object's
		// resourceVersion in the patch, the API server refuses a stale write
		// (Conflict), and the object is reconciled again from its current version.
		patch = client.MergeFromWithOptions(s.Before, client.MergeFromWithOptimisticLock{})
	}
	if err := c.Status().Patch(ctx, s.Obj, patch); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("writing status: %w", err)
	}
	s.Before = s.Obj.DeepCopy()
	s.Written = true
	return nil
}

// launchRecordChanged reports whether the status to write changes what identifies the
// object's instance or what the operator created for it: the instance's ID, client
// token, launch time, replacement count, account, region and chosen subnet; the data volumes'
// IDs and client tokens and the removal count their tokens derive from; the Elastic
// IP's allocation.
func (s *Scope) launchRecordChanged() bool {
	b, a := &s.Before.Status, &s.Obj.Status
	return b.InstanceID != a.InstanceID || b.ClientToken != a.ClientToken || b.Recreations != a.Recreations ||
		b.Region != a.Region || b.Account != a.Account || b.AccountID != a.AccountID || !b.LastLaunchAttempt.Equal(a.LastLaunchAttempt) || b.SubnetID != a.SubnetID ||
		b.VolumeRemovals != a.VolumeRemovals || volumeRecords(b.Volumes) != volumeRecords(a.Volumes) ||
		allocationOf(b.ElasticIP) != allocationOf(a.ElasticIP)
}

// volumeRecords is what identifies the data volumes: device, volume ID and client
// token of each.
func volumeRecords(vs []computev1alpha1.VolumeStatus) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v.DeviceName + "=" + v.VolumeID + "/" + v.ClientToken + ";")
	}
	return b.String()
}

func allocationOf(eip *computev1alpha1.ElasticIPStatus) string {
	if eip == nil {
		return ""
	}
	return eip.AllocationID
}

// PatchMetadata writes a change to the finalizers.
func (s *Scope) PatchMetadata(ctx context.Context, c client.Client, mutate func()) error {
	if err := s.PatchObject(ctx, c, mutate); err != nil {
		return fmt.Errorf("updating finalizers: %w", err)
	}
	return nil
}

// PatchObject writes what mutate changes in the object's metadata or spec (not its
// status), as patchMetadata does.
func (s *Scope) PatchObject(ctx context.Context, c client.Client, mutate func()) error {
	base := s.Obj.DeepCopy()
	mutate()
	// Optimistic locking: a merge patch replaces whole lists (the finalizers, the
	// security groups), so without it a change made meanwhile could be dropped.
	if err := c.Patch(ctx, s.Obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return err
	}
	// The patch answer carries the new resourceVersion, and the stored status, which
	// lacks what this pass has set and not written yet (the account it resolved):
	// that is kept, to be written with the pass's next status write.
	s.Obj.Status = *base.Status.DeepCopy()
	s.Before.ObjectMeta = *s.Obj.ObjectMeta.DeepCopy()
	return nil
}

// SetCondition sets a condition for the object's current generation. Setting the same
// status, reason and message again changes nothing, so a steady object is not written.
func (s *Scope) SetCondition(condType string, status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&s.Obj.Status.Conditions, metav1.Condition{
		Type:               condType,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: s.Obj.Generation,
	})
}

// Condition returns the condition of the given type, or nil.
func (s *Scope) Condition(condType string) *metav1.Condition {
	return meta.FindStatusCondition(s.Obj.Status.Conditions, condType)
}

// NotReady marks the object not Ready with a reason and message.
func (s *Scope) NotReady(reason, message string) {
	s.SetCondition(computev1alpha1.ConditionReady, metav1.ConditionFalse, reason, message)
}
