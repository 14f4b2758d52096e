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
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/metadata"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/accounts"
	"github.com/ec2-operator/ec2-operator/internal/controller/awsaccount"
	"github.com/ec2-operator/ec2-operator/internal/controller/grants"
	"github.com/ec2-operator/ec2-operator/internal/controller/launch"
	"github.com/ec2-operator/ec2-operator/internal/controller/memory"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/requeue"
	"github.com/ec2-operator/ec2-operator/internal/guardrail"
)

// ClientProvider returns the EC2 client for a region, with the operator's own
// credentials or in an AWSAccount. Clients are long-lived: the DescribeInstances
// coalescing and the rate limiter work across reconciles.
type ClientProvider interface {
	// ForRegion returns the region's client with the operator's own credentials.
	ForRegion(ctx context.Context, region string) (ec2.Client, error)
	// ForAccount returns the region's client in the account role acts in.
	ForAccount(ctx context.Context, role accounts.AssumedRole, region string) (ec2.Client, error)
	// OwnIdentity says which account the operator's own credentials act in
	// (sts:GetCallerIdentity), read again when the last answer is older than maxAge.
	OwnIdentity(ctx context.Context, region string, maxAge time.Duration) (accounts.Identity, error)
}

// EventRecorder is the part of the events API the reconciler uses.
type EventRecorder = pass.EventRecorder

// Defaults for the reconciler's timing.
const (
	DefaultResyncPeriod          = 10 * time.Minute
	DefaultPollInterval          = 5 * time.Second
	DefaultAttributeResyncPeriod = time.Hour
	DefaultVisibilityGracePeriod = 5 * time.Minute
)

// EC2InstanceReconciler keeps EC2 instances matching their EC2Instance objects.
type EC2InstanceReconciler struct {
	client.Client
	// Recorder emits Kubernetes events on EC2Instance objects.
	Recorder EventRecorder
	// EC2 gives the EC2 client of each region.
	EC2 ClientProvider
	// DefaultRegion is used for objects that do not name a region.
	DefaultRegion string
	// Metrics receives counts and timings; nil disables them.
	Metrics Observer

	// ResyncPeriod is how often a settled instance is checked for drift made outside
	// Kubernetes.
	ResyncPeriod time.Duration
	// PollInterval is how often an instance in transition (pending, stopping, being
	// modified) is checked.
	PollInterval time.Duration
	// AttributeResyncPeriod bounds how long termination protection, user data and the
	// root volume size go unchecked when the spec does not change.
	AttributeResyncPeriod time.Duration
	// VisibilityGracePeriod is how long an instance ID recorded at launch may be unknown
	// to DescribeInstances (EC2 is eventually consistent) before it counts as gone.
	VisibilityGracePeriod time.Duration
	// VanishHold is how long an instance that EC2 no longer knows waits before it is
	// replaced, while the other instances of its account and region are looked at
	// (package launch).
	VanishHold time.Duration
	// MinBackoff and MaxBackoff bound the exponential backoff after a failed reconcile.
	MinBackoff, MaxBackoff time.Duration
	// CredentialsReady, when set, says whether the AWS credentials can be used yet
	// (nil) or why not: while the Cloud Credential Operator has not written its
	// Secret, objects wait without calling AWS or changing their status; the
	// manager's readiness probe and a metric report the wait.
	CredentialsReady func() error
	// TypeChangeTimeout is how long a start with a new instance type that EC2 refuses
	// for capacity is retried before the change is reverted.
	TypeChangeTimeout time.Duration
	// MaxConcurrentReconciles is the number of objects reconciled in parallel.
	MaxConcurrentReconciles int
	// RestorePolicy says what a new object does about a live instance of an earlier
	// object with its namespace and name; empty means RestoreAdopt.
	RestorePolicy launch.RestorePolicy
	// ClusterID is this cluster's identity in the ec2-operator.dev:cluster tag
	// (--cluster-id); empty means the kube-system Namespace's UID, read by
	// SetupWithManager.
	ClusterID string
	// Now is the clock; tests may replace it.
	Now func() time.Time
	// APIReader reads the Secrets and ConfigMaps of userDataFrom from the API server
	// (the manager never caches their values); nil reads through Client.
	APIReader client.Reader
	// OutputsClient writes spec.outputsTo's ConfigMaps and Secrets (package outputs); nil
	// writes through Client. Tests set it to impersonate the operator's ServiceAccount.
	OutputsClient client.Writer
	// SourceWatcher lists and watches, metadata only, the Secrets and ConfigMaps that
	// userDataFrom names (inputs_sourcewatch.go); nil builds one from the manager's config.
	SourceWatcher metadata.Interface
	// Identity is who the operator is, for the refusals of userDataFrom and
	// spec.outputsTo.
	Identity grants.Identity

	// memory is everything the reconciler remembers per object between passes,
	// forgotten in one place when the object goes (reconcile_memory.go). Only the
	// reconciler remembers and forgets; a phase uses the one store it needs.
	memory memory.Objects
	// sources watches the Secrets and ConfigMaps userDataFrom names
	// (inputs_sourcewatch.go); an object's watch goes with its memory.
	sources sourceWatches
	// secondWriterQuiet is how long the report of a second writer stays after the
	// last conflict (reconcile_conflicts.go). objectReader reads EC2Instances past the
	// cache.
	secondWriterQuiet time.Duration
	objectReader      client.Reader
	// crdReader reads the operator's CRDs past the cache, for the uninstall guard
	// (package deletion); SetupWithManager sets it to the manager's API reader.
	crdReader client.Reader
	// requeue carries to the controller the objects to reconcile that no watch of
	// theirs announced: the owners of the instances EC2 events name, and the siblings
	// of a vanished instance.
	requeue chan event.GenericEvent
	once    sync.Once
	// expected holds, per account and region, the sync.Once that told the client
	// about the managed fleet.
	expected sync.Map
}

