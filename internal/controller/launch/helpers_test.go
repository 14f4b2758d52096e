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

package launch

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/memory"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass/passtest"
)

const testCluster = "cluster-a"

// testKernel is the rest of the pass as a launch of an object without an AWSAccount
// meets it: every check passes, the user data is the spec's, and an instance in the
// way is reported as the reconciler reports it.
type testKernel struct{}

func (testKernel) CheckLaunch(context.Context, *pass.Scope, string) error { return nil }

func (testKernel) CheckClaimedInstance(_ context.Context, _ *pass.Scope, inst *ec2.Instance, _ bool) (*ec2.Instance, pass.Step) {
	return inst, pass.Proceed()
}

func (testKernel) CheckOwnAccount(context.Context, *pass.Scope, time.Duration) error { return nil }

func (testKernel) PinOwnAccount(context.Context, *pass.Scope) error { return nil }

func (testKernel) RegionOf(*computev1alpha1.EC2Instance, *computev1alpha1.AWSAccount) string {
	return "us-east-1"
}

func (testKernel) DesiredUserData(_ context.Context, obj *computev1alpha1.EC2Instance) (string, error) {
	return obj.Spec.UserData, nil
}

func (testKernel) SourceVersion(*computev1alpha1.EC2Instance) string { return "" }

func (testKernel) InstanceExists(s *pass.Scope, msg string) pass.Step {
	s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonInstanceExists, msg)
	s.NotReady(computev1alpha1.ReasonInstanceExists, msg)
	return pass.DoneAfter(10 * time.Minute)
}

// nopMetrics counts nothing.
type nopMetrics struct{}

func (nopMetrics) ReconcileError(string)                  {}
func (nopMetrics) DriftCorrected(string)                  {}
func (nopMetrics) InstanceState(types.UID, string)        {}
func (nopMetrics) ReplacementsPaused(string, string, int) {}

// testPhase is the launch phase with the reconciler's default timing, empty stores and
// no API server (the decisions under test write nothing to Kubernetes).
func testPhase() *Phase {
	return &Phase{Kernel: testKernel{}, Metrics: nopMetrics{}, Now: time.Now, ClusterID: testCluster,
		ResyncPeriod: 10 * time.Minute, PollInterval: 5 * time.Second, VisibilityGracePeriod: 5 * time.Minute,
		VanishHold: DefaultVanishHold, MinBackoff: time.Second, MaxBackoff: 5 * time.Minute, RestorePolicy: RestoreAdopt,
		Launches: &memory.Launches{}, Attributes: &memory.Attributes{}, Events: &memory.EventMarks{}, Vanished: &memory.Vanished{}}
}

// launchScope is the scope of a first pass of an object that names no instance, with
// the fake as its client.
func launchScope(f *fakeEC2) (*Phase, *passtest.EventLog, *pass.Scope) {
	events := &passtest.EventLog{}
	s := passtest.Scope(events)
	s.Obj.UID = "uid-web"
	s.Obj.Spec = computev1alpha1.EC2InstanceSpec{InstanceType: "t3.micro", ImageID: "ami-0123456789abcdef0"}
	s.Before = s.Obj.DeepCopy()
	l := testPhase()
	l.EC2Of = func(*pass.Scope) EC2 { return f }
	return l, events, s
}
