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
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/argocdhealth"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// served is an object of kind as the API server serves it; an empty namespace names
// a cluster-scoped one.
func (h *harness) served(kind, namespace, name string) *unstructured.Unstructured {
	h.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(computev1alpha1.GroupVersion.WithKind(kind))
	if err := h.k8s.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, u); err != nil {
		h.t.Fatal(err)
	}
	return u
}

// kstatusOf computes the object's status the way Flux and kubectl wait do
// (sigs.k8s.io/cli-utils kstatus), from the object as the API server serves it.
func (h *harness) kstatusOf(name string) status.Status {
	h.t.Helper()
	res, err := status.Compute(h.served("EC2Instance", h.ns, name))
	if err != nil {
		h.t.Fatal(err)
	}
	return res.Status
}

// wantHealth fails the test unless the Argo CD health check the project ships for
// kind (config/argocd) reads the object, as the API server serves it, as want with
// text (a condition's reason or message) in its message.
func (h *harness) wantHealth(kind, namespace, name, want, text string) {
	h.t.Helper()
	script := argocdhealth.ScriptPath(testenv.ProjectRoot(), computev1alpha1.GroupVersion.Group, kind)
	got, err := argocdhealth.Check(script, h.served(kind, namespace, name).Object)
	if err != nil {
		h.t.Fatal(err)
	}
	if got.Status != want || !strings.Contains(got.Message, text) {
		h.t.Errorf("Argo CD health of %s %s: %+v, want %s with %q in the message", kind, name, got, want, text)
	}
}

// wantArgoHealth is wantHealth for an EC2Instance of the test's namespace.
func (h *harness) wantArgoHealth(name, want, text string) {
	h.t.Helper()
	h.wantHealth("EC2Instance", h.ns, name, want, text)
}

// wantAccountArgoHealth is wantHealth for an AWSAccount.
func (h *harness) wantAccountArgoHealth(name, want, text string) {
	h.t.Helper()
	h.wantHealth("AWSAccount", "", name, want, text)
}

// waitKstatus waits until kstatus computes want for the object.
func (h *harness) waitKstatus(name string, want status.Status) {
	h.t.Helper()
	h.eventually(h.timeout, func() string {
		return unless(h.kstatusOf(name) == want, "kstatus %s, want %s", h.kstatusOf(name), want)
	})
}

// TestKstatusReadsEveryPhaseAsToolsExpect reads the object at each phase of its life
// as kstatus (Flux, kubectl wait) and as the Argo CD health check of config/argocd do.
func TestKstatusReadsEveryPhaseAsToolsExpect(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{sim: ec2sim.Config{PendingDuration: 2 * time.Second}})

	// Created while no operator looks at it: not Current (the CRD defaults
	// status.observedGeneration to 0, behind the generation).
	h.stopManager()
	h.create(h.instance("phases"))
	if got := h.kstatusOf("phases"); got != status.InProgressStatus {
		t.Errorf("a new object before the operator looked at it: %s, want InProgress", got)
	}
	h.wantArgoHealth("phases", argocdhealth.Progressing, "")
	h.startManager()

	// Launching and pending: in progress.
	h.waitCondition("phases", computev1alpha1.ConditionReady, "False", computev1alpha1.ReasonPending)
	if got := h.kstatusOf("phases"); got != status.InProgressStatus {
		t.Errorf("a pending instance: %s, want InProgress", got)
	}
	h.wantArgoHealth("phases", argocdhealth.Progressing, computev1alpha1.ReasonPending)
	// Running and matching the spec: current.
	h.waitReady("phases")
	h.waitKstatus("phases", status.CurrentStatus)
	h.wantArgoHealth("phases", argocdhealth.Healthy, computev1alpha1.ReasonAvailable)

	// A spec change is in progress until it is applied.
	m := h.mark("phases")
	h.update("phases", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateStopped })
	h.waitConditionSince(m, computev1alpha1.ConditionReconciling, "True", "")
	h.waitConditionSince(m, computev1alpha1.ConditionReady, "True", computev1alpha1.ReasonStopped)
	h.waitKstatus("phases", status.CurrentStatus)
	h.wantArgoHealth("phases", argocdhealth.Healthy, computev1alpha1.ReasonStopped)

	// Input EC2 refuses needs the user: failed.
	bad := h.instance("bad-image")
	bad.Spec.ImageID = "ami-00000000000000000"
	h.create(bad)
	h.waitCondition("bad-image", computev1alpha1.ConditionStalled, "True", computev1alpha1.ReasonImageNotFound)
	h.waitKstatus("bad-image", status.FailedStatus)
	h.wantArgoHealth("bad-image", argocdhealth.Degraded, computev1alpha1.ReasonImageNotFound)

	// Throttling passes by itself: in progress, not failed.
	remove := h.sim.InjectFault(ec2sim.Fault{Operation: "RunInstances", Code: "RequestLimitExceeded"})
	h.create(h.instance("throttled"))
	h.waitCondition("throttled", computev1alpha1.ConditionReady, "False", computev1alpha1.ReasonThrottled)
	if got := h.kstatusOf("throttled"); got != status.InProgressStatus {
		t.Errorf("a throttled launch: %s, want InProgress", got)
	}
	h.wantArgoHealth("throttled", argocdhealth.Progressing, computev1alpha1.ReasonThrottled)
	remove()
	h.waitKstatus("throttled", status.CurrentStatus)

	// Being deleted: in progress until the object is gone. A finalizer of the test's
	// holds the object once the operator has let go of it.
	const hold = "test.ec2-operator.dev/hold"
	h.update("phases", func(o *computev1alpha1.EC2Instance) { o.Finalizers = append(o.Finalizers, hold) })
	h.deleteObject("phases")
	h.eventually(h.timeout, func() string {
		return unless(!slices.Contains(h.get("phases").Finalizers, computev1alpha1.Finalizer), "the operator still holds its finalizer")
	})
	h.wantArgoHealth("phases", argocdhealth.Progressing, "Deleting")
	h.update("phases", func(o *computev1alpha1.EC2Instance) {
		o.Finalizers = slices.DeleteFunc(o.Finalizers, func(f string) bool { return f == hold })
	})
	h.waitGone("phases")
}
