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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/clusterid"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// claimOf classifies a resource's tags for the scope's object in this cluster.
func (r *EC2InstanceReconciler) claimOf(s *pass.Scope, tags map[string]string) pass.Claim {
	return pass.ClaimOf(tags, string(s.Obj.UID), r.ClusterID)
}

// resolveClusterID fills ClusterID, once, before the manager starts: from
// --cluster-id when it was given, or the kube-system Namespace's UID.
func (r *EC2InstanceReconciler) resolveClusterID(reader client.Reader) error {
	id, err := clusterid.Resolve(context.Background(), reader, r.ClusterID)
	if err != nil {
		return err
	}
	r.ClusterID = id
	ctrl.Log.WithName("ec2instance").Info("cluster identity for the ownership tags", "tag", ec2.TagCluster, "clusterID", id)
	return nil
}

// instanceExists reports an instance in the way (InstanceExists): Ready is False, an
// Event says it once, and the object is looked at again at the resync period.
func (r *EC2InstanceReconciler) instanceExists(s *pass.Scope, msg string) pass.Step {
	if c := s.Condition(computev1alpha1.ConditionReady); c == nil || c.Reason != computev1alpha1.ReasonInstanceExists || c.Message != msg {
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonInstanceExists, msg)
	}
	s.NotReady(computev1alpha1.ReasonInstanceExists, msg)
	r.Metrics.ReconcileError(computev1alpha1.ReasonInstanceExists)
	return pass.DoneAfter(r.resyncAfter())
}

// tagWithCluster adds the cluster tag to this object's instance when it lacks it
// (launched before the tag existed), and to what was created with it: the volumes
// it tags like itself, its primary network interface and the Elastic IP the operator
// allocated for it. It is its own CreateTags call, carrying only the cluster tag, so
// that the IAM policy can allow exactly this on untagged resources (TagLegacyOwned).
func (r *EC2InstanceReconciler) tagWithCluster(ctx context.Context, s *pass.Scope, inst *ec2.Instance) error {
	if _, tagged := ec2.LookupOwnerTag(inst.Tags, ec2.TagCluster); tagged {
		return nil
	}
	key := ec2.TagCluster
	ids := pass.LaunchVolumes(s, inst)
	if _, safe := inst.Tags[ec2.TagOwnerUIDSafe]; safe || pass.ExposesTags(inst) {
		// The instance takes the key in the form of its other ownership tags (a
		// migration moves them all later); what was created with it keeps the slash
		// form, which EC2's instance-metadata rule does not cover.
		key = ec2.TagClusterSafe
		if err := s.EC2.CreateTags(ctx, []string{inst.ID}, map[string]string{key: r.ClusterID}); err != nil {
			return fmt.Errorf("adding the cluster tag to instance %s: %w", inst.ID, err)
		}
	} else {
		ids = append([]string{inst.ID}, ids...)
	}
	if nic := inst.PrimaryInterface(); nic != nil && nic.ID != "" {
		ids = append(ids, nic.ID)
	}
	if eip := s.Obj.Status.ElasticIP; eip != nil && eip.AllocatedByOperator && eip.AllocationID != "" {
		ids = append(ids, eip.AllocationID)
	}
	if err := s.EC2.CreateTags(ctx, ids, map[string]string{ec2.TagCluster: r.ClusterID}); err != nil {
		return fmt.Errorf("adding the cluster tag to instance %s: %w", inst.ID, err)
	}
	if inst.Tags == nil {
		inst.Tags = map[string]string{}
	}
	inst.Tags[key] = r.ClusterID
	s.Event(corev1.EventTypeNormal, "ClusterTagged", fmt.Sprintf("tagged instance %s, launched before the operator tagged its cluster, "+
		"and its volumes, interface and Elastic IP with %s=%s", inst.ID, ec2.TagCluster, r.ClusterID))
	return nil
}
