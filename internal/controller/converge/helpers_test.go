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

package converge

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/memory"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass/passtest"
)

// testKernel is the rest of the pass as converge meets it for an object without
// userDataFrom.
type testKernel struct{}

func (testKernel) DesiredUserData(_ context.Context, obj *computev1alpha1.EC2Instance) (string, error) {
	return obj.Spec.UserData, nil
}

func (testKernel) SourceVersion(*computev1alpha1.EC2Instance) string { return "" }

func (testKernel) InstanceExists(s *pass.Scope, msg string) pass.Step {
	s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonInstanceExists, msg)
	s.NotReady(computev1alpha1.ReasonInstanceExists, msg)
	return pass.DoneAfter(10 * time.Minute)
}

func (testKernel) ReportSpotInterruption(*pass.Scope, string) {}

func (testKernel) ResyncAfter() time.Duration { return 10 * time.Minute }

// nopMetrics counts nothing.
type nopMetrics struct{}

func (nopMetrics) ReconcileError(string)           {}
func (nopMetrics) DriftCorrected(string)           {}
func (nopMetrics) InstanceState(types.UID, string) {}
func (nopMetrics) FirstRunning(time.Duration)      {}

// pureReconciler is converge with the reconciler's default timing, empty stores and
// no API server, and the log its scopes' events go to.
func pureReconciler() (*Phase, *passtest.EventLog) {
	return &Phase{Kernel: testKernel{}, Metrics: nopMetrics{}, Now: time.Now, ClusterID: "cluster-a",
		PollInterval: 5 * time.Second, AttributeResyncPeriod: time.Hour, VisibilityGracePeriod: 5 * time.Minute,
		TypeChangeTimeout: DefaultTypeChangeTimeout, MinBackoff: time.Second, MaxBackoff: 5 * time.Minute,
		Attributes: &memory.Attributes{}, Creating: &memory.CreatingVolumes{}}, &passtest.EventLog{}
}
