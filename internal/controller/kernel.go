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
	"time"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/converge"
	"github.com/ec2-operator/ec2-operator/internal/controller/deletion"
	"github.com/ec2-operator/ec2-operator/internal/controller/launch"
	"github.com/ec2-operator/ec2-operator/internal/controller/observe"
	"github.com/ec2-operator/ec2-operator/internal/controller/outputs"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// kernel gives the phase packages what they need of the rest of the pass, under the
// names of their own interfaces (converge.Kernel, deletion.Kernel, launch.Kernel, observe.Kernel). Each method is the reconciler's, so
// go-to-definition from here reaches the code; the phases never see the reconciler.
type kernel struct{ r *EC2InstanceReconciler }

var (
	_ converge.Kernel = kernel{}
	_ deletion.Kernel = kernel{}
	_ launch.Kernel   = kernel{}
	_ observe.Kernel  = kernel{}
)

func (k kernel) Release(ctx context.Context, s *pass.Scope) pass.Step { return k.r.release(ctx, s) }

func (k kernel) NothingLaunched(s *pass.Scope) bool { return k.r.launchPhase().NothingLaunched(s) }

func (k kernel) FindOwnInstance(ctx context.Context, s *pass.Scope, token string) (*ec2.Instance, error) {
	return k.r.launchPhase().FindOwnInstance(ctx, s, token)
}

func (k kernel) WithinVisibilityGrace(s *pass.Scope) bool {
	return k.r.launchPhase().WithinVisibilityGrace(s)
}

func (k kernel) TerminateExtras(ctx context.Context, s *pass.Scope, managed string) error {
	return k.r.convergePhase().TerminateExtras(ctx, s, managed)
}

func (k kernel) ReleaseExtras(ctx context.Context, s *pass.Scope, managed string) error {
	return k.r.convergePhase().ReleaseExtras(ctx, s, managed)
}

func (k kernel) DisposeVolume(ctx context.Context, s *pass.Scope, instanceID, volumeID string, del bool) error {
	return k.r.convergePhase().DisposeVolume(ctx, s, instanceID, volumeID, del)
}

func (k kernel) LetGoOfAddress(ctx context.Context, s *pass.Scope, instanceID string, eip computev1alpha1.ElasticIPStatus) error {
	return k.r.convergePhase().LetGoOfAddress(ctx, s, instanceID, eip)
}

func (k kernel) OwnAddresses(ctx context.Context, s *pass.Scope) ([]ec2.Address, error) {
	return k.r.convergePhase().OwnAddresses(ctx, s)
}

func (k kernel) UseAccount(ctx context.Context, s *pass.Scope) pass.Step {
	return k.r.useAccount(ctx, s)
}

func (k kernel) UseClient(ctx context.Context, s *pass.Scope) pass.Step { return k.r.useClient(ctx, s) }

func (k kernel) CheckClaimedInstance(ctx context.Context, s *pass.Scope, inst *ec2.Instance, afresh bool) (*ec2.Instance, pass.Step) {
	return k.r.checkClaimedInstance(ctx, s, inst, afresh)
}

func (k kernel) InstanceExists(s *pass.Scope, msg string) pass.Step {
	return k.r.instanceExists(s, msg)
}

func (k kernel) ObserveAttributes(ctx context.Context, s *pass.Scope, inst *ec2.Instance) (plan.ObservedAttributes, bool, error) {
	return k.r.convergePhase().ObserveAttributes(ctx, s, inst)
}

func (k kernel) ReportSpotInterruption(s *pass.Scope, instanceID string) {
	k.r.reportSpotInterruption(s, instanceID)
}

func (k kernel) ResyncAfter() time.Duration { return k.r.resyncAfter() }

func (k kernel) CheckLaunch(ctx context.Context, s *pass.Scope, token string) error {
	return k.r.checkLaunch(ctx, s, token)
}

func (k kernel) CheckOwnAccount(ctx context.Context, s *pass.Scope, maxAge time.Duration) error {
	return k.r.checkOwnAccount(ctx, s, maxAge)
}

func (k kernel) PinOwnAccount(ctx context.Context, s *pass.Scope) error {
	return k.r.pinOwnAccount(ctx, s)
}

func (k kernel) RegionOf(o *computev1alpha1.EC2Instance, acct *computev1alpha1.AWSAccount) string {
	return k.r.regionOf(o, acct)
}

