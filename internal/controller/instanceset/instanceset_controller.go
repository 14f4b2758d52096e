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
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// EventRecorder is the part of the events API the reconciler uses.
type EventRecorder interface {
	Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...any)
}

// Reconciler keeps each EC2InstanceSet's instances: it creates, changes and deletes
// EC2Instance objects, and never calls AWS.
type Reconciler struct {
	client.Client
	// Recorder emits events on the sets.
	Recorder EventRecorder
	// Now is the clock; tests may replace it.
	Now func() time.Time

	// written remembers when each set's status was last written (statusDue).
	written writeTimes
}

// A set's rules are namespaced like the EC2Instance rules (a Role in the operator's
// namespace, lifted to a ClusterRole in AllNamespaces mode). Creating and deleting
// EC2Instance objects is the only power a set adds: a set makes EC2Instances in its
// own namespace from a template that is itself an EC2Instance spec, checked by the
// API server and then by every guardrail when each instance is reconciled, so it can
// ask for nothing an EC2Instance written in that namespace could not. The finalizers
// rule lets the instances name the set as an owner that blocks their deletion
// (OwnerReferencesPermissionEnforcement, which OpenShift enables, requires it).
// +kubebuilder:rbac:groups=compute.ec2-operator.dev,namespace=system,resources=ec2instancesets,verbs=get;list;watch
// +kubebuilder:rbac:groups=compute.ec2-operator.dev,namespace=system,resources=ec2instancesets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=compute.ec2-operator.dev,namespace=system,resources=ec2instancesets/finalizers,verbs=update
// +kubebuilder:rbac:groups=compute.ec2-operator.dev,namespace=system,resources=ec2instances,verbs=create;delete

// Reconcile moves one set a step toward spec.replicas instances of its template.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	set := &computev1alpha1.EC2InstanceSet{}
	if err := r.Get(ctx, req.NamespacedName, set); err != nil {
		if apierrors.IsNotFound(err) {
			r.written.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if set.DeletionTimestamp != nil {
		// The instances name the set as their owner: the garbage collector deletes
		// them, and each EC2Instance's own deletion policy decides about its instance.
		return ctrl.Result{}, nil
	}
	hash, err := TemplateHash(&set.Spec.Template.Spec)
	if err != nil {
		return ctrl.Result{}, err
	}
	children, err := r.children(ctx, set)
	if err != nil {
		return ctrl.Result{}, err
	}
	f := sortFleet(set, children, hash, r.now())
	d := Decide(set, f, hash)
	refused, err := r.apply(ctx, set, hash, d)
	if err != nil {
		return ctrl.Result{}, err
	}
	before := set.DeepCopy()
	setStatus(set, f, hash, refused, r.now())
	// Most passes follow an instance's own status write and change nothing here: they
	// write nothing either. A change of counts alone waits for statusInterval.
	if !equality.Semantic.DeepEqual(before.Status, set.Status) {
		if wait := r.written.due(req.NamespacedName, before, set, r.now()); wait > 0 {
			return ctrl.Result{RequeueAfter: soonest(wait, d.RecheckAfter)}, nil
		}
		if err := r.Status().Patch(ctx, set, client.MergeFrom(before)); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		r.written.put(req.NamespacedName, r.now())
	}
	return ctrl.Result{RequeueAfter: d.RecheckAfter}, nil
}

// children lists the set's instances: those in its namespace with its label whose
// controller is this set (by UID). An EC2Instance that merely carries the label is
// not adopted: a label anyone may write must not hand an instance to a set.
func (r *Reconciler) children(ctx context.Context, set *computev1alpha1.EC2InstanceSet) ([]computev1alpha1.EC2Instance, error) {
	list := &computev1alpha1.EC2InstanceList{}
	if err := r.List(ctx, list, client.InNamespace(set.Namespace),
		client.MatchingLabels{computev1alpha1.InstanceSetLabel: set.Name}); err != nil {
		return nil, err
	}
	var out []computev1alpha1.EC2Instance
	for _, child := range list.Items {
		if owner := metav1.GetControllerOf(&child); owner != nil && owner.UID == set.UID {
			out = append(out, child)
		}
	}
	return out, nil
}

// apply makes the decision's writes. An instance the API server refuses (the
// template breaks a rule only an instance's own update checks, a quota) stops the
// pass and is returned as refused, for status; other errors are returned for a retry.
func (r *Reconciler) apply(ctx context.Context, set *computev1alpha1.EC2InstanceSet, hash string, d Decision) (refused error, err error) {
	var created, updated, deleted []string
	defer func() { r.report(set, created, updated, deleted, refused) }()
	created, err = r.createAll(ctx, set, hash, d.Create)
	if err != nil {
		return refusal(err)
	}
	for _, child := range d.Update {
		if err := r.Update(ctx, child); err != nil {
			return refusal(err)
		}
		updated = append(updated, child.Name)
	}
	for _, child := range d.Delete {
		uid := child.UID
		err := r.Delete(ctx, child, client.Preconditions{UID: &uid})
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, err
		}
		deleted = append(deleted, child.Name)
	}
	return nil, nil
}

