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
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// settle records an instance that matches the spec: Ready, and Synced unless user
// data waits for a stop or an adopted instance differs in immutable fields.
func (ph *Phase) settle(s *pass.Scope, inst *ec2.Instance, whileStopped []plan.Drift) {
	if s.TypeRefused {
		// The instance runs (or rests) with the type it had; the spec's type is one EC2
		// refused, which Synced says, and Ready repeats until the spec changes.
		if c := s.Condition(computev1alpha1.ConditionSynced); c != nil && c.Status == metav1.ConditionFalse {
			s.NotReady(c.Reason, c.Message)
		} else {
			s.NotReady(computev1alpha1.ReasonUpdateFailed, "EC2 refused instanceType "+s.Obj.Spec.InstanceType)
		}
		return
	}
	immutable := plan.ImmutableDifferences(s.Obj, inst)
	switch {
	case len(immutable) > 0:
		msg := "immutable fields differ from the instance and are not changed: " + strings.Join(immutable, "; ")
		if c := s.Condition(computev1alpha1.ConditionSynced); c == nil || c.Message != msg {
			s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonImmutableFieldDiffer, msg)
		}
		s.SetCondition(computev1alpha1.ConditionSynced, metav1.ConditionFalse, computev1alpha1.ReasonImmutableFieldDiffer, msg)
	case len(whileStopped) > 0:
		var fields []string
		for _, d := range whileStopped {
			fields = append(fields, d.Field)
		}
		reason := ReasonPendingStop
		if len(fields) == 1 && fields[0] == "userData" {
			reason = ReasonUserDataPending
		}
		s.SetCondition(computev1alpha1.ConditionSynced, metav1.ConditionFalse, reason,
			strings.Join(fields, ", ")+" changed; EC2 applies that only to a stopped instance, so it takes effect at the next stop (or set desiredState: stopped)")
	default:
		s.SetCondition(computev1alpha1.ConditionSynced, metav1.ConditionTrue, computev1alpha1.ReasonInSync, "every mutable field matches the spec")
	}
	msg := fmt.Sprintf("instance %s is %s", inst.ID, inst.State)
	reason := computev1alpha1.ReasonAvailable
	if inst.State == ec2.StateStopped {
		reason = computev1alpha1.ReasonStopped
		msg += " as desired"
		if s.Obj.Spec.DesiredState == computev1alpha1.DesiredStateHibernated {
			reason = computev1alpha1.ReasonHibernated
			if !inst.Hibernated() {
				// It was stopped before the spec asked for hibernation: a stopped
				// instance cannot be hibernated, and starting it to do so would lose
				// nothing but cost a boot, so it stays stopped.
				msg = fmt.Sprintf("instance %s is stopped (it was not running when hibernation was asked for)", inst.ID)
			} else {
				msg = fmt.Sprintf("instance %s is hibernated as desired", inst.ID)
			}
		}
	}
	s.SetCondition(computev1alpha1.ConditionReady, metav1.ConditionTrue, reason, msg)
}

// recordFirstRunning observes the time from the object's creation to its first
// instance reaching running.
func (ph *Phase) recordFirstRunning(s *pass.Scope, inst *ec2.Instance) {
	before := s.Before.Status
	if inst.State != ec2.StateRunning || before.State == ec2.StateRunning || before.Recreations > 0 {
		return
	}
	if before.State != "" && before.State != ec2.StatePending {
		return
	}
	ph.Metrics.FirstRunning(ph.now().Sub(s.Obj.CreationTimestamp.Time))
}