// The RBAC the manager needs in the namespaces it watches: EC2Instances, their status
// and finalizers, and events about them. Nothing else there is read or written; in
// particular no Secret or ConfigMap: userDataFrom reads them only where the namespace
// grants it (UserDataReaderRole). These rules are namespaced (the Role manager-role):
// OLM grants them in the namespaces the OperatorGroup targets, and lifts them to a
// ClusterRole only for AllNamespaces, where they are still only about EC2Instances.
// `make deploy` watches every namespace, so config/rbac also binds a ClusterRole with
// the same rules (manager_all_namespaces_role.yaml), which the bundle leaves out.
// +kubebuilder:rbac:groups=compute.ec2-operator.dev,namespace=system,resources=ec2instances,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=compute.ec2-operator.dev,namespace=system,resources=ec2instances/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=compute.ec2-operator.dev,namespace=system,resources=ec2instances/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,namespace=system,resources=events,verbs=create;patch

// Reconcile moves one EC2Instance one step toward its spec. It reads the object and
// the instance afresh every time, and never relies on what the triggering event said.
func (r *EC2InstanceReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r.defaults()
	obj := &computev1alpha1.EC2Instance{}
	if err := r.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.forgetObject(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	r.remember(req.NamespacedName, obj)
	if ref, ok := userDataRefOf(obj); ok && obj.DeletionTimestamp.IsZero() {
		r.sources.use(req.NamespacedName, obj.UID, ref)
	} else {
		r.sources.release(obj.UID)
	}
	if r.CredentialsReady != nil {
		if err := r.CredentialsReady(); err != nil {
			logf.FromContext(ctx).V(1).Info("waiting for AWS credentials", "reason", err.Error())
			return requeue.After(requeue.CredentialsWait, true), nil
		}
	}
	s := pass.NewScope(obj, logf.FromContext(ctx), r.Recorder)
	res, err := r.finish(s, r.reconcile(ctx, s))
	r.settleSecondWriter(s)
	// After a conflict the pass's copy is stale: writing it again would only meet
	// the same conflict.
	if !apierrors.IsConflict(err) {
		w := r.outputsWriter()
		if oerr := w.Sync(ctx, s); oerr != nil && err == nil {
			res, err = w.AfterFailed(s, res, oerr)
		}
		if perr := s.PatchStatus(ctx, r.Client); perr != nil && err == nil {
			err = perr
		}
	}
	if s.Written {
		r.memory.Conflicts.Wrote(obj.UID, &s.Before.Status)
	}
	if s.Released {
		r.Metrics.ForgetInstance(obj.Namespace, obj.Name)
	} else {
		r.Metrics.InstanceReady(obj.Namespace, obj.Name, meta.IsStatusConditionTrue(obj.Status.Conditions, computev1alpha1.ConditionReady))
	}
	if apierrors.IsConflict(err) {
		// The object changed since it was read: the cache has not seen the newest
		// write yet (usually the operator's own, a few milliseconds ago). Come back
		// soon, and later and later should the conflicts go on (reconcile_conflicts.go).
		return r.afterConflict(ctx, req.NamespacedName, obj.UID), nil
	}
	return res, err
}

// reconcile is one pass, as the list of its phases: the account, the client, then
// either the deletion or the instance (launched or adopted, then converged). Each
// phase returns a step; the first that ends the pass ends it.
func (r *EC2InstanceReconciler) reconcile(ctx context.Context, s *pass.Scope) pass.Step {
	if s.Obj.Spec.Observes() {
		// Observe has its own, read-only pass (package observe): none of the phases
		// below may run, since each may change the instance.
		return r.observePhase().Run(ctx, s)
	}
	deleting := !s.Obj.DeletionTimestamp.IsZero()
	// An object for which nothing was ever launched goes at once when deleted, without
	// asking EC2 anything: a region, an account or credentials that no longer work
	// must not keep it forever.
	if deleting && controllerutil.ContainsFinalizer(s.Obj, computev1alpha1.Finalizer) {
		if r.launchPhase().NothingLaunched(s) {
			return r.release(ctx, s)
		}
		// An object deleted because its CRD is (an uninstall) is released without
		// calling AWS, whatever its deletionPolicy (package deletion).
		if st := r.deletion().GuardUninstall(ctx, s); st.Ends() {
			return st
		}
	}
	if st := r.useAccount(ctx, s); st.Ends() {
		return st
	}
	if st := r.useClient(ctx, s); st.Ends() {
		return st
	}
	if deleting {
		return r.deletion().Run(ctx, s)
	}
	// The finalizer is in place before any AWS call, so no instance can exist without it.
	if !controllerutil.ContainsFinalizer(s.Obj, computev1alpha1.Finalizer) {
		if err := s.PatchMetadata(ctx, r.Client, func() {
			controllerutil.AddFinalizer(s.Obj, computev1alpha1.Finalizer)
		}); err != nil {
			return pass.Errored(err)
		}
	}
	// A failed status write after a launch ends the pass: the instance ID must be
	// recorded before anything else is done to the instance.
	if st := r.launchPhase().EnsureInstance(ctx, s); st.Ends() {
		return st
	}
	if st := r.launchPhase().LateInitialize(ctx, s); st.Ends() {
		return st
	}
	// An instance launched before accounts were recorded, found with these
	// credentials, lives in their account.
	if err := r.pinOwnAccount(ctx, s); err != nil {
		return pass.Errored(err)
	}
	return r.converge(ctx, s)
}

// useAccount resolves the account the pass acts in, before any AWS call: an object
// must never act in an account its namespace may not use. It also checks the
// account's guardrails that the spec alone decides.
func (r *EC2InstanceReconciler) useAccount(ctx context.Context, s *pass.Scope) pass.Step {
	acct, err := r.resolveAccount(ctx, s)
	switch {
	case errors.Is(err, errAccountPending{}):
		return pass.WaitSpread(accountPendingRetry)
	case errors.Is(err, pass.ErrAccountRefused{}):
		if !s.Obj.DeletionTimestamp.IsZero() && s.Obj.Spec.DeletionPolicy == computev1alpha1.DeletionPolicyRetain {
			// Retain asks for nothing in AWS; without the account, the ownership tags
			// cannot be removed, and that must not keep the object forever.
			s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonDeleting,
				"released without calling AWS (deletionPolicy Retain) because the account cannot be used: the instance keeps the operator's ownership tags")
			return r.release(ctx, s)
		}
		return pass.AccountRefused()
	case err != nil:
		return pass.Errored(err)
	}
	s.Account = acct
	if s.Obj.DeletionTimestamp.IsZero() && !s.Obj.Spec.Observes() {
		// Guardrails bound what is asked for, never a deletion, and Observe asks for
		// nothing.
		if err := r.checkStaticGuardrails(s); err != nil {
			return pass.AccountRefused()
		}
	}
	return pass.Proceed()
}

