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
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// extraInstances returns the live instances other than the managed one that carry
// this object's ownership tags, in this cluster: left by a crash between two launches
// of an older version, or copies someone made with the tags. The namespace's listing, shared with
// the other objects that ask at about the same time, answers it.
func (ph *Phase) extraInstances(ctx context.Context, s *pass.Scope, managed string) ([]ec2.Instance, error) {
	owned, err := ph.EC2Of(s).OwnedInstances(ctx, s.Obj.Namespace, s.Obj.Name)
	if err != nil {
		return nil, err
	}
	var extras []ec2.Instance
	for _, inst := range owned {
		if inst.ID != managed && pass.ClaimOf(inst.Tags, string(s.Obj.UID), ph.ClusterID) == pass.ClaimOurs {
			extras = append(extras, inst)
		}
	}
	return extras, nil
}

func instanceIDList(insts []ec2.Instance) string {
	ids := make([]string, len(insts))
	for i, inst := range insts {
		ids[i] = inst.ID
	}
	return strings.Join(ids, ", ")
}

// reportExtras sets DuplicateInstances (True, or absent) from a fresh look at the
// namespace's instances. It runs when the instance's attributes are read again (hourly, or after
// a change), which bounds its cost; a failed look changes nothing.
func (ph *Phase) reportExtras(ctx context.Context, s *pass.Scope, managed string) {
	extras, err := ph.extraInstances(ctx, s, managed)
	if err != nil {
		s.Log.V(1).Info("could not look for extra instances", "error", err.Error())
		return
	}
	if len(extras) == 0 {
		// The common case is shown by the condition's absence, which costs no write.
		meta.RemoveStatusCondition(&s.Obj.Status.Conditions, computev1alpha1.ConditionDuplicateInstances)
		return
	}
	msg := fmt.Sprintf("besides %s, instance(s) %s carry this object's ownership tags and run; the operator manages only %s "+
		"and terminates (deletionPolicy Delete) or releases (Retain) all of them when the object is deleted", managed, instanceIDList(extras), managed)
	if c := s.Condition(computev1alpha1.ConditionDuplicateInstances); c == nil || c.Status != metav1.ConditionTrue || c.Message != msg {
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonExtraInstances, msg)
	}
	s.SetCondition(computev1alpha1.ConditionDuplicateInstances, metav1.ConditionTrue, computev1alpha1.ReasonExtraInstances, msg)
}

// TerminateExtras terminates the extra instances of a deleted object (Delete).
func (ph *Phase) TerminateExtras(ctx context.Context, s *pass.Scope, managed string) error {
	extras, err := ph.extraInstances(ctx, s, managed)
	if err != nil || len(extras) == 0 {
		return err
	}
	for _, inst := range extras {
		if _, err := ph.EC2Of(s).TerminateInstance(ctx, inst.ID); err != nil {
			return fmt.Errorf("terminating extra instance %s: %w", inst.ID, err)
		}
	}
	s.Event(corev1.EventTypeNormal, "Terminating",
		fmt.Sprintf("also terminating instance(s) %s, which carried this object's ownership tags", instanceIDList(extras)))
	return nil
}

// ReleaseExtras removes this object's ownership tags from its extra instances
// (Retain).
func (ph *Phase) ReleaseExtras(ctx context.Context, s *pass.Scope, managed string) error {
	extras, err := ph.extraInstances(ctx, s, managed)
	if err != nil || len(extras) == 0 {
		return err
	}
	for _, inst := range extras {
		if err := ph.EC2Of(s).DeleteTags(ctx, []string{inst.ID}, ec2.OwnershipTagKeys()); err != nil {
			return fmt.Errorf("releasing extra instance %s: %w", inst.ID, err)
		}
	}
	s.Event(corev1.EventTypeNormal, "Retained",
		fmt.Sprintf("also left instance(s) %s running without this object's ownership tags", instanceIDList(extras)))
	return nil
}
