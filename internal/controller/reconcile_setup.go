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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/metadata"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/awsaccount"
	"github.com/ec2-operator/ec2-operator/internal/controller/converge"
	"github.com/ec2-operator/ec2-operator/internal/controller/launch"
	"github.com/ec2-operator/ec2-operator/internal/controller/requeue"
)

// SetupWithManager registers the reconciler. A reconcile follows a spec change (and
// deletion, which bumps the generation of a custom resource with finalizers), an
// annotation change, a change of an AWSAccount the object uses or of its namespace's
// labels and annotations, an edit of the Secret or ConfigMap its userDataFrom names
// (watched only in namespaces that granted it, inputs_sourcewatch.go), and an EC2 event
// about its instance: the operator's own status writes do not trigger one, so it
// cannot feed itself a hot loop. Drift made outside Kubernetes is found by the
// periodic resync.
func (r *EC2InstanceReconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.defaults()
	// Launch records written before now may have been sent by an earlier process.
	r.memory.Batches.Started()
	if err := r.resolveClusterID(mgr.GetAPIReader()); err != nil {
		return err
	}
	if err := indexInstanceIDs(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	if err := launch.IndexBatches(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	if err := awsaccount.IndexUsers(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	if r.SourceWatcher == nil {
		watcher, err := metadata.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
		if err != nil {
			return err
		}
		r.SourceWatcher = watcher
	}
	r.sources.client = r.SourceWatcher
	r.objectReader = mgr.GetAPIReader()
	r.crdReader = mgr.GetAPIReader()
	return ctrl.NewControllerManagedBy(mgr).
		For(&computev1alpha1.EC2Instance{}, builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{},
			// The retry annotation asks for another try of a launch that stalled.
			predicate.AnnotationChangedPredicate{}))).
		// Objects that use an AWSAccount that changed (verified, allowed namespaces),
		// and those of a namespace whose labels or default-account annotation changed.
		Watches(&computev1alpha1.AWSAccount{}, handler.EnqueueRequestsFromMapFunc(r.objectsUsingAccount),
			builder.WithPredicates(accountChangedForUsers())).
		Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(r.objectsInNamespace), builder.OnlyMetadata,
			builder.WithPredicates(predicate.Or(predicate.LabelChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		// Objects whose instances EC2 events are about (HandleEvent).
		WatchesRawSource(source.Channel(r.requeue, &handler.EnqueueRequestForObject{})).
		// Objects whose userDataFrom source changed.
		WatchesRawSource(source.Channel(r.sources.requests, &handler.EnqueueRequestForObject{})).
		Named("ec2instance").
		WithOptions(controller.Options{
			MaxConcurrentReconciles: r.MaxConcurrentReconciles,
			RateLimiter:             newFailureBackoff(r.MinBackoff, r.MaxBackoff),
		}).
		Complete(r)
}

func (r *EC2InstanceReconciler) defaults() {
	r.once.Do(func() {
		if r.ResyncPeriod <= 0 {
			r.ResyncPeriod = DefaultResyncPeriod
		}
		if r.PollInterval <= 0 {
			r.PollInterval = DefaultPollInterval
		}
		if r.AttributeResyncPeriod <= 0 {
			r.AttributeResyncPeriod = DefaultAttributeResyncPeriod
		}
		if r.VisibilityGracePeriod <= 0 {
			r.VisibilityGracePeriod = DefaultVisibilityGracePeriod
		}
		if r.VanishHold <= 0 {
			r.VanishHold = launch.DefaultVanishHold
		}
		if r.MinBackoff <= 0 {
			r.MinBackoff = requeue.DefaultMinBackoff
		}
		if r.MaxBackoff <= 0 {
			r.MaxBackoff = requeue.DefaultMaxBackoff
		}
		if r.TypeChangeTimeout <= 0 {
			r.TypeChangeTimeout = converge.DefaultTypeChangeTimeout
		}
		if r.RestorePolicy == "" {
			r.RestorePolicy = launch.RestoreAdopt
		}
		if r.MaxConcurrentReconciles <= 0 {
			r.MaxConcurrentReconciles = 1
		}
		if r.secondWriterQuiet <= 0 {
			r.secondWriterQuiet = defaultSecondWriterQuiet
		}
		if r.Metrics == nil {
			r.Metrics = nopObserver{}
		}
		if r.Now == nil {
			r.Now = time.Now
		}
		r.requeue = make(chan event.GenericEvent, 1024)
		// A namespace that refused the watch of its sources is asked again as often as
		// a settled instance is checked.
		r.sources.init(r.ResyncPeriod, r.Now, ctrl.Log.WithName("userdata-watches"))
	})
}
