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
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/accounts"
	"github.com/ec2-operator/ec2-operator/internal/controller/awsaccount"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// errAccountPending stops a pass whose account is being verified again after a change
// of its spec; the account watch brings the object back when that is done.
type errAccountPending struct{}

func (errAccountPending) Error() string { return "the AWS account is being verified again" }

// accountPendingRetry is how soon an object waiting for its account's re-verification
// looks again, should the watch event be missed.
const accountPendingRetry = 5 * time.Second

// resolveAccount decides which AWS account the pass acts in and returns its role, or
// nil for the operator's own credentials. It refuses, before any AWS call, an account
// that does not exist, does not allow the object's namespace, has not been verified,
// or acts in another account than the one the instance was launched in.
//
// Which account an object uses is pinned in status.account once something may have
// been launched: a later namespace annotation does not move it. Before that, the
// account is looked up afresh every pass, so a fixed annotation is taken into account.
func (r *EC2InstanceReconciler) resolveAccount(ctx context.Context, s *pass.Scope) (*computev1alpha1.AWSAccount, error) {
	acct, ns, err := r.lookUpAccount(ctx, s)
	if err != nil || acct == nil {
		return nil, err
	}
	if err := r.checkAccountUsable(s, acct, ns); err != nil {
		return nil, err
	}
	s.Obj.Status.AccountID = acct.Status.AccountID
	return acct, nil
}

// lookUpAccount finds the AWSAccount the object names (or its namespace's annotation,
// or the default account) and records its name in status; with no account at all it
// returns nil, after checking the operator's own credentials still act in the
// instance's account. ns is the object's namespace, for the account's allowed
// namespaces.
func (r *EC2InstanceReconciler) lookUpAccount(ctx context.Context, s *pass.Scope) (*computev1alpha1.AWSAccount, *metav1.PartialObjectMetadata, error) {
	st := &s.Obj.Status
	// The namespace is read once, and only when the annotation or the allowed
	// namespaces matter: an object launched with the operator's own credentials
	// needs neither.
	var ns *metav1.PartialObjectMetadata
	name := awsaccount.NameOf(s.Obj)
	if s.Obj.Spec.AccountRef == nil && r.launchPhase().NoInstanceRecorded(s) {
		var err error
		if ns, err = r.namespaceMetadata(ctx, s.Obj.Namespace); err != nil {
			return nil, nil, err
		}
		name = ns.Annotations[computev1alpha1.DefaultAccountAnnotation]
	}
	acct := &computev1alpha1.AWSAccount{}
	if name == "" {
		// No account named: the default account governs the operator's own
		// credentials when the administrator created it; until then they are used
		// without restriction (the open default of a new install).
		err := r.Get(ctx, types.NamespacedName{Name: computev1alpha1.DefaultAccountName}, acct)
		if apierrors.IsNotFound(err) {
			st.Account = ""
			return nil, nil, r.checkOwnAccount(ctx, s, accounts.OwnIdentityTTL)
		}
		if err != nil {
			return nil, nil, err
		}
		name = computev1alpha1.DefaultAccountName
	}
	st.Account = name
	if acct.Name == "" {
		err := r.Get(ctx, types.NamespacedName{Name: name}, acct)
		if apierrors.IsNotFound(err) {
			return nil, nil, r.refuseAccount(s, computev1alpha1.ReasonAccountNotFound,
				fmt.Sprintf("AWSAccount %q does not exist; nothing is called in AWS until it does", name))
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if ns == nil {
		var err error
		if ns, err = r.namespaceMetadata(ctx, s.Obj.Namespace); err != nil {
			return nil, nil, err
		}
	}
	return acct, ns, nil
}

// checkAccountUsable refuses, before any AWS call, an account that does not allow the
// object's namespace, has not been verified, is going away before anything was
// launched with it, or acts in another account than the one the instance was launched
// in.
func (r *EC2InstanceReconciler) checkAccountUsable(s *pass.Scope, acct *computev1alpha1.AWSAccount, ns *metav1.PartialObjectMetadata) error {
	st, name := &s.Obj.Status, acct.Name
	allowed, err := namespaceAllowed(acct, ns)
	if err != nil {
		return r.refuseAccount(s, computev1alpha1.ReasonAccountNotAllowed,
			fmt.Sprintf("AWSAccount %q has an invalid allowedNamespaces.selector: %v", name, err))
	}
	if !allowed {
		return r.refuseAccount(s, computev1alpha1.ReasonAccountNotAllowed,
			fmt.Sprintf("AWSAccount %q does not allow namespace %q (spec.allowedNamespaces); nothing is called in AWS", name, s.Obj.Namespace))
	}
	ready := meta.FindStatusCondition(acct.Status.Conditions, computev1alpha1.ConditionReady)
	verified := ready != nil && ready.Status == metav1.ConditionTrue && acct.Status.AccountID != ""
	if verified && acct.Status.ObservedGeneration != acct.Generation {
		// A verified account whose spec just changed (allowedNamespaces, or the
		// generation bump of its deletion) is verified again within moments; the
		// object waits for that quietly instead of reporting a refusal meanwhile.
		return errAccountPending{}
	}
	if !verified {
		why := "its role has not been assumed yet"
		if ready != nil && ready.Status == metav1.ConditionFalse {
			why = ready.Reason + ": " + ready.Message
		}
		return r.refuseAccount(s, computev1alpha1.ReasonAccountNotReady, fmt.Sprintf("AWSAccount %q is not ready: %s", name, why))
	}
	if !acct.DeletionTimestamp.IsZero() && r.launchPhase().NothingLaunched(s) {
		return r.refuseAccount(s, computev1alpha1.ReasonAccountNotReady,
			fmt.Sprintf("AWSAccount %q is being deleted; it serves only the instances that already use it", name))
	}
	// An instance lives in the account it was launched in. If the AWSAccount's role now
	// acts in another account, the instance would look gone there and be launched
	// again: refuse instead.
	if st.AccountID != "" && st.AccountID != acct.Status.AccountID && !r.launchPhase().NothingLaunched(s) {
		return r.refuseAccount(s, computev1alpha1.ReasonAccountMismatch,
			fmt.Sprintf("the instance lives in AWS account %s, but AWSAccount %q now acts in account %s; point its roleArn back at account %s",
				st.AccountID, name, acct.Status.AccountID, st.AccountID))
	}
	return nil
}

// namespaceMetadata reads a namespace's labels and annotations from the cache, which
// holds only the metadata of Namespaces (the watch in SetupWithManager).
func (r *EC2InstanceReconciler) namespaceMetadata(ctx context.Context, name string) (*metav1.PartialObjectMetadata, error) {
	ns := &metav1.PartialObjectMetadata{}
	ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
	if err := r.Get(ctx, types.NamespacedName{Name: name}, ns); err != nil {
		return nil, err
	}
	return ns, nil
}

// refuseAccount reports why the account cannot be used, once per change of reason.
func (r *EC2InstanceReconciler) refuseAccount(s *pass.Scope, reason, msg string) error {
	if c := s.Condition(computev1alpha1.ConditionReady); c == nil || c.Reason != reason || c.Message != msg {
		s.Event(corev1.EventTypeWarning, reason, msg)
		r.Metrics.ReconcileError(reason)
	}
	s.NotReady(reason, msg)
	return pass.ErrAccountRefused{}
}

// namespaceAllowed reports whether acct allows ns, by name or by label.
func namespaceAllowed(acct *computev1alpha1.AWSAccount, ns *metav1.PartialObjectMetadata) (bool, error) {
	allowed := acct.Spec.AllowedNamespaces
	if slices.Contains(allowed.Names, ns.Name) {
		return true, nil
	}
	if allowed.Selector == nil {
		return false, nil
	}
	sel, err := metav1.LabelSelectorAsSelector(allowed.Selector)
	if err != nil {
		return false, err
	}
	return sel.Matches(labels.Set(ns.Labels)), nil
}

// clientFor returns the EC2 client of the pass: the region's client of the account, or
// of the operator's own credentials.
func (r *EC2InstanceReconciler) clientFor(ctx context.Context, acct *computev1alpha1.AWSAccount, region string) (ec2.Client, error) {
	if acct == nil {
		return r.EC2.ForRegion(ctx, region)
	}
	return r.EC2.ForAccount(ctx, awsaccount.AssumedRole(acct), region)
}

// accountChangedForUsers passes the AWSAccount updates that matter to the objects that
// use it: its spec, deletion, verification and readiness. Its user count and the time
// of its last verification change often and concern no object; without this filter
// every launch in a busy account would queue all of the account's objects again.
func accountChangedForUsers() predicate.Funcs {
	gate := func(a *computev1alpha1.AWSAccount) string {
		ready := meta.FindStatusCondition(a.Status.Conditions, computev1alpha1.ConditionReady)
		r := ""
		if ready != nil {
			r = string(ready.Status) + "/" + ready.Reason + "/" + ready.Message
		}
		return fmt.Sprintf("%d/%d/%s/%t/%s", a.Generation, a.Status.ObservedGeneration, a.Status.AccountID, a.DeletionTimestamp.IsZero(), r)
	}
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			return gate(e.ObjectOld.(*computev1alpha1.AWSAccount)) != gate(e.ObjectNew.(*computev1alpha1.AWSAccount))
		},
	}
}

