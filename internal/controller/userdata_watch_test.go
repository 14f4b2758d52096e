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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/converge"
)

// reactWithin is how soon a reaction that follows an event must show: far below the
// shipped periods (10 min resync, 1 h attribute resync, 5 min maximum backoff), so
// only the event can have caused it.
const reactWithin = 10 * time.Second

// waitReaction is waitConditionSince bounded by reactWithin; it returns how long the
// reaction took.
func (h *harness) waitReaction(m mark, condType string, status metav1.ConditionStatus, reason string) time.Duration {
	h.t.Helper()
	saved := h.timeout
	h.timeout = reactWithin
	defer func() { h.timeout = saved }()
	h.waitConditionSince(m, condType, status, reason)
	return time.Since(m.at)
}

// editSecretValue replaces one key's value of a Secret of the test's namespace.
func (h *harness) editSecretValue(name, key, value string) {
	h.t.Helper()
	secret := &corev1.Secret{}
	if err := h.k8s.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, secret); err != nil {
		h.t.Fatal(err)
	}
	secret.Data[key] = []byte(value)
	if err := h.k8s.Update(context.Background(), secret); err != nil {
		h.t.Fatal(err)
	}
}

// TestAUserDataEditIsSeenWithinSecondsWithTheShippedPeriods runs with the periods the
// manager ships with, reading as the operator's ServiceAccount under the namespace's
// grant: an edit of the Secret or ConfigMap that userDataFrom names reaches
// Synced=False within seconds, also for a manager that restarted with a settled fleet
// (whose attribute reads are put off for up to an hour). The watches keep nothing of
// the values and end with the objects that need them.
func TestAUserDataEditIsSeenWithinSecondsWithTheShippedPeriods(t *testing.T) {
	t.Parallel()
	const opNS = "ec2-operator-system"
	h := newHarness(t, harnessOptions{tweak: both(asOperator(t, opNS), shippedTimings)})
	h.grantUserData(opNS)
	secret := h.createSecret("boot", "user-data", secretUserData)
	// kubectl apply would keep the whole Secret, value included, in this annotation.
	secret.Annotations = map[string]string{corev1.LastAppliedConfigAnnotation: `{"data":{"user-data":"` + secretUserData + `"}}`}
	if err := h.k8s.Update(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "boot-cm", Namespace: h.ns}, Data: map[string]string{"user-data": "#cloud-config\n"}}
	if err := h.k8s.Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	fromSecret, fromCM := h.instance("fromsecret"), h.instance("fromcm")
	fromSecret.Spec.UserDataFrom = &computev1alpha1.UserDataSource{SecretKeyRef: &computev1alpha1.SecretKeySelector{Name: "boot", Key: "user-data"}}
	fromCM.Spec.UserDataFrom = &computev1alpha1.UserDataSource{ConfigMapKeyRef: &computev1alpha1.ConfigMapKeySelector{Name: "boot-cm", Key: "user-data"}}
	h.create(fromSecret)
	h.create(fromCM)
	h.waitReady("fromsecret")
	h.waitReady("fromcm")

	// A new manager process: the fleet is settled, so it puts its attribute reads off.
	h.stopManager()
	h.startManager()
	h.eventually(h.timeout, func() string {
		r := h.reconciler
		_, sv := r.sources.version(userDataRef{kind: sourceSecret, namespace: h.ns, name: "boot"})
		_, cv := r.sources.version(userDataRef{kind: sourceConfigMap, namespace: h.ns, name: "boot-cm"})
		return unless(sv && cv, "the restarted manager's watches have not synced (secret %v, configmap %v)", sv, cv)
	})
	checkWatchesKeepNoValues(t, h)

	m := h.mark("fromsecret")
	h.editSecretValue("boot", "user-data", strings.Replace(secretUserData, "s3cr3t", "n3w-s3cr3t", 1))
	took := h.waitReaction(m, computev1alpha1.ConditionSynced, metav1.ConditionFalse, converge.ReasonUserDataPending)
	t.Logf("Secret edit seen in %s", took.Round(time.Millisecond))

	m = h.mark("fromcm")
	cm.Data["user-data"] = "#cloud-config\npackages: [jq]\n"
	if err := h.k8s.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	took = h.waitReaction(m, computev1alpha1.ConditionSynced, metav1.ConditionFalse, converge.ReasonUserDataPending)
	t.Logf("ConfigMap edit seen in %s", took.Round(time.Millisecond))

	// The watches end with the objects that need them.
	h.update("fromcm", func(o *computev1alpha1.EC2Instance) {
		o.Spec.UserDataFrom, o.Spec.UserData = nil, "#cloud-config\n"
	})
	h.deleteObject("fromsecret")
	h.waitGone("fromsecret")
	h.eventually(h.timeout, func() string {
		watches, users := h.reconciler.sources.counts()
		return unless(watches == 0 && users == 0, "%d watches for %d objects left", watches, users)
	})
}

