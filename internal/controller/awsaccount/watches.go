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

package awsaccount

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/requeue"
)

// SetupWithManager registers the reconciler. An EC2Instance that starts or stops
// using an account, or goes, brings the account back to count its users (and to let
// a waiting deletion finish).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	minBackoff, maxBackoff := r.MinBackoff, r.MaxBackoff
	if minBackoff <= 0 {
		minBackoff = requeue.DefaultMinBackoff
	}
	if maxBackoff <= 0 {
		maxBackoff = requeue.DefaultMaxBackoff
	}
	r.crdReader = mgr.GetAPIReader()
	return ctrl.NewControllerManagedBy(mgr).
		For(&computev1alpha1.AWSAccount{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, usersCountChanged()))).
		Watches(&computev1alpha1.EC2Instance{}, handler.EnqueueRequestsFromMapFunc(accountOf),
			builder.WithPredicates(accountUseChanged())).
		Named("awsaccount").
		WithOptions(controller.Options{
			RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](minBackoff, maxBackoff),
		}).
		Complete(r)
}

// accountOf maps an EC2Instance to the AWSAccount it uses.
func accountOf(_ context.Context, o client.Object) []reconcile.Request {
	if name := NameOf(o.(*computev1alpha1.EC2Instance)); name != "" {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: name}}}
	}
	return nil
}

// usersCountChanged passes the account's own status changes of the count of its users.
// A pass on an EC2Instance's event writes only what differs from the account as the
// cache holds it; a cache that has not seen the last count written yet can hold the
// new count already, and nothing is written while the server keeps the count in
// between, until the next verification, minutes later. The pass that follows the
// cache catching up writes it, and when the count is the operator's own it writes
// nothing. Other status changes do not reconcile: a failing verification, whose
// message may change at every try, is retried with the controller's backoff.
func usersCountChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		DeleteFunc: func(event.DeleteEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, n := e.ObjectOld.(*computev1alpha1.AWSAccount), e.ObjectNew.(*computev1alpha1.AWSAccount)
			return o.Status.InUseBy != n.Status.InUseBy
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// accountUseChanged passes the EC2Instance events that change how many objects use an
// account: creation, deletion, and an update that changes the account an object names
// (a namespace annotation recorded in status) or whether it acts in it.
func accountUseChanged() predicate.Funcs {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, n := e.ObjectOld.(*computev1alpha1.EC2Instance), e.ObjectNew.(*computev1alpha1.EC2Instance)
			return NameOf(o) != NameOf(n) || actsInAccount(o) != actsInAccount(n)
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
