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

// Package outputs keeps spec.outputsTo's ConfigMap or Secret holding an EC2Instance's
// coordinates, from its status, after every pass in Full and Observe. It writes only
// where the namespace granted it (grants.OutputsWriterRole), only to an object the
// EC2Instance owns, never to a typed Secret or one of the operator's own, and changes
// nothing in AWS.
package outputs

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/grants"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// Writer keeps spec.outputsTo's ConfigMap or Secret holding the instance's
// coordinates. It holds no state between passes.
type Writer struct {
	// Reader reads targets past the manager's cache, which holds no ConfigMap or
	// Secret.
	Reader client.Reader
	// Client writes them: an impersonating client in production, so that the API
	// server checks the namespace's grant.
	Client client.Writer
	// Scheme sets the owner reference.
	Scheme *runtime.Scheme
	// Identity names the operator in the refusals, and its own Secrets.
	Identity grants.Identity
	// PollInterval is how soon a pass with an instance in motion comes back.
	PollInterval time.Duration
}

// outputsManagedBy labels the objects the operator writes outputs to, so that they can
// be listed (kubectl get cm -l app.kubernetes.io/managed-by=ec2-operator).
const outputsManagedBy = "ec2-operator"

// refusal is an outputs target that retrying does not fix: the namespace must
// grant it, or the spec must name another object.
type refusal struct{ reason, message string }

func (e *refusal) Error() string { return e.message }

// Sync keeps spec.outputsTo's object holding the instance's coordinates, from
// status only: nothing a user with read access to the EC2Instance could not see. It
// writes nothing when nothing changed, deletes the object it wrote before when the
// spec names another or none, and changes nothing in AWS, so that Observe does it too.
// A deleted EC2Instance's object goes with it by garbage collection (its owner
// reference), not here.
func (w Writer) Sync(ctx context.Context, s *pass.Scope) error {
	if s.Released || !s.Obj.DeletionTimestamp.IsZero() {
		return nil
	}
	want := s.Obj.Spec.OutputsTo
	if err := w.dropStale(ctx, s, want); err != nil {
		return w.failed(s, err)
	}
	if want == nil {
		meta.RemoveStatusCondition(&s.Obj.Status.Conditions, computev1alpha1.ConditionOutputsWritten)
		return nil
	}
	if s.Obj.Status.InstanceID == "" {
		s.SetCondition(computev1alpha1.ConditionOutputsWritten, metav1.ConditionFalse,
			computev1alpha1.ReasonWaitingForInstance, "no instance is recorded yet")
		return nil
	}
	kind := outputsKindOf(want)
	if err := w.write(ctx, s, kind, want.Name); err != nil {
		return w.failed(s, err)
	}
	s.Obj.Status.Outputs = &computev1alpha1.OutputsStatus{Kind: kind, Name: want.Name}
	s.SetCondition(computev1alpha1.ConditionOutputsWritten, metav1.ConditionTrue, computev1alpha1.ReasonOutputsWritten,
		fmt.Sprintf("%s %s holds the instance's coordinates", kind, want.Name))
	return nil
}

// outputsKindOf is the target's kind; an object written before the CRD defaulted it
// has none, which means ConfigMap.
func outputsKindOf(t *computev1alpha1.OutputsTarget) computev1alpha1.OutputsKind {
	if t.Kind == "" {
		return computev1alpha1.OutputsConfigMap
	}
	return t.Kind
}

// failed reports a refused target as OutputsWritten=False (Stalled follows in
// deriveProgress) with a Warning event, and returns the error for backoff either way.
func (w Writer) failed(s *pass.Scope, err error) error {
	var refused *refusal
	if errors.As(err, &refused) {
		s.SetCondition(computev1alpha1.ConditionOutputsWritten, metav1.ConditionFalse, refused.reason, refused.message)
		s.Event(corev1.EventTypeWarning, refused.reason, refused.message)
	}
	return fmt.Errorf("writing outputs: %w", err)
}

// AfterFailed decides when a pass whose outputs failed comes back. While the
// instance is in motion the pass's own soon return retries the outputs too: the
// failure backoff, which grows to minutes, must not slow the instance down. Otherwise
// the error brings the object back with backoff, sooner than the resync.
func (w Writer) AfterFailed(s *pass.Scope, res ctrl.Result, err error) (ctrl.Result, error) {
	if res.Requeue || (res.RequeueAfter > 0 && res.RequeueAfter <= w.PollInterval) {
		s.Log.V(1).Info("outputs not written; retried with the next poll", "reason", err.Error())
		return res, nil
	}
	return ctrl.Result{}, err
}

