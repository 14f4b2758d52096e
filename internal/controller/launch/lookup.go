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
	"errors"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// EnsureInstance finds the instance the object manages, launching or adopting it when
// there is none yet. The pass goes on with the instance in s.inst; any other step
// ends it.
func (l *Phase) EnsureInstance(ctx context.Context, s *pass.Scope) pass.Step {
	st := &s.Obj.Status
	if st.InstanceID == "" {
		if s.Obj.Spec.InstanceID != "" {
			return l.adopt(ctx, s)
		}
		return l.launch(ctx, s)
	}

	if l.Events.TakeStale(st.InstanceID) {
		// An EC2 event said the instance changed: what the client remembers is older.
		l.EC2Of(s).ChangedElsewhere(st.InstanceID)
	}
	inst, err := l.EC2Of(s).GetInstance(ctx, st.InstanceID)
	switch {
	case awserrors.IsNotFound(err):
		return l.instanceMissing(ctx, s)
	case err != nil:
		return pass.Failed("describing instance "+st.InstanceID, err)
	}
	if inst.State == ec2.StateShuttingDown || inst.State == ec2.StateTerminated {
		return l.instanceTerminated(ctx, s, inst)
	}
	if s.Obj.Spec.InstanceID != "" && ec2.OwnerTag(inst.Tags, ec2.TagOwnerUID) == "" {
		// Recorded without this object's claim: observed in Observe, or the claim was
		// removed outside Kubernetes. Full claims it again, with the same checks as a
		// first adoption.
		return l.adoptInstance(ctx, s, inst)
	}
	s.Inst = inst
	return pass.Proceed()
}

// instanceMissing handles an instance ID that DescribeInstances does not know. Right
// after a launch that is EC2's eventual consistency, so the operator waits; later it
// means the instance was terminated long enough ago to be forgotten.
func (l *Phase) instanceMissing(ctx context.Context, s *pass.Scope) pass.Step {
	st := &s.Obj.Status
	if s.Obj.Spec.InstanceID != "" {
		msg := "adopted instance " + st.InstanceID + " no longer exists; delete this EC2Instance"
		s.NotReady(computev1alpha1.ReasonInstanceNotFound, msg)
		return pass.DoneAfter(l.ResyncPeriod)
	}
	if l.WithinVisibilityGrace(s) {
		s.NotReady(computev1alpha1.ReasonPending, "instance "+st.InstanceID+" is not visible in EC2 yet")
		return pass.DoneAfter(l.PollInterval)
	}
	// Before anything is launched in its place: are these still the credentials of
	// the account it was launched in? Asked afresh, not from the routine cache.
	if pass.ActsWithOwnCredentials(s) {
		if err := l.Kernel.CheckOwnAccount(ctx, s, 0); err != nil {
			if errors.Is(err, pass.ErrAccountRefused{}) {
				return pass.AccountRefused()
			}
			return pass.Errored(err)
		}
	}
	if st := l.holdVanished(ctx, s); st.Ends() {
		return st
	}
	return l.instanceTerminated(ctx, s, &ec2.Instance{ID: st.InstanceID, State: ec2.StateTerminated})
}

// WithinVisibilityGrace reports whether the last launch (or adoption) began less than
// VisibilityGracePeriod ago, so that an instance unknown to DescribeInstances may
// simply not be visible yet. It goes by time, not by state: RunInstances' own answer
// already says pending.
func (l *Phase) WithinVisibilityGrace(s *pass.Scope) bool {
	var since time.Time
	if t := s.Obj.Status.LastLaunchAttempt; t != nil {
		since = t.Time
	} else if c := s.Condition(computev1alpha1.ConditionInstanceLaunched); c != nil {
		since = c.LastTransitionTime.Time
	} else {
		return false
	}
	grace := l.VisibilityGracePeriod
	if b, ok := plan.BatchOf(s.Obj); ok && s.Obj.Status.ClientToken == b.Token {
		// Another member may send the batch while this member's record is recent
		// (recentRecord), so a batch may become visible that much later.
		grace += launchRecordReuse
	}
	if l.now().Sub(since) >= grace {
		return false
	}
	// A launch EC2 rejected outright created nothing that could become visible.
	if ready := s.Condition(computev1alpha1.ConditionReady); ready != nil && ready.Status == metav1.ConditionFalse &&
		strings.HasPrefix(ready.Message, LaunchAction+":") && launchRejectionReasons[ready.Reason] {
		return s.Obj.Status.InstanceID != ""
	}
	return true
}

// launchRejectionReasons are the Ready reasons of a RunInstances that EC2 rejected
// outright: nothing was launched that could become visible later.
var launchRejectionReasons = map[string]bool{
	computev1alpha1.ReasonInvalidSpec: true, computev1alpha1.ReasonImageNotFound: true, computev1alpha1.ReasonSubnetNotFound: true,
	computev1alpha1.ReasonSecurityGroupMissing: true, computev1alpha1.ReasonAuthFailure: true, computev1alpha1.ReasonInsufficientCapacity: true,
	computev1alpha1.ReasonSnapshotNotFound: true, computev1alpha1.ReasonIPAddressInUse: true,
}
