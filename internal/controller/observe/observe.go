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

// Package observe is the pass of an EC2Instance with managementPolicy Observe: it
// finds the instance, reports it in status and lists how it differs from the spec,
// and makes no call that changes anything in AWS.
package observe

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/memory"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// Kernel is what the Observe pass needs from the rest of the reconciler: the account
// and client of the pass, the object's release, the lookups of the instance, and the
// reports Full passes make the same way.
type Kernel interface {
	// UseAccount resolves the account the pass acts in; UseClient picks the region's
	// EC2 client.
	UseAccount(ctx context.Context, s *pass.Scope) pass.Step
	UseClient(ctx context.Context, s *pass.Scope) pass.Step
	// Release removes the finalizer and forgets the object; the pass ends there.
	Release(ctx context.Context, s *pass.Scope) pass.Step
	// FindOwnInstance finds an instance launched under token whose answer was lost.
	FindOwnInstance(ctx context.Context, s *pass.Scope, token string) (*ec2.Instance, error)
	// CheckClaimedInstance applies the account's guardrails to an instance the object
	// claims; InstanceExists reports an instance in the way.
	CheckClaimedInstance(ctx context.Context, s *pass.Scope, inst *ec2.Instance, afresh bool) (*ec2.Instance, pass.Step)
	InstanceExists(s *pass.Scope, msg string) pass.Step
	// ObserveAttributes returns the extra attributes, read as rarely as in Full.
	ObserveAttributes(ctx context.Context, s *pass.Scope, inst *ec2.Instance) (plan.ObservedAttributes, bool, error)
	// ReportSpotInterruption sets the SpotInterruption condition from EC2's warning.
	ReportSpotInterruption(s *pass.Scope, instanceID string)
	// ResyncAfter is when a settled object is looked at again.
	ResyncAfter() time.Duration
}

// InstanceStates is told the state of each observed instance (the metrics).
type InstanceStates interface {
	InstanceState(uid types.UID, state string)
}

// Phase is the pass of an object with managementPolicy Observe. It holds no state
// between passes.
type Phase struct {
	Kernel Kernel
	// EC2Of is the EC2 client of a pass (FromScope); tests give the phase a fake.
	EC2Of func(*pass.Scope) EC2
	// Events are what EC2 events said of instances: a stale mark makes the
	// description be read afresh.
	Events  *memory.EventMarks
	Metrics InstanceStates
	// ClusterID is this cluster's identity in the ownership tags.
	ClusterID    string
	PollInterval time.Duration
}

// Run is the pass of an object with managementPolicy Observe. It makes no
// call that changes anything in AWS, whatever the spec or the instance say: it finds
// the instance, fills status from it and reports what differs from the spec as
// Synced=False. The policy is read at the start of every pass, so switching to or
// from Observe takes effect with the next pass and nothing half-done carries over:
// every Full pass reads the instance afresh anyway.
func (o *Phase) Run(ctx context.Context, s *pass.Scope) pass.Step {
	if !s.Obj.DeletionTimestamp.IsZero() {
		return o.releaseObserved(ctx, s)
	}
	if st := o.Kernel.UseAccount(ctx, s); st.Ends() {
		return st
	}
	if st := o.Kernel.UseClient(ctx, s); st.Ends() {
		return st
	}
	inst, st := o.findObserved(ctx, s)
	if st.Ends() {
		return st
	}
	// Observing is a claim too: a namespace sees only instances its account's
	// guardrails would let it ask for (see docs/guardrails.md). The first report goes
	// by a fresh description; later passes by the pass's own, which every pass reads.
	if inst, st = o.Kernel.CheckClaimedInstance(ctx, s, inst, s.Obj.Status.InstanceID == ""); st.Ends() {
		return st
	}
	return o.reportObserved(ctx, s, inst)
}

