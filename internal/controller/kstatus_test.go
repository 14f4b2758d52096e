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
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// kstatusOf computes the object's status the way Argo CD, Flux and kubectl wait do
// (sigs.k8s.io/cli-utils kstatus), from the object as the API server serves it.
func (h *harness) kstatusOf(name string) status.Status {
	h.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(computev1alpha1.GroupVersion.WithKind("EC2Instance"))
	if err := h.k8s.Get(context.Background(), client.ObjectKey{Namespace: h.ns, Name: name}, u); err != nil {
		h.t.Fatal(err)
	}
	res, err := status.Compute(u)
	if err != nil {
		h.t.Fatal(err)
	}
	return res.Status
}

// waitKstatus waits until kstatus computes want for the object.
func (h *harness) waitKstatus(name string, want status.Status) {
	h.t.Helper()
	h.eventually(h.timeout, func() string {
		return unless(h.kstatusOf(name) == want, "kstatus %s, want %s", h.kstatusOf(name), want)
	})
}

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
	h.startManager()

	// Launching and pending: in progress.
	h.waitCondition("phases", computev1alpha1.ConditionReady, "False", computev1alpha1.ReasonPending)
	if got := h.kstatusOf("phases"); got != status.InProgressStatus {
		t.Errorf("a pending instance: %s, want InProgress", got)
	}
	// Running and matching the spec: current.
	h.waitReady("phases")
	h.waitKstatus("phases", status.CurrentStatus)

	// A spec change is in progress until it is applied.
	m := h.mark("phases")
	h.update("phases", func(o *computev1alpha1.EC2Instance) { o.Spec.DesiredState = computev1alpha1.DesiredStateStopped })
	h.waitConditionSince(m, computev1alpha1.ConditionReconciling, "True", "")
	h.waitConditionSince(m, computev1alpha1.ConditionReady, "True", computev1alpha1.ReasonStopped)
	h.waitKstatus("phases", status.CurrentStatus)

	// Input EC2 refuses needs the user: failed.
	bad := h.instance("bad-image")
	bad.Spec.ImageID = "ami-00000000000000000"
	h.create(bad)
	h.waitCondition("bad-image", computev1alpha1.ConditionStalled, "True", computev1alpha1.ReasonImageNotFound)
	h.waitKstatus("bad-image", status.FailedStatus)

	// Throttling passes by itself: in progress, not failed.
	remove := h.sim.InjectFault(ec2sim.Fault{Operation: "RunInstances", Code: "RequestLimitExceeded"})
	h.create(h.instance("throttled"))
	h.waitCondition("throttled", computev1alpha1.ConditionReady, "False", computev1alpha1.ReasonThrottled)
	if got := h.kstatusOf("throttled"); got != status.InProgressStatus {
		t.Errorf("a throttled launch: %s, want InProgress", got)
	}
	remove()
	h.waitKstatus("throttled", status.CurrentStatus)
}