// objectsUsingAccount maps an AWSAccount to the EC2Instances that use it. The default
// account also governs the objects that name no account, so its creation reaches them
// at once rather than at their next resync.
func (r *EC2InstanceReconciler) objectsUsingAccount(ctx context.Context, o client.Object) []reconcile.Request {
	list := &computev1alpha1.EC2InstanceList{}
	if err := r.List(ctx, list, client.MatchingFields{awsaccount.UsersIndex: o.GetName()}); err != nil {
		return nil
	}
	items := list.Items
	if o.GetName() == computev1alpha1.DefaultAccountName {
		all := &computev1alpha1.EC2InstanceList{}
		if err := r.List(ctx, all); err == nil {
			items = append(items, slices.DeleteFunc(all.Items, func(obj computev1alpha1.EC2Instance) bool {
				return awsaccount.NameOf(&obj) != ""
			})...)
		}
	}
	return requestsFor(items)
}

// objectsInNamespace maps a Namespace whose labels or annotations changed to its
// EC2Instances that use an account, or could through the default-account annotation
// and have launched nothing yet.
func (r *EC2InstanceReconciler) objectsInNamespace(ctx context.Context, o client.Object) []reconcile.Request {
	list := &computev1alpha1.EC2InstanceList{}
	if err := r.List(ctx, list, client.InNamespace(o.GetName())); err != nil {
		return nil
	}
	items := slices.DeleteFunc(list.Items, func(obj computev1alpha1.EC2Instance) bool {
		return awsaccount.NameOf(&obj) == "" && obj.Status.InstanceID != ""
	})
	return requestsFor(items)
}

// requestsFor turns objects into reconcile requests.
func requestsFor(items []computev1alpha1.EC2Instance) []reconcile.Request {
	out := make([]reconcile.Request, 0, len(items))
	for _, obj := range items {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: obj.Namespace, Name: obj.Name}})
	}
	return out
}