// releaseObserved lets a deleted Observe object go without calling AWS: Observe
// never changes the instance, and that includes deleting it or its ownership tags.
// An object without the finalizer (one that was never in Full) is gone already.
func (o *Phase) releaseObserved(ctx context.Context, s *pass.Scope) pass.Step {
	if !controllerutil.ContainsFinalizer(s.Obj, computev1alpha1.Finalizer) {
		return pass.DoneAfter(0)
	}
	if id := s.Obj.Status.InstanceID; id != "" {
		s.Event(corev1.EventTypeNormal, "Released",
			"released without calling AWS (managementPolicy Observe): instance "+id+" is left as it is")
	}
	return o.Kernel.Release(ctx, s)
}

// findObserved finds the instance to observe: the one spec.instanceId names, else the
// one recorded in status (an object launched in Full and switched to Observe), else
// one launched for the object whose ID was never recorded (switched in the middle of
// a launch), which is looked for by its client token and ownership tag. It fills
// nothing from an instance that another object or cluster manages.
func (o *Phase) findObserved(ctx context.Context, s *pass.Scope) (*ec2.Instance, pass.Step) {
	st := &s.Obj.Status
	id := s.Obj.Spec.InstanceID
	if id == "" {
		id = st.InstanceID
	}
	if id == "" && st.LastLaunchAttempt != nil {
		found, err := o.Kernel.FindOwnInstance(ctx, s, st.ClientToken)
		if err != nil {
			return nil, pass.Failed("looking for an instance launched earlier", err)
		}
		if found != nil {
			id = found.ID
		}
	}
	if id == "" {
		s.NotReady(computev1alpha1.ReasonNothingToObserve,
			"managementPolicy Observe needs spec.instanceId (or an instance launched earlier in Full): Observe never launches")
		return nil, pass.DoneAfter(0)
	}
	if o.Events.TakeStale(id) {
		o.EC2Of(s).ChangedElsewhere(id)
	}
	inst, err := o.EC2Of(s).GetInstance(ctx, id)
	switch {
	case awserrors.IsNotFound(err):
		s.NotReady(computev1alpha1.ReasonInstanceNotFound, "instance "+id+" does not exist (managementPolicy Observe)")
		return nil, pass.DoneAfter(o.Kernel.ResyncAfter())
	case err != nil:
		return nil, pass.Failed("describing instance "+id, err)
	}
	if inst.State == ec2.StateShuttingDown || inst.State == ec2.StateTerminated {
		st.State = inst.State
		s.NotReady(computev1alpha1.ReasonInstanceNotFound, fmt.Sprintf("instance %s is %s (managementPolicy Observe)", id, inst.State))
		return nil, pass.DoneAfter(o.Kernel.ResyncAfter())
	}
	if owner := ec2.OwnerTag(inst.Tags, ec2.TagOwnerUID); owner != "" && owner != string(s.Obj.UID) {
		// Another object's instance: its status is that object's to show.
		msg := fmt.Sprintf("instance %s is managed by EC2Instance %s/%s; not observing it", id,
			ec2.OwnerTag(inst.Tags, ec2.TagOwnerNamespace), ec2.OwnerTag(inst.Tags, ec2.TagOwnerName))
		s.NotReady(computev1alpha1.ReasonOwnedByAnother, msg)
		return nil, pass.DoneAfter(o.Kernel.ResyncAfter())
	}
	if pass.ClaimOf(inst.Tags, string(s.Obj.UID), o.ClusterID) == pass.ClaimOtherCluster {
		return nil, o.Kernel.InstanceExists(s, pass.OtherClusterMessage(inst, o.ClusterID, "not observing it"))
	}
	return inst, pass.Proceed()
}

