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

// Package converge brings an existing instance to its EC2Instance's spec, one aspect
// at a time (converge.go lists them): tags, the security groups a selector picks, the
// extra attributes and the user data, the in-place settings (package plan's table),
// data volumes, the Elastic IP and the power state, and settles the object when
// nothing is left to do. It also holds what deletion needs of what it created: the
// extra instances, data volumes and addresses. It sees the rest of the pass only
// through Kernel.
package converge

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/memory"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// Kernel is what converging needs from the rest of the pass: the user data the spec
// asks for and the version of its source, the report of an instance in the way or
// of a Spot interruption warning, and when a settled object comes back.
type Kernel interface {
	DesiredUserData(ctx context.Context, obj *computev1alpha1.EC2Instance) (string, error)
	SourceVersion(obj *computev1alpha1.EC2Instance) string
	InstanceExists(s *pass.Scope, msg string) pass.Step
	ReportSpotInterruption(s *pass.Scope, instanceID string)
	ResyncAfter() time.Duration
}

// Metrics is told of converge's failures, corrections, states and first runs.
type Metrics interface {
	ReconcileError(reason string)
	DriftCorrected(field string)
	InstanceState(uid types.UID, state string)
	FirstRunning(sinceCreation time.Duration)
}

// Phase holds converge's settings and the stores it uses. It holds no state of its own
// between passes.
type Phase struct {
	Kernel  Kernel
	Metrics Metrics
	// EC2Of is the EC2 client of a pass (FromScope); tests give the phase a fake.
	EC2Of func(*pass.Scope) EC2
	// Client writes what must be recorded before the pass ends (a volume's client
	// token, the start of a type change).
	Client client.Client
	// Now is the clock.
	Now func() time.Time
	// ClusterID is this cluster's identity in the ownership tags.
	ClusterID string
	// The reconciler's timing (see EC2InstanceReconciler's fields of the same names).
	PollInterval, AttributeResyncPeriod, VisibilityGracePeriod, TypeChangeTimeout time.Duration
	MinBackoff, MaxBackoff                                                        time.Duration
	// The stores of the reconciler's memory converge uses.
	Attributes *memory.Attributes
	Creating   *memory.CreatingVolumes
}

func (ph *Phase) now() time.Time { return ph.Now() }
