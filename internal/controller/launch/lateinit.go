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
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/ec2-operator/ec2-operator/internal/adoption"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// LateInitialize fills the fields an adopting object leaves unset with the adopted
// instance's values (internal/adoption names them), before anything is compared: an
// unset field of an adopted instance means "as it is", never the operator's launch
// default, so that adopting changes nothing the spec does not ask for. It writes the
// spec only when a field was filled; the filled spec is then converged like any other
// in the same pass, and finds nothing to change. A field the user removes later is
// filled again from the instance.
func (l *Phase) LateInitialize(ctx context.Context, s *pass.Scope) pass.Step {
	if s.Obj.Spec.InstanceID == "" || s.Inst == nil {
		return pass.Proceed()
	}
	filled := s.Obj.Spec.DeepCopy()
	facts := adoption.Facts{Instance: s.Inst}
	if filled.DisableAPITermination == nil {
		// Termination protection is the one late-initialized field DescribeInstances
		// does not report; reading it is one DescribeInstanceAttribute call.
		attrs, err := l.EC2Of(s).GetInstanceAttributes(ctx, s.Inst.ID)
		if err != nil {
			return pass.Failed("reading the attributes of adopted instance "+s.Inst.ID, err)
		}
		facts.Attributes = attrs
	}
	fields := adoption.LateInitialize(filled, facts)
	if len(fields) == 0 {
		return pass.Proceed()
	}
	if err := s.PatchObject(ctx, l.Client, func() { s.Obj.Spec = *filled }); err != nil {
		return pass.Errored(err)
	}
	s.Event(corev1.EventTypeNormal, ReasonLateInitialized,
		"filled in from instance "+s.Inst.ID+", as it is: "+strings.Join(fields, ", "))
	return pass.Proceed()
}

// ReasonLateInitialized is the event that names the fields filled in from an adopted
// instance.
const ReasonLateInitialized = "LateInitialized"
