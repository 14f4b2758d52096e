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
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/accounts"
	"github.com/ec2-operator/ec2-operator/internal/controller/requeue"
	"github.com/ec2-operator/ec2-operator/internal/uninstall"
)

// Verifier assumes the role of an AWSAccount and says who it acts as; it also
// drops what it keeps for an account that is gone. *accounts.RegionalClients implements it.
type Verifier interface {
	VerifyAccount(ctx context.Context, role accounts.AssumedRole, region string) (accounts.Identity, error)
	ForgetAccount(name string)
}

// Observer receives the readiness of each AWSAccount; *metrics.Metrics
// implements it.
type Observer interface {
	AccountReady(account string, ready bool)
	ForgetAccount(account string)
}

// DefaultVerifyPeriod is how often a Ready AWSAccount's role is assumed again, so
// that a trust policy changed in AWS shows in its status within the hour.
const DefaultVerifyPeriod = time.Hour

// stsFallbackRegion is where STS is called when neither the account nor the operator
// names a region; the role is global, so any region answers.
const stsFallbackRegion = "us-east-1"

// Reconciler verifies AWSAccounts (sts:AssumeRole, then
// sts:GetCallerIdentity), reports which account each acts in and how many
// EC2Instances use it, and holds a deletion back while any does. It reads UsersIndex,
// which the EC2Instance reconciler on the same manager registers (IndexUsers).
//
// It emits no Kubernetes events: events about a cluster-scoped object are written in
// the default namespace, which would need a cluster-wide events permission. Its
// conditions, the ec2_operator_aws_account_ready metric and the log say what
// happened, and the EC2Instances that use the account get events of their own.
type Reconciler struct {
	client.Client
	// Accounts assumes the roles.
	Accounts Verifier
	// DefaultRegion is where STS is called for an account without a default region.
	DefaultRegion string
	// Metrics receives each account's readiness; nil records nothing.
	Metrics Observer
	// VerifyPeriod is how often a Ready account is verified again.
	VerifyPeriod time.Duration
	// MinBackoff and MaxBackoff bound the retries of a failed verification.
	MinBackoff, MaxBackoff time.Duration
	// Now is the clock; tests may replace it.
	Now func() time.Time
	// CredentialsReady, when set, says whether the operator's own AWS credentials can
	// be used yet (see EC2InstanceReconciler.CredentialsReady); until then no role is
	// assumed and the status is left alone.
	CredentialsReady func() error

	// crdReader reads the operator's CRDs past the cache, for the uninstall guard
	// (internal/controller/deletion); SetupWithManager sets it to the manager's API reader.
	crdReader client.Reader
}

// AWSAccounts are cluster-scoped, so their rules and the Namespaces' (read for
// allowedNamespaces.selector and the default-account annotation) are cluster rules.
// +kubebuilder:rbac:groups=compute.ec2-operator.dev,resources=awsaccounts,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=compute.ec2-operator.dev,resources=awsaccounts/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=compute.ec2-operator.dev,resources=awsaccounts/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// Reconcile verifies one AWSAccount and keeps its finalizer while it is in use.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)
	acct := &computev1alpha1.AWSAccount{}
	if err := r.Get(ctx, req.NamespacedName, acct); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.Name)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	users, err := r.users(ctx, acct.Name)
	if err != nil {
		return ctrl.Result{}, err
	}
	before := acct.DeepCopy()
	acct.Status.InUseBy = int32(len(users))

	if res, done, err := r.keepFinalizer(ctx, acct, before, users); done {
		return res, err
	}
	if due := r.verifyDue(acct); due > 0 {
		return ctrl.Result{RequeueAfter: due}, r.patchStatus(ctx, before, acct)
	}
	if r.CredentialsReady != nil {
		if err := r.CredentialsReady(); err != nil {
			log.V(1).Info("waiting for the operator's AWS credentials before assuming the role", "reason", err.Error())
			return requeue.After(requeue.CredentialsWait, true), r.patchStatus(ctx, before, acct)
		}
	}
	return r.verify(ctx, acct, before)
}

