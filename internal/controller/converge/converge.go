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
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/launch"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// ReasonUserDataPending says the spec's user data waits for the instance's next stop;
// ReasonPendingStop says the same of other changes EC2 makes only to a stopped
// instance (the hostname type, the Capacity Reservation), with or without user data.
const (
	ReasonUserDataPending = "UserDataPendingStop"
	ReasonPendingStop     = "ChangesPendingStop"
)

// Aspect is one thing about the instance that converge brings to the spec: it reads
// what EC2 has (or what an earlier aspect read), compares it with the spec, and applies
// the plan that closes the gap, recording in the pass what it changed, what is still
// moving, what failed and what waits for the instance's next stop. Its step ends the
// pass early (an instance in transition, a power change under way) or lets it go on.
// The reconciler lists the aspects, in their order, where it runs converge.
type Aspect struct {
	Name     string
	Converge func(ctx context.Context, s *pass.Scope, p *Pass) pass.Step
}

// Pass is what one converge pass gathers as it goes through the aspects.
type Pass struct {
	inst *ec2.Instance
	// seen are the extra attributes (read, or remembered), fresh when read in this
	// pass; userData is the user data the spec asks for.
	seen     plan.ObservedAttributes
	fresh    bool
	userData string
	// applied are the fields changed in place, moving the aspects still in transition,
	// whileStopped the changes EC2 makes only to a stopped instance.
	applied      []string
	moving       []string
	whileStopped []plan.Drift
	failures     []pass.Failure
	// followUp, when set, is how soon a write EC2's budget held back, that need not
	// keep the instance from being Ready, is tried again (a batch instance's own
	// tags, tagsFollow).
	followUp time.Duration
}

// fail records an aspect EC2 (or a check) refused.
func (p *Pass) fail(aspect string, err error) {
	p.failures = append(p.failures, pass.Failure{Action: "changing " + aspect, Err: err})
}

// Run moves an existing instance (s.Inst) one step toward the spec, aspect by aspect,
// in the order given. Every aspect reads the instance first, so repeating a pass is
// harmless.
func (ph *Phase) Run(ctx context.Context, s *pass.Scope, aspects []Aspect) pass.Step {
	if next := ph.observe(s, s.Inst); next.Ends() {
		return next
	}
	p := &Pass{inst: s.Inst, userData: s.Obj.Spec.UserData}
	for _, a := range aspects {
		if next := a.Converge(ctx, s, p); next.Ends() {
			return next
		}
	}
	return ph.concludeConverge(s, p)
}

// observe records what EC2 says of the instance, and ends the pass when the instance
// is not this object's to change: another object's ownership tag means two objects
// claim it (two adoptions raced), and changing anything would make them fight;
// another cluster's tag (a status restored from that cluster's backup, a cluster ID
// changed by hand) means that cluster's operator manages it.
func (ph *Phase) observe(s *pass.Scope, inst *ec2.Instance) pass.Step {
	ph.recordFirstRunning(s, inst)
	pass.ObserveInstance(s, inst)
	ph.Metrics.InstanceState(s.Obj.UID, inst.State)
	if c := s.Condition(computev1alpha1.ConditionInstanceLaunched); c == nil || c.Status != metav1.ConditionTrue {
		// Set once: a note made when the instance was found (taken over after a
		// restore) stays until the instance is replaced.
		s.SetCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionTrue, "Launched", "instance "+inst.ID+" exists")
	}
	pass.RememberRootVolume(s, inst)
	ph.Kernel.ReportSpotInterruption(s, inst.ID)
	if inst.State == ec2.StateRunning {
		s.Obj.Status.LastRunningInstanceType = inst.InstanceType
		// A stop from here on is not the operator's unless it makes one.
		s.Obj.Status.LastStopRequest = nil
	}
	if owner := ec2.OwnerTag(inst.Tags, ec2.TagOwnerUID); owner != "" && owner != string(s.Obj.UID) {
		msg := fmt.Sprintf("instance %s is managed by EC2Instance %s/%s; not changing it", inst.ID,
			ec2.OwnerTag(inst.Tags, ec2.TagOwnerNamespace), ec2.OwnerTag(inst.Tags, ec2.TagOwnerName))
		if c := s.Condition(computev1alpha1.ConditionReady); c == nil || c.Reason != computev1alpha1.ReasonOwnedByAnother {
			s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonOwnedByAnother, msg)
		}
		s.NotReady(computev1alpha1.ReasonOwnedByAnother, msg)
		return pass.DoneAfter(ph.Kernel.ResyncAfter())
	}
	if pass.ClaimOf(inst.Tags, string(s.Obj.UID), ph.ClusterID) == pass.ClaimOtherCluster {
		return ph.Kernel.InstanceExists(s, pass.OtherClusterMessage(inst, ph.ClusterID, "not changing it"))
	}
	return pass.Proceed()
}

// Transition ends the pass while the instance is pending or stopping: nothing
// else can be changed until it settles, and it is looked at again soon.
func (ph *Phase) Transition(_ context.Context, s *pass.Scope, p *Pass) pass.Step {
	inst := p.inst
	if inst.State != ec2.StatePending && inst.State != ec2.StateStopping {
		return pass.Proceed()
	}
	if s.Obj.Spec.ElasticIP != nil {
		s.SetCondition(computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionFalse, computev1alpha1.ReasonAssociationPending,
			fmt.Sprintf("the Elastic IP waits for instance %s, which is %s", inst.ID, inst.State))
	}
	s.NotReady(pass.ReadyReasonForState(inst.State), fmt.Sprintf("instance %s is %s", inst.ID, inst.State))
	return convergeEnds(p, pass.DoneAfter(ph.PollInterval))
}