// useClient picks the region and its EC2 client. The region is pinned in status once
// an instance may exist: a later change of the operator's (or the account's) default
// region must not make the operator look for (and launch) the instance elsewhere.
func (r *EC2InstanceReconciler) useClient(ctx context.Context, s *pass.Scope) pass.Step {
	s.Region = r.regionOf(s.Obj, s.Account)
	c, err := r.clientFor(ctx, s.Account, s.Region)
	if err != nil {
		// An unknown region is refused here, before any call: RegionUnknown, Stalled.
		return pass.Failed(fmt.Sprintf("configuring the EC2 client for region %q", s.Region), err)
	}
	s.EC2 = c
	if s.Obj.DeletionTimestamp.IsZero() {
		// Every request of the pass leaves through the account's guardrails, except a
		// deletion's: guardrails bound what is asked for, never its end.
		s.EC2 = guardrail.New(c, guardrailRules(s), guardrail.Owner{
			Namespace: s.Obj.Namespace, Name: s.Obj.Name, UID: string(s.Obj.UID), Cluster: r.ClusterID})
	}
	r.expectFleet(ctx, s.Obj.Status.Account, s.Region, c)
	return pass.Proceed()
}

// regionOf is the region an object's instance lives in: the one pinned in status,
// else the spec's, else the account's default, else the operator's.
func (r *EC2InstanceReconciler) regionOf(o *computev1alpha1.EC2Instance, acct *computev1alpha1.AWSAccount) string {
	switch {
	case o.Status.Region != "":
		return o.Status.Region
	case o.Spec.Region != "":
		return o.Spec.Region
	case acct != nil && acct.Spec.DefaultRegion != "":
		return acct.Spec.DefaultRegion
	}
	return r.DefaultRegion
}

