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
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// forgetAttributes makes the next pass read the object's attributes again.
func (ph *Phase) forgetAttributes(uid types.UID) { ph.Attributes.Forget(uid) }

// ObserveAttributes returns the extra attributes, reading them from EC2 only when the
// cache has no fresh copy; fresh says they were read now.
//
// A manager that starts with a settled fleet (the spec unchanged since the last status
// write) does not read every instance's attributes at once: that would be two or
// three calls per instance in the first minute. Each instance's first read is put off
// to a random point within one AttributeResyncPeriod, which is as long as drift of
// these attributes may go unnoticed anyway; until then they are not compared.
func (ph *Phase) ObserveAttributes(ctx context.Context, s *pass.Scope, inst *ec2.Instance) (plan.ObservedAttributes, bool, error) {
	now := ph.now()
	source := ph.Kernel.SourceVersion(s.Obj)
	if seen, ok := ph.Attributes.Get(s.Obj.UID, s.Obj.Generation, now, ph.AttributeResyncPeriod, source); ok {
		return seen, false, nil
	}
	if !ph.Attributes.Known(s.Obj.UID) && s.Before.Status.ObservedGeneration == s.Obj.Generation {
		readAt := now.Add(-time.Duration(rand.Int64N(int64(ph.AttributeResyncPeriod))))
		ph.Attributes.Put(s.Obj.UID, s.Obj.Generation, readAt, plan.ObservedAttributes{}, source)
		return plan.ObservedAttributes{}, false, nil
	}
	attrs, err := ph.EC2Of(s).GetInstanceAttributes(ctx, inst.ID)
	if err != nil {
		return plan.ObservedAttributes{}, false, err
	}
	seen := plan.Observed(attrs)
	if spec := &s.Obj.Spec; spec.DisableAPIStop != nil || spec.InstanceInitiatedShutdownBehavior != "" {
		if seen.Lifecycle, err = ph.EC2Of(s).GetLifecycleAttributes(ctx, inst.ID); err != nil {
			return plan.ObservedAttributes{}, false, err
		}
	}
	if s.Obj.Spec.CreditSpecification != nil {
		if seen.Credits, err = ph.EC2Of(s).GetCreditSpecification(ctx, inst.ID); err != nil {
			return plan.ObservedAttributes{}, false, err
		}
	}
	if rv := s.Obj.Spec.RootVolume; rv != nil && rv.SizeGiB != nil && inst.RootVolumeID != "" {
		size, err := ph.EC2Of(s).GetVolumeSize(ctx, inst.RootVolumeID)
		if err != nil {
			return plan.ObservedAttributes{}, false, err
		}
		seen.RootSizeGiB = size
	}
	ph.Attributes.Put(s.Obj.UID, s.Obj.Generation, now, seen, source)
	return seen, true, nil
}