// reportObserved fills status from the instance and reports its differences from
// the spec. The extra attributes are read as rarely as in Full (AttributeResyncPeriod),
// and an Elastic IP only when the spec names one: both are Describe calls.
func (o *Phase) reportObserved(ctx context.Context, s *pass.Scope, inst *ec2.Instance) pass.Step {
	pass.ObserveInstance(s, inst)
	o.Metrics.InstanceState(s.Obj.UID, inst.State)
	o.Kernel.ReportSpotInterruption(s, inst.ID)
	s.SetCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionTrue, "Launched", "instance "+inst.ID+" exists")
	seen, _, err := o.Kernel.ObserveAttributes(ctx, s, inst)
	if err != nil {
		return pass.Failed("reading the attributes of instance "+inst.ID, err)
	}
	differences := plan.ObservedDrift(s.Obj, inst, seen)
	eipDiff, err := observeElasticIP(ctx, o.EC2Of(s), s, inst)
	if err != nil {
		return pass.Failed("describing the Elastic IP of instance "+inst.ID, err)
	}
	differences = append(differences, eipDiff...)
	o.reportDrift(s, differences)
	s.SetCondition(computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonObserving,
		fmt.Sprintf("observing instance %s (%s); managementPolicy Observe changes nothing in AWS", inst.ID, inst.State))
	if inst.State == ec2.StatePending || inst.State == ec2.StateStopping {
		return pass.DoneAfter(o.PollInterval)
	}
	return pass.DoneAfter(o.Kernel.ResyncAfter())
}

// reportDrift sets Synced from the differences, and emits an event when they change:
// the same differences found again on every resync are not news.
func (o *Phase) reportDrift(s *pass.Scope, differences []string) {
	if len(differences) == 0 {
		s.SetCondition(computev1alpha1.ConditionSynced, metav1.ConditionTrue, computev1alpha1.ReasonInSync,
			"the instance matches the fields the spec sets (observed, not managed)")
		return
	}
	msg := "not corrected (managementPolicy Observe): " + strings.Join(differences, "; ")
	if c := s.Condition(computev1alpha1.ConditionSynced); c == nil || c.Reason != computev1alpha1.ReasonDriftDetected || c.Message != msg {
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonDriftDetected, msg)
	}
	s.SetCondition(computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonDriftDetected, msg)
}

// observeElasticIP reports the Elastic IP the spec names (or the one recorded while
// in Full) in status, and a difference when it is not associated with the instance.
func observeElasticIP(ctx context.Context, c EC2, s *pass.Scope, inst *ec2.Instance) ([]string, error) {
	want := s.Obj.Spec.ElasticIP
	alloc := ""
	switch {
	case want != nil && want.AllocationID != "":
		alloc = want.AllocationID
	case s.Obj.Status.ElasticIP != nil:
		alloc = s.Obj.Status.ElasticIP.AllocationID
	}
	if alloc == "" {
		if want != nil {
			return []string{"elasticIp: none allocated (Observe allocates nothing)"}, nil
		}
		return nil, nil
	}
	found, err := c.DescribeAddresses(ctx, []string{alloc})
	if err != nil {
		return nil, err
	}
	addr, ok := found[alloc]
	if !ok {
		s.Obj.Status.ElasticIP = nil
		if want == nil {
			return nil, nil
		}
		s.SetCondition(computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionFalse, computev1alpha1.ReasonAddressNotFound, "Elastic IP "+alloc+" does not exist")
		return []string{"elasticIp: " + alloc + " does not exist"}, nil
	}
	eip := &computev1alpha1.ElasticIPStatus{AllocationID: alloc, PublicIP: addr.PublicIP}
	if addr.InstanceID == inst.ID {
		eip.AssociationID = addr.AssociationID
	}
	if s.Obj.Status.ElasticIP != nil {
		eip.AllocatedByOperator = s.Obj.Status.ElasticIP.AllocatedByOperator
	}
	s.Obj.Status.ElasticIP = eip
	if want == nil {
		return nil, nil
	}
	if eip.AssociationID == "" {
		msg := fmt.Sprintf("Elastic IP %s is not associated with instance %s", addr.PublicIP, inst.ID)
		s.SetCondition(computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionFalse, computev1alpha1.ReasonAssociationPending, msg+" (managementPolicy Observe)")
		return []string{"elasticIp: " + alloc + " not associated"}, nil
	}
	s.SetCondition(computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionTrue, computev1alpha1.ReasonAssociated,
		fmt.Sprintf("Elastic IP %s is associated with instance %s", addr.PublicIP, inst.ID))
	return nil, nil
}
