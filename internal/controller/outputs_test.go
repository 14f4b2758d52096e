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
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/grants"
	"github.com/ec2-operator/ec2-operator/internal/controller/outputs"
)

// samePass bounds how long after status shows a change the outputs may lag. The
// outputs are written before the pass's status, so they never should; the bound is
// well under the shipped poll interval (5 s), so that a later pass cannot explain it.
const samePass = 2 * time.Second

// outputsOf reads the outputs object as the test's admin; ok is false when it does not
// exist.
func (h *harness) outputsOf(kind computev1alpha1.OutputsKind, name string) (obj client.Object, data map[string]string, ok bool) {
	h.t.Helper()
	obj = outputs.NewObject(kind, h.ns, name)
	err := h.k8s.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return nil, nil, false
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return obj, outputs.DataOf(obj), true
}

// waitOutputs waits until the outputs object holds what the object's status says,
// within d, and returns the object.
func (h *harness) waitOutputs(name string, kind computev1alpha1.OutputsKind, target string, d time.Duration) client.Object {
	h.t.Helper()
	var out client.Object
	h.eventually(d, func() string {
		want := outputs.Data(&h.get(name).Status)
		obj, got, ok := h.outputsOf(kind, target)
		if !ok || !maps.Equal(got, want) {
			return fmt.Sprintf("%s %s holds %v (exists %v), want %v", kind, target, got, ok, want)
		}
		out = obj
		return ""
	})
	return out
}

// waitStatus waits until cond holds for the object's status, and returns the object.
func (h *harness) waitStatus(name, what string, cond func(*computev1alpha1.EC2InstanceStatus) bool) *computev1alpha1.EC2Instance {
	h.t.Helper()
	var obj *computev1alpha1.EC2Instance
	h.eventually(h.timeout, func() string {
		if obj = h.get(name); cond(&obj.Status) {
			return ""
		}
		return fmt.Sprintf("%s: waiting for %s, status %+v", name, what, obj.Status)
	})
	return obj
}

// With the shipped periods, the outputs follow each change of the instance's
// coordinates in the pass that sees it: a stop (the public IP goes), a start (a new
// one), an Elastic IP associated (it becomes the public IP).
func TestOutputsFollowTheInstanceWithinOnePass(t *testing.T) {
	t.Parallel()
	const opNS = "ec2-operator-system"
	h := newHarness(t, harnessOptions{tweak: both(shippedTimings, asOperator(t, opNS))})
	h.grant(opNS, grants.OutputsWriterRole)
	obj := h.instance("coords")
	obj.Spec.OutputsTo = &computev1alpha1.OutputsTarget{Name: "coords-out"}
	h.create(obj)
	got := h.waitReady("coords")
	cm := h.waitOutputs("coords", computev1alpha1.OutputsConfigMap, "coords-out", samePass)
	if !metav1.IsControlledBy(cm, got) || !*metav1.GetControllerOf(cm).BlockOwnerDeletion {
		t.Errorf("owner references %+v, want the EC2Instance %s as controller, blocking its deletion", cm.GetOwnerReferences(), got.UID)
	}
	if cm.GetLabels()["app.kubernetes.io/managed-by"] != "ec2-operator" {
		t.Errorf("labels %v", cm.GetLabels())
	}
	_, data, _ := h.outputsOf(computev1alpha1.OutputsConfigMap, "coords-out")
	firstIP := data["publicIp"]
	if data["instanceId"] != got.Status.InstanceID || data["privateIp"] == "" || firstIP == "" || data["availabilityZone"] == "" {
		t.Fatalf("outputs %v for status %+v", data, got.Status)
	}

	h.update("coords", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateStopped })
	h.waitStatus("coords", "stopped without a public IP", func(st *computev1alpha1.EC2InstanceStatus) bool {
		return st.State == "stopped" && st.PublicIP == ""
	})
	h.waitOutputs("coords", computev1alpha1.OutputsConfigMap, "coords-out", samePass)

	h.update("coords", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateRunning })
	h.waitStatus("coords", "running with a new public IP", func(st *computev1alpha1.EC2InstanceStatus) bool {
		return st.State == "running" && st.PublicIP != "" && st.PublicIP != firstIP
	})
	h.waitOutputs("coords", computev1alpha1.OutputsConfigMap, "coords-out", samePass)

	h.update("coords", func(o *computev1alpha1.EC2Instance) {
		o.Spec.ElasticIP = &computev1alpha1.ElasticIP{Allocate: true}
	})
	got = h.waitStatus("coords", "the Elastic IP associated", func(st *computev1alpha1.EC2InstanceStatus) bool {
		return st.ElasticIP != nil && st.ElasticIP.AssociationID != "" && st.PublicIP == st.ElasticIP.PublicIP
	})
	h.waitOutputs("coords", computev1alpha1.OutputsConfigMap, "coords-out", samePass)
	if _, data, _ = h.outputsOf(computev1alpha1.OutputsConfigMap, "coords-out"); data["elasticIp"] != got.Status.ElasticIP.PublicIP {
		t.Errorf("outputs %v, want elasticIp %s", data, got.Status.ElasticIP.PublicIP)
	}
}