// checkWatchesKeepNoValues checks that what the watches store is names and versions:
// neither a value nor an annotation that may hold one.
func checkWatchesKeepNoValues(t *testing.T, h *harness) {
	t.Helper()
	w := &h.reconciler.sources
	w.mu.Lock()
	defer w.mu.Unlock()
	stored := 0
	for key, g := range w.groups {
		for _, sw := range g.watches {
			for _, o := range sw.informer.GetStore().List() {
				m := o.(*metav1.PartialObjectMetadata)
				stored++
				if len(m.Annotations) != 0 || len(m.Labels) != 0 || len(m.ManagedFields) != 0 {
					t.Errorf("the %s watch of %s keeps more than names and versions: %+v", key.kind, key.namespace, m.ObjectMeta)
				}
			}
		}
	}
	if stored < 2 {
		t.Fatalf("the watches store %d objects: the check proves nothing", stored)
	}
}

// TestAGrantOfGetAloneStillLaunchesAndItsRefusedWatchIsNotRetriedHot binds a role of
// the namespace's own that lets the operator get Secrets but not list or watch them:
// the instance launches with the Secret's user data, the refused watch is logged and
// stopped, and it is not tried again before the resync period.
func TestAGrantOfGetAloneStillLaunchesAndItsRefusedWatchIsNotRetriedHot(t *testing.T) {
	t.Parallel()
	const opNS = "ec2-operator-system"
	h := newHarness(t, harnessOptions{tweak: both(asOperator(t, opNS), shippedTimings)})
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "get-secrets"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "get-secrets"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: operatorSA, Namespace: opNS}}}
	for _, o := range []client.Object{role, binding} {
		if err := h.k8s.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	h.createSecret("boot", "user-data", secretUserData)
	obj := h.instance("getonly")
	obj.Spec.UserDataFrom = &computev1alpha1.UserDataSource{SecretKeyRef: &computev1alpha1.SecretKeySelector{Name: "boot", Key: "user-data"}}
	h.create(obj)
	got := h.waitReady("getonly")
	if ud := string(h.simInstance(got.Status.InstanceID).UserData); ud != secretUserData {
		t.Errorf("instance user data %q, want the Secret's", ud)
	}
	h.eventually(h.timeout, func() string {
		return unless(operatorLogs.contains("read but not watched") && operatorLogs.contains(h.ns),
			"the refused watch of namespace %s is not logged", h.ns)
	})
	refused := func() bool {
		w := &h.reconciler.sources
		w.mu.Lock()
		defer w.mu.Unlock()
		g := w.groups[groupKey{namespace: h.ns, kind: sourceSecret}]
		if g == nil {
			return false
		}
		sw := g.watches["boot"]
		return sw != nil && sw.informer == nil && !sw.refusedUntil.IsZero()
	}
	h.eventually(h.timeout, func() string { return unless(refused(), "the watch is not recorded as refused") })
	// The object keeps its settled pace: no pass is spent trying the watch again.
	before := h.reconciles.Load()
	time.Sleep(3 * time.Second)
	if n := h.reconciles.Load() - before; n > 1 || !refused() {
		t.Errorf("%d passes in 3 s after the refusal (refused still: %v); want the resync pace", n, refused())
	}
}