// verify assumes the account's role and records which account and principal it acts
// as, or why it cannot.
func (r *Reconciler) verify(ctx context.Context, acct, before *computev1alpha1.AWSAccount) (ctrl.Result, error) {
	region := acct.Spec.DefaultRegion
	if region == "" {
		region = r.DefaultRegion
	}
	if region == "" {
		region = stsFallbackRegion
	}
	id, err := r.Accounts.VerifyAccount(ctx, AssumedRole(acct), region)
	acct.Status.ObservedGeneration = acct.Generation
	if err != nil {
		// What an earlier verification found may not hold for this spec.
		acct.Status.AccountID, acct.Status.ARN = "", ""
		msg := fmt.Sprintf("assuming %s: %v", acct.Spec.RoleARN, err)
		r.setCondition(ctx, acct, computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonAssumeRoleFailed, msg)
		r.observe(acct.Name, false)
		if perr := r.patchStatus(ctx, before, acct); perr != nil {
			return ctrl.Result{}, perr
		}
		// The error brings the account back with the controller's backoff.
		return ctrl.Result{}, fmt.Errorf("verifying AWSAccount %s: %w", acct.Name, err)
	}
	now := metav1.NewTime(r.now().UTC().Truncate(time.Second))
	acct.Status.AccountID = id.Account
	acct.Status.ARN = id.ARN
	acct.Status.LastVerified = &now
	r.setCondition(ctx, acct, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonVerified,
		fmt.Sprintf("assumed %s: acting in account %s as %s", acct.Spec.RoleARN, id.Account, id.ARN))
	r.observe(acct.Name, true)
	return ctrl.Result{RequeueAfter: r.verifyPeriod()}, r.patchStatus(ctx, before, acct)
}

// keepFinalizer keeps the account's finalizer while an EC2Instance uses it, and
// removes it once the account is deleted and unused; done says the pass ends there.
func (r *Reconciler) keepFinalizer(ctx context.Context, acct, before *computev1alpha1.AWSAccount, users []computev1alpha1.EC2Instance) (ctrl.Result, bool, error) {
	if !acct.DeletionTimestamp.IsZero() {
		return r.whileDeleted(ctx, acct, before, users)
	}
	if !controllerutil.ContainsFinalizer(acct, computev1alpha1.AccountFinalizer) {
		if err := r.patchFinalizers(ctx, acct, func() { controllerutil.AddFinalizer(acct, computev1alpha1.AccountFinalizer) }); err != nil {
			res, err := finalizerPatchResult(err)
			return res, true, err
		}
		before.Finalizers = acct.Finalizers
		before.ResourceVersion = acct.ResourceVersion
	}
	return ctrl.Result{}, false, nil
}

// whileDeleted holds a deleted account back while EC2Instances use it, and lets it go
// once none does, or at once when the operator is being uninstalled: when either of
// its CRDs is being deleted, the EC2Instances are released without calling AWS (and
// without their account, internal/controller/deletion), so holding the account would only
// keep its CRD's deletion from completing. Letting it go does nothing in AWS. When
// the CRDs cannot be read, the account is held, and the pass backs off.
func (r *Reconciler) whileDeleted(ctx context.Context, acct, before *computev1alpha1.AWSAccount, users []computev1alpha1.EC2Instance) (ctrl.Result, bool, error) {
	if len(users) > 0 {
		crd, err := uninstall.Which(ctx, r.crdReader)
		if err != nil {
			msg := fmt.Sprintf("deletion waits until no EC2Instance uses this account (used by %d: %s) and cannot tell whether the operator is being uninstalled: %v",
				len(users), summarize(users), err)
			r.setCondition(ctx, acct, computev1alpha1.ConditionDeletionBlocked, metav1.ConditionTrue, computev1alpha1.ReasonCRDUnreadable, msg)
			if perr := r.patchStatus(ctx, before, acct); perr != nil {
				return ctrl.Result{}, true, perr
			}
			return ctrl.Result{}, true, err
		}
		if crd == "" {
			// The account still serves the objects that use it, so it is verified as
			// before (the deletion bumped its generation).
			msg := fmt.Sprintf("deletion waits until no EC2Instance uses this account; used by %d: %s", len(users), summarize(users))
			r.setCondition(ctx, acct, computev1alpha1.ConditionDeletionBlocked, metav1.ConditionTrue, computev1alpha1.ReasonAccountInUse, msg)
			return ctrl.Result{}, false, nil
		}
		logf.FromContext(ctx).Info("CustomResourceDefinition "+crd+" is being deleted (the operator is being uninstalled), so the AWSAccount is released "+
			"although EC2Instances use it; they are released too, their instances left running, and nothing was done in AWS",
			"inUseBy", len(users), "users", summarize(users))
	}
	if controllerutil.ContainsFinalizer(acct, computev1alpha1.AccountFinalizer) {
		if err := r.patchFinalizers(ctx, acct, func() { controllerutil.RemoveFinalizer(acct, computev1alpha1.AccountFinalizer) }); err != nil {
			res, err := finalizerPatchResult(client.IgnoreNotFound(err))
			return res, true, err
		}
	}
	r.forget(acct.Name)
	return ctrl.Result{}, true, nil
}