// SecurityGroupSelector follows the security group selector on every pass (answers are shared
// between objects for a few seconds), so that a group gaining the selector's tags
// joins within a resync.
func (ph *Phase) SecurityGroupSelector(ctx context.Context, s *pass.Scope, p *Pass) pass.Step {
	if s.Obj.Spec.SecurityGroupSelector == nil {
		return pass.Proceed()
	}
	groups, err := launch.DesiredGroups(ctx, ph.EC2Of(s), s, p.inst.VPCID)
	if err != nil {
		p.fail("securityGroupSelector", err)
		groups = p.inst.SecurityGroupIDs // leave the groups as they are
	}
	s.Obj.Status.SecurityGroupIDs = slices.Sorted(slices.Values(groups))
	return pass.Proceed()
}

// ReadAttributes reads (or recalls) the attributes DescribeInstances does not return.
// As rarely as those, it also asks whether this is the only instance with the tags.
func (ph *Phase) ReadAttributes(ctx context.Context, s *pass.Scope, p *Pass) pass.Step {
	seen, fresh, err := ph.ObserveAttributes(ctx, s, p.inst)
	if err != nil {
		p.fail("attributes", err)
	}
	p.seen, p.fresh = seen, fresh
	if fresh {
		ph.reportExtras(ctx, s, p.inst.ID)
	}
	return pass.Proceed()
}

// UserDataFrom reads the user data userDataFrom names, only when there is something
// to compare it with.
func (ph *Phase) UserDataFrom(ctx context.Context, s *pass.Scope, p *Pass) pass.Step {
	if p.seen.Attrs == nil || s.Obj.Spec.UserDataFrom == nil {
		return pass.Proceed()
	}
	userData, err := ph.Kernel.DesiredUserData(ctx, s.Obj)
	if err != nil {
		p.fail("userDataFrom", err)
	}
	p.userData = userData
	return pass.Proceed()
}

// Settings applies the settings EC2 changes in place, and leaves those it
// changes only on a stopped instance to the power aspect.
func (ph *Phase) Settings(ctx context.Context, s *pass.Scope, p *Pass) pass.Step {
	for _, d := range plan.FindDrift(s.Obj, p.inst, p.seen, p.userData) {
		if d.NeedsStopped {
			p.whileStopped = append(p.whileStopped, d)
			continue
		}
		if err := d.Apply(ctx, ph.EC2Of(s), p.inst.ID); err != nil {
			p.fail(d.Field, err)
			continue
		}
		ph.driftCorrected(s, d)
		p.applied = append(p.applied, d.Field)
	}
	return pass.Proceed()
}

// Volumes is the data volumes aspect (converge_volumes.go).
func (ph *Phase) Volumes(ctx context.Context, s *pass.Scope, p *Pass) pass.Step {
	if busy, err := ph.convergeVolumes(ctx, s, p.inst, p.fresh); err != nil {
		p.fail("volumes", err)
	} else if busy {
		p.moving = append(p.moving, "volumes")
	}
	return pass.Proceed()
}

// ElasticIP is the Elastic IP aspect (converge_elasticip.go).
func (ph *Phase) ElasticIP(ctx context.Context, s *pass.Scope, p *Pass) pass.Step {
	if busy, err := ph.convergeElasticIP(ctx, s, p.inst); err != nil {
		p.fail("elasticIp", err)
	} else if busy {
		p.moving = append(p.moving, "elasticIp")
	}
	return pass.Proceed()
}

// PowerState is the power state aspect (converge_power.go). What was just
// changed, or failed to change, must be read again, whatever the power step does.
func (ph *Phase) PowerState(ctx context.Context, s *pass.Scope, p *Pass) pass.Step {
	if len(p.applied) > 0 || len(p.failures) > 0 {
		ph.Attributes.Forget(s.Obj.UID)
	}
	next := ph.convergePower(ctx, s, p.inst, p.whileStopped)
	if !next.Ends() {
		return next
	}
	if next.Kind == pass.KindFailed {
		// The power step's failures are reported with the others; what it was doing
		// is not "meanwhile", since it failed.
		next.Failures = append(p.failures, next.Failures...)
		return next
	}
	return convergeEnds(p, next)
}

// convergeEnds ends a converge pass with next, reporting the aspects that failed
// before it; what next says the pass is doing stays in view in the report.
func convergeEnds(p *Pass, next pass.Step) pass.Step {
	if len(p.failures) == 0 {
		return next
	}
	return pass.Step{Kind: pass.KindFailed, Failures: p.failures, After: next.After, Meanwhile: true}
}

// concludeConverge ends a pass that went through every aspect: still changing (come
// back soon), failed (back off), or settled (Ready, and back at the resync).
func (ph *Phase) concludeConverge(s *pass.Scope, p *Pass) pass.Step {
	if len(p.applied) > 0 || len(p.moving) > 0 {
		msg := "applied " + strings.Join(p.applied, ", ")
		if len(p.applied) == 0 {
			msg = "changing " + strings.Join(p.moving, ", ")
		}
		s.NotReady(computev1alpha1.ReasonUpdating, msg)
		return convergeEnds(p, pass.DoneAfter(ph.PollInterval))
	}
	if len(p.failures) > 0 {
		return convergeEnds(p, pass.DoneAfter(0))
	}
	ph.settle(s, p.inst, p.whileStopped)
	if p.followUp > 0 {
		return pass.DoneAfter(min(p.followUp, ph.Kernel.ResyncAfter()))
	}
	return pass.DoneAfter(ph.Kernel.ResyncAfter())
}
