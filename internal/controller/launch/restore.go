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
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// RestorePolicy says what a new object does about a live instance tagged for an
// earlier object with the same namespace and name.
type RestorePolicy string

const (
	// RestoreAdopt takes the instance over when it is this cluster's (its cluster tag
	// says so): the earlier object was deleted without its finalizer and this one
	// re-created from a backup or by a GitOps re-sync, so it is the same declaration
	// and must not launch a second instance.
	RestoreAdopt RestorePolicy = "adopt"
	// RestoreRefuse leaves the instance alone and reports it (InstanceExists), also
	// when it is this cluster's: for restores that must be looked at by a human.
	RestoreRefuse RestorePolicy = "refuse"
)

// restoreCheck runs before the first launch of an object. The object has a new UID,
// but a live instance may carry the ownership tags of an earlier object with the same
// namespace and name. It returns the instance to manage (taken over, or this object's
// own found without a launch record) in s.inst, or a step that ends the pass; with
// neither, nothing is in the way and the launch goes ahead. One listing of
// the namespace (shared by the objects created together) answers it. Only an earlier
// object of this cluster (the cluster tag says so) is ever taken over: an instance of
// another cluster, or one without the cluster tag (launched before it existed, by
// whichever cluster), is reported and left alone, under either restore policy.
func (l *Phase) restoreCheck(ctx context.Context, s *pass.Scope) pass.Step {
	owned, err := l.EC2Of(s).OwnedInstances(ctx, s.Obj.Namespace, s.Obj.Name)
	if err != nil {
		return pass.Failed("looking for an instance of an earlier object with this name", err)
	}
	var earlier, foreign, unproven []ec2.Instance
	for _, inst := range owned {
		switch pass.ClaimOf(inst.Tags, string(s.Obj.UID), l.ClusterID) {
		case pass.ClaimOurs:
			// This object's own instance, although status has no launch record (it was
			// lost): manage it.
			pass.RememberLaunchVolumes(s, &inst)
			return l.recordInstance(ctx, s, &inst)
		case pass.ClaimSibling:
			earlier = append(earlier, inst)
		case pass.ClaimOtherCluster:
			foreign = append(foreign, inst)
		case pass.ClaimUnproven:
			unproven = append(unproven, inst)
		}
	}
	if msg := l.restoreRefusal(s, earlier, foreign, unproven); msg != "" {
		return l.Kernel.InstanceExists(s, msg)
	}
	if len(earlier) == 0 {
		return pass.Proceed()
	}
	return l.takeOver(ctx, s, earlier[0].ID)
}

// restoreRefusal says why the instances with this object's namespace and name may not
// be taken over, or "" when nothing stands in the way of taking over the one earlier
// object's instance of this cluster (or of launching, when there is none).
func (l *Phase) restoreRefusal(s *pass.Scope, earlier, foreign, unproven []ec2.Instance) string {
	var parts []string
	for _, i := range foreign {
		parts = append(parts, pass.OtherClusterMessage(&i, l.ClusterID, "it is never taken over, changed or terminated from here"))
	}
	for _, i := range unproven {
		parts = append(parts, fmt.Sprintf("instance %s (object UID %s) is tagged for an EC2Instance %s/%s but carries no %s tag "+
			"(launched before the operator tagged clusters), so it may be another cluster's and is not taken over. "+
			"If it is this cluster's, tag it %s=%s and it is taken over; or adopt it with spec.instanceId after removing its "+
			"ec2-operator.dev/owner-* tags; or terminate it", i.ID, ec2.OwnerTag(i.Tags, ec2.TagOwnerUID), s.Obj.Namespace, s.Obj.Name,
			ec2.TagCluster, ec2.TagCluster, l.ClusterID))
	}
	if len(earlier) > 0 && (l.RestorePolicy == RestoreRefuse || len(earlier) > 1 || len(parts) > 0) {
		var ids []string
		for _, i := range earlier {
			ids = append(ids, fmt.Sprintf("%s (object UID %s)", i.ID, ec2.OwnerTag(i.Tags, ec2.TagOwnerUID)))
		}
		why := "the operator is set not to take such instances over (--restore-policy=refuse)"
		if len(earlier)+len(foreign)+len(unproven) > 1 {
			why = "there is more than one, so which to take over is not clear"
		}
		parts = append(parts, fmt.Sprintf("instance %s is tagged for an earlier EC2Instance %s/%s of this cluster and still runs; %s. "+
			"Adopt one with spec.instanceId after removing its ec2-operator.dev/owner-* tags, or terminate it",
			strings.Join(ids, ", "), s.Obj.Namespace, s.Obj.Name, why))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + ". Nothing is launched while it runs"
}

// takeOver makes an instance of an earlier object with this name this object's: it
// is looked at again first (the listing may be seconds old, and the instance
// terminated since), then its ownership tags are moved to this object's UID.
func (l *Phase) takeOver(ctx context.Context, s *pass.Scope, id string) pass.Step {
	inst, err := l.EC2Of(s).GetInstance(ctx, id)
	if awserrors.IsNotFound(err) {
		return pass.Proceed()
	}
	if err != nil {
		return pass.Failed("looking at instance "+id+" of an earlier object with this name", err)
	}
	if inst.State == ec2.StateShuttingDown || inst.State == ec2.StateTerminated ||
		ec2.OwnerTag(inst.Tags, ec2.TagOwnerNamespace) != s.Obj.Namespace || ec2.OwnerTag(inst.Tags, ec2.TagOwnerName) != s.Obj.Name {
		return pass.Proceed() // gone or no longer that object's: launch
	}
	if pass.ClaimOf(inst.Tags, string(s.Obj.UID), l.ClusterID) != pass.ClaimSibling {
		// Its cluster tag changed since the listing: look again with a fresh one.
		return pass.DoneAfter(l.PollInterval)
	}
	// A new object takes the instance over under today's guardrails, not the terms
	// it was launched under: a re-created namespace must not inherit more than it may
	// ask for.
	inst, st := l.Kernel.CheckClaimedInstance(ctx, s, inst, true)
	if st.Ends() {
		return st
	}
	previous := ec2.OwnerTag(inst.Tags, ec2.TagOwnerUID)
	pass.RememberRootVolume(s, inst)
	ownership := ec2.OwnershipTags(s.Obj.Namespace, s.Obj.Name, string(s.Obj.UID), l.ClusterID)
	if err := pass.WriteOwnership(ctx, l.EC2Of(s), s, inst, ownership); err != nil {
		return pass.Failed("taking over instance "+inst.ID, err)
	}
	msg := fmt.Sprintf("took over instance %s, launched for an earlier EC2Instance %s/%s (UID %s) that was deleted without "+
		"its finalizer; this object was re-created (restored), so it manages that instance instead of launching another",
		inst.ID, s.Obj.Namespace, s.Obj.Name, previous)
	s.Event(corev1.EventTypeNormal, computev1alpha1.ReasonRestored, msg)
	if st := l.recordInstance(ctx, s, inst); st.Ends() {
		return st
	}
	s.SetCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionTrue, computev1alpha1.ReasonRestored, msg)
	return pass.Proceed()
}