func (k kernel) DesiredUserData(ctx context.Context, obj *computev1alpha1.EC2Instance) (string, error) {
	return k.r.desiredUserData(ctx, obj)
}

func (k kernel) SourceVersion(obj *computev1alpha1.EC2Instance) string { return k.r.sourceVersion(obj) }

// launchPhase is the launch phase with this reconciler's settings and stores.
func (r *EC2InstanceReconciler) launchPhase() *launch.Phase {
	return &launch.Phase{Kernel: kernel{r}, EC2Of: launch.FromScope, Metrics: r.Metrics, Client: r.Client, Now: r.Now, ClusterID: r.ClusterID,
		ResyncPeriod: r.ResyncPeriod, PollInterval: r.PollInterval, VisibilityGracePeriod: r.VisibilityGracePeriod,
		VanishHold: r.VanishHold, MinBackoff: r.MinBackoff, MaxBackoff: r.MaxBackoff, RestorePolicy: r.RestorePolicy,
		Launches: &r.memory.Launches, Batches: &r.memory.Batches, Attributes: &r.memory.Attributes, Events: &r.memory.Events,
		Vanished: &r.memory.Vanished, Requeue: r.requeue}
}

// deletion is the deletion phase with this reconciler's settings.
func (r *EC2InstanceReconciler) deletion() *deletion.Phase {
	return &deletion.Phase{Kernel: kernel{r}, EC2Of: deletion.FromScope, Launches: &r.memory.Launches, Batches: &r.memory.Batches, CRDReader: r.crdReader,
		ClusterID: r.ClusterID, PollInterval: r.PollInterval}
}

// outputsWriter is the outputs phase with the reconciler's clients: targets are read
// past the cache (APIReader) and written with OutputsClient, each falling back to the
// manager's client where the caller set none (tests).
func (r *EC2InstanceReconciler) outputsWriter() outputs.Writer {
	w := outputs.Writer{Reader: r.APIReader, Client: r.OutputsClient, Scheme: r.Scheme(), Identity: r.Identity, PollInterval: r.PollInterval}
	if w.Reader == nil {
		w.Reader = r.Client
	}
	if w.Client == nil {
		w.Client = r.Client
	}
	return w
}

// observePhase is the Observe pass with this reconciler's settings.
func (r *EC2InstanceReconciler) observePhase() *observe.Phase {
	return &observe.Phase{Kernel: kernel{r}, EC2Of: observe.FromScope, Events: &r.memory.Events, Metrics: r.Metrics,
		ClusterID: r.ClusterID, PollInterval: r.PollInterval}
}

// convergePhase is the converge phase with this reconciler's settings and stores.
func (r *EC2InstanceReconciler) convergePhase() *converge.Phase {
	return &converge.Phase{Kernel: kernel{r}, EC2Of: converge.FromScope, Metrics: r.Metrics, Client: r.Client, Now: r.Now, ClusterID: r.ClusterID,
		PollInterval: r.PollInterval, AttributeResyncPeriod: r.AttributeResyncPeriod, VisibilityGracePeriod: r.VisibilityGracePeriod,
		TypeChangeTimeout: r.TypeChangeTimeout, MinBackoff: r.MinBackoff, MaxBackoff: r.MaxBackoff,
		Attributes: &r.memory.Attributes, Creating: &r.memory.Creating}
}

// converge moves an existing instance one step toward the spec, aspect by aspect, in
// this order. The tags come first (the ownership tags' form bounds the metadata
// options); the security groups the selector picks, the extra attributes and the user
// data are read before the settings compare them; the power state comes last, since it
// applies what only a stopped instance takes. An aspect that EC2 refuses is reported
// and the others are still brought to the spec.
func (r *EC2InstanceReconciler) converge(ctx context.Context, s *pass.Scope) pass.Step {
	ph := r.convergePhase()
	return ph.Run(ctx, s, []converge.Aspect{
		{Name: "tags", Converge: ph.Tags},
		{Name: "transition", Converge: ph.Transition},
		{Name: "securityGroupSelector", Converge: ph.SecurityGroupSelector},
		{Name: "attributes", Converge: ph.ReadAttributes},
		{Name: "userDataFrom", Converge: ph.UserDataFrom},
		{Name: "settings", Converge: ph.Settings},
		{Name: "volumes", Converge: ph.Volumes},
		{Name: "elasticIp", Converge: ph.ElasticIP},
		{Name: "power state", Converge: ph.PowerState},
	})
}