// write creates the target, or updates it when its data differ. It reads the
// target past the cache (the manager caches no ConfigMap or Secret, and may not list
// them), once per pass.
func (w Writer) write(ctx context.Context, s *pass.Scope, kind computev1alpha1.OutputsKind, name string) error {
	ns := s.Obj.Namespace
	if kind == computev1alpha1.OutputsSecret && w.Identity.OwnSecret(ns, name) {
		return &refusal{computev1alpha1.ReasonOutputsTargetRefused,
			fmt.Sprintf("Secret %s/%s holds the operator's own credentials and is never written", ns, name)}
	}
	want := Data(&s.Obj.Status)
	target := NewObject(kind, ns, name)
	err := w.Reader.Get(ctx, client.ObjectKeyFromObject(target), target)
	switch {
	case apierrors.IsNotFound(err):
		target = NewObject(kind, ns, name)
		if err := controllerutil.SetControllerReference(s.Obj, target, w.Scheme); err != nil {
			return err
		}
		target.SetLabels(map[string]string{"app.kubernetes.io/managed-by": outputsManagedBy})
		setData(target, want)
		return w.refusalFor(kind, ns, name, w.Client.Create(ctx, target))
	case err != nil:
		return w.refusalFor(kind, ns, name, err)
	}
	if !metav1.IsControlledBy(target, s.Obj) {
		return &refusal{computev1alpha1.ReasonOutputsTargetRefused,
			fmt.Sprintf("%s %s/%s exists and is not owned by this EC2Instance: name another in spec.outputsTo, or delete it", kind, ns, name)}
	}
	if secret, ok := target.(*corev1.Secret); ok && secret.Type != corev1.SecretTypeOpaque {
		// Anyone who may create Secrets can point one at the EC2Instance as its
		// controller; only an Opaque one, as the operator creates them, is written, so
		// that a ServiceAccount token or any other typed Secret is never filled in.
		return &refusal{computev1alpha1.ReasonOutputsTargetRefused,
			fmt.Sprintf("Secret %s/%s is of type %s; outputs are written only to Opaque Secrets", ns, name, secret.Type)}
	}
	if maps.Equal(DataOf(target), want) {
		return nil
	}
	setData(target, want)
	return w.refusalFor(kind, ns, name, w.Client.Update(ctx, target))
}

// dropStale deletes the object the coordinates were last written to when the
// spec no longer names it, if this EC2Instance still owns it.
func (w Writer) dropStale(ctx context.Context, s *pass.Scope, want *computev1alpha1.OutputsTarget) error {
	old := s.Obj.Status.Outputs
	if old == nil || (want != nil && old.Name == want.Name && old.Kind == outputsKindOf(want)) {
		return nil
	}
	target := NewObject(old.Kind, s.Obj.Namespace, old.Name)
	err := w.Reader.Get(ctx, client.ObjectKeyFromObject(target), target)
	if err == nil && metav1.IsControlledBy(target, s.Obj) {
		// The precondition spares an object created meanwhile by someone else under
		// the same name.
		uid := target.GetUID()
		err = w.Client.Delete(ctx, target, client.Preconditions{UID: &uid})
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return w.refusalFor(old.Kind, s.Obj.Namespace, old.Name, err)
	}
	s.Obj.Status.Outputs = nil
	return nil
}

// refusalFor names what the namespace must grant when the API server refuses.
func (w Writer) refusalFor(kind computev1alpha1.OutputsKind, ns, name string, err error) error {
	if apierrors.IsForbidden(err) {
		return &refusal{computev1alpha1.ReasonOutputsNotGranted,
			fmt.Sprintf("namespace %s has not granted the operator writing its ConfigMaps and Secrets for spec.outputsTo (%s %s); a namespace admin grants it with: %s",
				ns, kind, name, w.Identity.GrantCommand(grants.OutputsWriterRole, ns))}
	}
	return err
}

// outputsData are the keys written, from status; every key is always there, empty
// while the instance has no such value, so that a workload can mount all of them.
func Data(st *computev1alpha1.EC2InstanceStatus) map[string]string {
	d := map[string]string{
		"instanceId":       st.InstanceID,
		"privateIp":        st.PrivateIP,
		"publicIp":         st.PublicIP,
		"ipv6Address":      "",
		"privateDnsName":   st.PrivateDNSName,
		"publicDnsName":    st.PublicDNSName,
		"elasticIp":        "",
		"availabilityZone": st.AvailabilityZone,
		"region":           st.Region,
	}
	for _, n := range st.NetworkInterfaces {
		if n.DeviceIndex == 0 && len(n.IPv6Addresses) > 0 {
			d["ipv6Address"] = n.IPv6Addresses[0]
		}
	}
	// The Elastic IP is written once it is the instance's address, not while it
	// waits to be associated.
	if eip := st.ElasticIP; eip != nil && eip.AssociationID != "" {
		d["elasticIp"] = eip.PublicIP
	}
	return d
}

func NewObject(kind computev1alpha1.OutputsKind, ns, name string) client.Object {
	m := metav1.ObjectMeta{Namespace: ns, Name: name}
	if kind == computev1alpha1.OutputsSecret {
		return &corev1.Secret{ObjectMeta: m, Type: corev1.SecretTypeOpaque}
	}
	return &corev1.ConfigMap{ObjectMeta: m}
}

func DataOf(obj client.Object) map[string]string {
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		return o.Data
	case *corev1.Secret:
		d := make(map[string]string, len(o.Data))
		for k, v := range o.Data {
			d[k] = string(v)
		}
		return d
	}
	return nil
}

func setData(obj client.Object, d map[string]string) {
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		o.Data = d
	case *corev1.Secret:
		o.Data = make(map[string][]byte, len(d))
		for k, v := range d {
			o.Data[k] = []byte(v)
		}
		// A Secret is written through .data only, so stringData left by a client
		// would not shadow it.
		o.StringData = nil
	}
}