// The harness's one-second resync makes several passes in a few seconds: none of
// them may rewrite outputs that did not change.
func TestOutputsAreNotRewrittenWhenNothingChanged(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("steady")
	obj.Spec.OutputsTo = &computev1alpha1.OutputsTarget{Kind: computev1alpha1.OutputsSecret, Name: "steady-out"}
	h.create(obj)
	h.waitReady("steady")
	secret := h.waitOutputs("steady", computev1alpha1.OutputsSecret, "steady-out", h.timeout).(*corev1.Secret)
	if secret.Type != corev1.SecretTypeOpaque {
		t.Errorf("Secret type %q, want Opaque", secret.Type)
	}
	before, writes := h.sim.Calls("DescribeInstances"), h.outputsWrites.Load()
	if writes == 0 {
		t.Fatal("no write of the Secret was counted; the check below would prove nothing")
	}
	time.Sleep(3500 * time.Millisecond)
	if h.sim.Calls("DescribeInstances") == before {
		t.Fatal("no pass ran while the test waited; the check below would prove nothing")
	}
	if n := h.outputsWrites.Load() - writes; n != 0 {
		t.Errorf("%d writes of Secrets or ConfigMaps across resyncs that changed nothing", n)
	}
	if now, _, _ := h.outputsOf(computev1alpha1.OutputsSecret, "steady-out"); now.GetResourceVersion() != secret.GetResourceVersion() {
		t.Errorf("resourceVersion %s became %s across resyncs that changed nothing", secret.GetResourceVersion(), now.GetResourceVersion())
	}
}

// The outputs wait for the namespace's grant, name the command, and follow it. The
// grant is no event the operator watches: the failure backoff brings the object back
// (the harness's is at most 5 s; shipped, 5 minutes).
func TestOutputsWaitForTheNamespacesGrantAndNameTheCommand(t *testing.T) {
	t.Parallel()
	const opNS = "ec2-operator-system"
	h := newHarness(t, harnessOptions{tweak: asOperator(t, opNS)})
	obj := h.instance("ungranted")
	obj.Spec.OutputsTo = &computev1alpha1.OutputsTarget{Name: "ungranted-out"}
	h.create(obj)

	got := h.waitCondition("ungranted", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonOutputsNotGranted)
	want := "kubectl create rolebinding ec2-operator-outputs-writer --namespace " + h.ns +
		" --clusterrole=ec2-operator-outputs-writer --serviceaccount=" + opNS + ":" + operatorSA
	if msg := findCondition(got, computev1alpha1.ConditionOutputsWritten).Message; !strings.Contains(msg, want) {
		t.Errorf("OutputsWritten says %q; want it to name the command %q", msg, want)
	}
	h.waitEvent("ungranted", computev1alpha1.ReasonOutputsNotGranted)
	// The instance itself is not held back by its outputs.
	h.waitReady("ungranted")

	h.grant(opNS, grants.OutputsWriterRole)
	h.waitCondition("ungranted", computev1alpha1.ConditionOutputsWritten, metav1.ConditionTrue, computev1alpha1.ReasonOutputsWritten)
	h.waitCondition("ungranted", computev1alpha1.ConditionStalled, metav1.ConditionFalse, "")
	h.waitOutputs("ungranted", computev1alpha1.OutputsConfigMap, "ungranted-out", h.timeout)
}
