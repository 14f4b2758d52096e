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
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/grants"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// An OwnNamespace install, granted: the outputs still never overwrite an object the
// EC2Instance does not own, nor the operator's own credentials.
func TestOutputsRefuseObjectsTheyDoNotOwn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.stopManager()
	h.opts.tweak = asOperator(t, h.ns, "ec2-operator-aws-credentials")
	h.startManager()
	h.grant(h.ns, grants.OutputsWriterRole)
	taken := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "app-settings"},
		Data:       map[string]string{"instanceId": "the application's own"},
	}
	if err := h.k8s.Create(context.Background(), taken); err != nil {
		t.Fatal(err)
	}
	targets := map[string]*computev1alpha1.OutputsTarget{
		"taken": {Name: "app-settings"},
		"creds": {Kind: computev1alpha1.OutputsSecret, Name: "ec2-operator-aws-credentials"},
	}
	for name, target := range targets {
		obj := h.instance(name)
		obj.Spec.OutputsTo = target
		h.create(obj)
	}
	for name := range targets {
		h.waitCondition(name, computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonOutputsTargetRefused)
		h.waitEvent(name, computev1alpha1.ReasonOutputsTargetRefused)
	}
	if now, data, _ := h.outputsOf(computev1alpha1.OutputsConfigMap, "app-settings"); now.GetResourceVersion() != taken.ResourceVersion ||
		data["instanceId"] != "the application's own" || len(now.GetOwnerReferences()) != 0 {
		t.Errorf("the application's ConfigMap was written: %v, owners %v", data, now.GetOwnerReferences())
	}
	if _, _, ok := h.outputsOf(computev1alpha1.OutputsSecret, "ec2-operator-aws-credentials"); ok {
		t.Error("the operator's credentials Secret was created from outputs")
	}
}

// Renaming the target writes the new one and deletes the old; removing it deletes the
// last and its condition.
func TestOutputsRenameAndRemovalDeleteTheOldObject(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("moving")
	obj.Spec.OutputsTo = &computev1alpha1.OutputsTarget{Name: "first"}
	h.create(obj)
	h.waitReady("moving")
	h.waitOutputs("moving", computev1alpha1.OutputsConfigMap, "first", h.timeout)

	h.update("moving", func(o *computev1alpha1.EC2Instance) {
		o.Spec.OutputsTo = &computev1alpha1.OutputsTarget{Kind: computev1alpha1.OutputsSecret, Name: "second"}
	})
	h.waitOutputs("moving", computev1alpha1.OutputsSecret, "second", h.timeout)
	h.eventually(h.timeout, func() string {
		if _, _, ok := h.outputsOf(computev1alpha1.OutputsConfigMap, "first"); ok {
			return "the renamed-from ConfigMap is still there"
		}
		return ""
	})
	// The pass writes the objects as it goes and its status once, at its end: the old
	// ConfigMap can be gone a moment before status.outputs names the new Secret.
	h.eventually(h.timeout, func() string {
		if st := h.get("moving").Status.Outputs; st == nil || *st != (computev1alpha1.OutputsStatus{Kind: computev1alpha1.OutputsSecret, Name: "second"}) {
			return fmt.Sprintf("status.outputs %+v", st)
		}
		return ""
	})

	h.update("moving", func(o *computev1alpha1.EC2Instance) { o.Spec.OutputsTo = nil })
	h.eventually(h.timeout, func() string {
		got := h.get("moving")
		if _, _, ok := h.outputsOf(computev1alpha1.OutputsSecret, "second"); ok {
			return "the Secret is still there"
		}
		if got.Status.Outputs != nil || meta.FindStatusCondition(got.Status.Conditions, computev1alpha1.ConditionOutputsWritten) != nil {
			return "status still reports outputs"
		}
		return ""
	})
}

// Observe writes outputs too (a Kubernetes write, nothing in AWS), and still makes no
// changing EC2 call.
func TestObserveWritesOutputsAndChangesNothingInAWS(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := h.launchOutsideKubernetes("legacy", ec2sim.DefaultSubnetIDs[0])
	setup := h.mutatingCalls()
	obj := &computev1alpha1.EC2Instance{
		ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "seen"},
		Spec: computev1alpha1.EC2InstanceSpec{
			InstanceID: id, ManagementPolicy: computev1alpha1.ManagementPolicyObserve,
			OutputsTo: &computev1alpha1.OutputsTarget{Name: "seen-out"},
		},
	}
	h.create(obj)
	h.waitCondition("seen", computev1alpha1.ConditionOutputsWritten, metav1.ConditionTrue, computev1alpha1.ReasonOutputsWritten)
	h.waitOutputs("seen", computev1alpha1.OutputsConfigMap, "seen-out", h.timeout)
	if _, data, _ := h.outputsOf(computev1alpha1.OutputsConfigMap, "seen-out"); data["instanceId"] != id {
		t.Errorf("outputs %v, want instance %s", data, id)
	}
	if n := h.mutatingCalls() - setup; n != 0 {
		t.Errorf("Observe made %d changing EC2 calls: %v", n, h.sim.CallCounts())
	}
}

// A tenant who may create Secrets can make a typed one (here a ServiceAccount token
// Secret) with the EC2Instance as its controller: the outputs never fill it in, and
// the object says why.
func TestOutputsNeverWriteATypedSecretPointedAtTheObject(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: asOperator(t, "ec2-operator-system")})
	h.grant("ec2-operator-system", grants.OutputsWriterRole)
	obj := h.instance("typed")
	h.create(obj)
	obj = h.waitReady("typed")
	isController := true
	token := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "typed-outputs",
			Annotations: map[string]string{corev1.ServiceAccountNameKey: "builder"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: computev1alpha1.GroupVersion.String(), Kind: "EC2Instance",
				Name: obj.Name, UID: obj.UID, Controller: &isController}}},
		Type: corev1.SecretTypeServiceAccountToken,
	}
	if err := h.k8s.Create(context.Background(), token); err != nil {
		t.Fatal(err)
	}
	h.update("typed", func(o *computev1alpha1.EC2Instance) {
		o.Spec.OutputsTo = &computev1alpha1.OutputsTarget{Kind: computev1alpha1.OutputsSecret, Name: "typed-outputs"}
	})
	h.waitCondition("typed", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonOutputsTargetRefused)
	h.waitEvent("typed", computev1alpha1.ReasonOutputsTargetRefused)
	if _, data, _ := h.outputsOf(computev1alpha1.OutputsSecret, "typed-outputs"); len(data) != 0 {
		t.Errorf("the typed Secret was written: %v", data)
	}
}
