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

// Package launch makes sure an EC2Instance has its instance: it finds the recorded
// one (waiting for EC2's eventual consistency), launches with the launch record
// written first, finds a launch whose answer was lost, reads EC2's idempotency
// answers, adopts, takes over the instance of an earlier object with the same name,
// late-initializes an adopted instance's unset fields, and replaces a terminated
// instance, holding replacements when many vanish at once. It sees the rest of the
// pass only through Kernel.
package launch

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/memory"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// Kernel is what the launch phase needs from the rest of the pass: the account checks
// (which account an instance may be in, what the guardrails allow), the region, the
// user data the spec asks for, and the report of an instance in the way.
type Kernel interface {
	// CheckLaunch applies the account's guardrails to the launch under token.
	CheckLaunch(ctx context.Context, s *pass.Scope, token string) error
	// CheckClaimedInstance applies them to an instance the object is about to take
	// over; afresh describes it again first.
	CheckClaimedInstance(ctx context.Context, s *pass.Scope, inst *ec2.Instance, afresh bool) (*ec2.Instance, pass.Step)
	// CheckOwnAccount refuses to act when the operator's own credentials now reach
	// another account than the one recorded; PinOwnAccount records it.
	CheckOwnAccount(ctx context.Context, s *pass.Scope, maxAge time.Duration) error
	PinOwnAccount(ctx context.Context, s *pass.Scope) error
	// RegionOf is the region the object's instance lives in.
	RegionOf(o *computev1alpha1.EC2Instance, acct *computev1alpha1.AWSAccount) string
	// DesiredUserData is the user data the spec asks for, resolved from
	// userDataFrom; SourceVersion is the version of that source.
	DesiredUserData(ctx context.Context, obj *computev1alpha1.EC2Instance) (string, error)
	SourceVersion(obj *computev1alpha1.EC2Instance) string
	// InstanceExists reports an instance in the way (InstanceExists).
	InstanceExists(s *pass.Scope, msg string) pass.Step
}

// Metrics is told of the launch phase's failures, corrections, states and paused
// replacements.
type Metrics interface {
	ReconcileError(reason string)
	DriftCorrected(field string)
	InstanceState(uid types.UID, state string)
	ReplacementsPaused(account, region string, objects int)
}

// Phase holds the launch phase's settings and the stores it uses. It holds no state
// of its own between passes.
type Phase struct {
	Kernel  Kernel
	Metrics Metrics
	// EC2Of is the EC2 client of a pass (FromScope); tests give the phase a fake.
	EC2Of func(*pass.Scope) EC2
	// Client writes the launch record and ownership, and lists the siblings of a
	// vanished instance.
	Client client.Client
	// Now is the clock.
	Now func() time.Time
	// ClusterID is this cluster's identity in the ownership tags.
	ClusterID string
	// The reconciler's timing (see EC2InstanceReconciler's fields of the same names).
	ResyncPeriod, PollInterval, VisibilityGracePeriod, VanishHold time.Duration
	MinBackoff, MaxBackoff                                        time.Duration
	// RestorePolicy says what a new object does about an earlier object's instance.
	RestorePolicy RestorePolicy
	// The stores of the reconciler's memory the phase uses.
	Launches   *memory.Launches
	Batches    *memory.Batches
	Attributes *memory.Attributes
	Events     *memory.EventMarks
	Vanished   *memory.Vanished
	// Requeue takes the objects to look at at once (the siblings of a vanished
	// instance).
	Requeue chan<- event.GenericEvent
}

func (l *Phase) now() time.Time { return l.Now() }
