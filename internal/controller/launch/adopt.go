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
	"fmt"

	corev1 "k8s.io/api/core/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// adopt takes over the instance named by spec.instanceId, unless another cluster or
// another object owns it.
func (l *Phase) adopt(ctx context.Context, s *pass.Scope) pass.Step {
	id := s.Obj.Spec.InstanceID
	inst, err := l.EC2Of(s).GetInstance(ctx, id)
	if err != nil {
		return pass.Failed("adopting instance "+id, err)
	}
	return l.adoptInstance(ctx, s, inst)
}

// adoptInstance claims a described instance with the ownership tags and records it,
// after checking that no other cluster or object claims it. An instance recorded in
// status without this object's claim (observed while managementPolicy was Observe)
// comes here too when the object switches to Full.
func (l *Phase) adoptInstance(ctx context.Context, s *pass.Scope, inst *ec2.Instance) pass.Step {
	id := inst.ID
	if pass.ClaimOf(inst.Tags, string(s.Obj.UID), l.ClusterID) == pass.ClaimOtherCluster {
		return l.Kernel.InstanceExists(s, pass.OtherClusterMessage(inst, l.ClusterID, "refusing to adopt it"))
	}
	if owner := ec2.OwnerTag(inst.Tags, ec2.TagOwnerUID); owner != "" && owner != string(s.Obj.UID) {
		msg := fmt.Sprintf("instance %s is managed by EC2Instance %s/%s; refusing to adopt it", id,
			ec2.OwnerTag(inst.Tags, ec2.TagOwnerNamespace), ec2.OwnerTag(inst.Tags, ec2.TagOwnerName))
		if c := s.Condition(computev1alpha1.ConditionReady); c == nil || c.Reason != computev1alpha1.ReasonOwnedByAnother {
			s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonOwnedByAnother, msg)
		}
		s.NotReady(computev1alpha1.ReasonOwnedByAnother, msg)
		l.Metrics.ReconcileError(computev1alpha1.ReasonOwnedByAnother)
		return pass.DoneAfter(l.ResyncPeriod)
	}
	if inst.State == ec2.StateShuttingDown || inst.State == ec2.StateTerminated {
		msg := fmt.Sprintf("instance %s is %s and cannot be adopted", id, inst.State)
		s.NotReady(computev1alpha1.ReasonInstanceNotFound, msg)
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonInstanceNotFound, msg)
		return pass.DoneAfter(l.ResyncPeriod)
	}
	// Adopting is asking for the instance as it is: it must lie within the account's
	// guardrails, as EC2 describes it now, before it is tagged or changed.
	inst, st := l.Kernel.CheckClaimedInstance(ctx, s, inst, true)
	if st.Ends() {
		return st
	}
	ownership := ec2.OwnershipTags(s.Obj.Namespace, s.Obj.Name, string(s.Obj.UID), l.ClusterID)
	pass.RememberRootVolume(s, inst)
	if err := pass.WriteOwnership(ctx, l.EC2Of(s), s, inst, ownership); err != nil {
		return pass.Failed("tagging adopted instance "+id, err)
	}
	s.Event(corev1.EventTypeNormal, "Adopted", "adopted existing instance "+id)
	return l.recordInstance(ctx, s, inst)
}