// refusal sorts a write's error: one the API server will give again until the set
// or the namespace changes is the set's to report; any other is retried.
func refusal(err error) (refused error, retry error) {
	if apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err) {
		return err, nil
	}
	return nil, err
}

// newInstance is a set's instance: the template's spec, labels and annotations, the
// set's and the hash's labels, and the set as its controlling owner.
func newInstance(set *computev1alpha1.EC2InstanceSet, hash, name string, scheme *runtime.Scheme) (*computev1alpha1.EC2Instance, error) {
	child := &computev1alpha1.EC2Instance{}
	child.Name, child.Namespace = name, set.Namespace
	child.Labels = maps.Clone(set.Spec.Template.Metadata.Labels)
	if child.Labels == nil {
		child.Labels = map[string]string{}
	}
	child.Labels[computev1alpha1.InstanceSetLabel] = set.Name
	child.Labels[computev1alpha1.TemplateHashLabel] = hash
	child.Annotations = maps.Clone(set.Spec.Template.Metadata.Annotations)
	if child.Annotations == nil {
		child.Annotations = map[string]string{}
	}
	child.Spec = *set.Spec.Template.Spec.DeepCopy()
	if err := controllerutil.SetControllerReference(set, child, scheme); err != nil {
		return nil, err
	}
	return child, nil
}

// report emits one event per kind of change a pass made, naming the instances.
func (r *Reconciler) report(set *computev1alpha1.EC2InstanceSet, created, updated, deleted []string, refused error) {
	if r.Recorder == nil {
		return
	}
	for _, e := range []struct {
		reason, verb string
		names        []string
	}{{"InstancesCreated", "created", created}, {"InstancesUpdated", "applied the template to", updated}, {"InstancesDeleted", "deleted", deleted}} {
		if len(e.names) > 0 {
			r.Recorder.Eventf(set, nil, "Normal", e.reason, e.reason, "%s %d instance(s): %s", e.verb, len(e.names), shortList(e.names))
		}
	}
	if refused != nil {
		r.Recorder.Eventf(set, nil, "Warning", ReasonInstanceRefused, ReasonInstanceRefused, "%s", refused.Error())
	}
}

// shortList names up to ten instances, and how many more there are.
func shortList(names []string) string {
	if len(names) <= 10 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:10], ", "), len(names)-10)
}

func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// SetupWithManager watches sets and the instances they own, every change of either.
// A set's own status changes count too: a pass writes only what differs from the set
// as the cache holds it, and a cache that has not seen the last write yet (the pass
// ran on an instance's event) can hold a status equal to the new one, so that nothing
// is written and the server keeps the status in between. The pass that follows the
// cache catching up writes it. When the status is the set's own, that pass finds
// nothing to change and writes nothing.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&computev1alpha1.EC2InstanceSet{}).
		Owns(&computev1alpha1.EC2Instance{}).
		Named("ec2instanceset").
		Complete(r)
}