// verifyDue returns 0 when the account must be verified now, or how long until then:
// at once after a spec change or a failure, else a verify period after the last
// success.
func (r *Reconciler) verifyDue(acct *computev1alpha1.AWSAccount) time.Duration {
	ready := meta.FindStatusCondition(acct.Status.Conditions, computev1alpha1.ConditionReady)
	if ready == nil || ready.Status != metav1.ConditionTrue || acct.Status.ObservedGeneration != acct.Generation || acct.Status.LastVerified == nil {
		return 0
	}
	left := acct.Status.LastVerified.Add(r.verifyPeriod()).Sub(r.now())
	return max(left, 0)
}

// users lists the EC2Instances that act in the account: those that passed its checks
// (status.accountId) or have an instance recorded. An object that only names the
// account, from a namespace it does not allow, does not count: it must not be able to
// hold the account's deletion back.
func (r *Reconciler) users(ctx context.Context, name string) ([]computev1alpha1.EC2Instance, error) {
	list := &computev1alpha1.EC2InstanceList{}
	if err := r.List(ctx, list, client.MatchingFields{UsersIndex: name}); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list.Items, func(o computev1alpha1.EC2Instance) bool { return !actsInAccount(&o) }), nil
}

// actsInAccount reports whether an object acts in the account it names: it passed the
// account's checks (status.accountId) or has an instance recorded.
func actsInAccount(o *computev1alpha1.EC2Instance) bool {
	st := &o.Status
	return st.AccountID != "" || st.InstanceID != "" || st.LastLaunchAttempt != nil || st.Recreations > 0
}

// summarize names up to five objects, for a condition message of bounded size.
func summarize(items []computev1alpha1.EC2Instance) string {
	const shown = 5
	names := make([]string, 0, shown)
	for i, o := range items {
		if i == shown {
			names = append(names, fmt.Sprintf("and %d more", len(items)-shown))
			break
		}
		names = append(names, o.Namespace+"/"+o.Name)
	}
	return strings.Join(names, ", ")
}

// setCondition sets a condition, and logs it when its reason or message changed.
func (r *Reconciler) setCondition(ctx context.Context, acct *computev1alpha1.AWSAccount, condType string, status metav1.ConditionStatus, reason, msg string) {
	if old := meta.FindStatusCondition(acct.Status.Conditions, condType); old == nil || old.Reason != reason || old.Message != msg {
		logf.FromContext(ctx).Info(msg, "condition", condType, "status", status, "reason", reason)
	}
	meta.SetStatusCondition(&acct.Status.Conditions, metav1.Condition{
		Type: condType, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: acct.Generation,
	})
}

// patchStatus writes the status if it changed.
func (r *Reconciler) patchStatus(ctx context.Context, before, acct *computev1alpha1.AWSAccount) error {
	if equality.Semantic.DeepEqual(before.Status, acct.Status) {
		return nil
	}
	return client.IgnoreNotFound(r.Status().Patch(ctx, acct, client.MergeFrom(before)))
}

func (r *Reconciler) forget(name string) {
	r.Accounts.ForgetAccount(name)
	if r.Metrics != nil {
		r.Metrics.ForgetAccount(name)
	}
}

func (r *Reconciler) observe(name string, ready bool) {
	if r.Metrics != nil {
		r.Metrics.AccountReady(name, ready)
	}
}

func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Reconciler) verifyPeriod() time.Duration {
	if r.VerifyPeriod > 0 {
		return r.VerifyPeriod
	}
	return DefaultVerifyPeriod
}

// patchFinalizers applies mutate to the account's finalizers with optimistic locking:
// a merge patch replaces the whole list, so without the resourceVersion a finalizer
// another controller added since the cache was read would be dropped.
func (r *Reconciler) patchFinalizers(ctx context.Context, acct *computev1alpha1.AWSAccount, mutate func()) error {
	patch := client.MergeFromWithOptions(acct.DeepCopy(), client.MergeFromWithOptimisticLock{})
	mutate()
	return r.Patch(ctx, acct, patch)
}

// finalizerPatchResult comes back soon after a conflict (the cache has not seen the
// newer version yet) and returns any other error for the backoff.
func finalizerPatchResult(err error) (ctrl.Result, error) {
	if apierrors.IsConflict(err) {
		return requeue.After(requeue.ConflictRetry, true), nil
	}
	return ctrl.Result{}, err
}