// expectFleet tells a client, the first time this process uses it, every instance the
// operator manages through it (the same account and region), so that the lookups of
// a manager starting with a fleet are answered by one batched DescribeInstances call
// instead of one each.
func (r *EC2InstanceReconciler) expectFleet(ctx context.Context, account, region string, c ec2.FleetHints) {
	// The first pass of a client tells it the fleet; the passes that come meanwhile
	// (up to MaxConcurrentReconciles of them) wait for that instead of looking up
	// their instances before the client knows to batch them.
	once, _ := r.expected.LoadOrStore(account+"/"+region, &sync.Once{})
	once.(*sync.Once).Do(func() { r.tellFleet(ctx, account, region, c) })
}

// tellFleet lists the objects whose instances live in the client's account and
// region and tells the client their IDs.
func (r *EC2InstanceReconciler) tellFleet(ctx context.Context, account, region string, c ec2.FleetHints) {
	list := &computev1alpha1.EC2InstanceList{}
	if err := r.List(ctx, list); err != nil {
		logf.FromContext(ctx).Info("could not list EC2Instances to batch their first lookups", "error", err.Error())
		return
	}
	var ids []string
	for _, o := range list.Items {
		// A launched instance has its region in status, so the account's default region
		// is not needed here.
		objRegion := r.regionOf(&o, nil)
		if o.Status.InstanceID != "" && objRegion == region && awsaccount.NameOf(&o) == account {
			ids = append(ids, o.Status.InstanceID)
		}
	}
	c.ExpectLookups(ids)
}

func (r *EC2InstanceReconciler) now() time.Time { return r.Now() }

// resyncAfter spreads resyncs by up to a tenth of the period so that many objects
// created together do not describe their instances in lockstep forever.
func (r *EC2InstanceReconciler) resyncAfter() time.Duration {
	return r.ResyncPeriod + time.Duration(rand.Int64N(int64(r.ResyncPeriod/10)+1))
}
