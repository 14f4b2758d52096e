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
)

// claim says whose a tagged resource is, seen from one object in one cluster.
type claim int

const (
	// claimNone: no ownership tags at all (an instance made outside the operator).
	claimNone claim = iota
	// claimOurs: this object's. Its UID is unique across clusters, so a resource with
	// its UID and no cluster tag (launched before the cluster tag existed) is this
	// object's too; it gets the tag on its next pass.
	claimOurs
	// claimSibling: another object's in this cluster (an earlier object with the same
	// namespace and name, for example, deleted without its finalizer).
	claimSibling
	// claimUnproven: another object's, without a cluster tag: launched before the tag
	// existed, by this cluster or by another one sharing the account. Nothing tells
	// which, so it is never taken over on its own.
	claimUnproven
	// claimOtherCluster: tagged for another cluster. Never adopted, changed or
	// terminated, whatever its other tags say.
	claimOtherCluster
)

// claimOf classifies tags for the object with uid in cluster.
func claimOf(tags map[string]string, uid, cluster string) claim {
	c, tagged := ec2.LookupOwnerTag(tags, ec2.TagCluster)
	switch {
	case tagged && c != cluster:
		return claimOtherCluster
	case ec2.OwnerTag(tags, ec2.TagOwnerUID) == "":
		return claimNone
	case ec2.OwnerTag(tags, ec2.TagOwnerUID) == uid:
		return claimOurs
	case tagged:
		return claimSibling
	default:
		return claimUnproven
	}
}

// claimOf classifies a resource's tags for the scope's object in this cluster.
func (r *EC2InstanceReconciler) claimOf(s *instanceScope, tags map[string]string) claim {
	return claimOf(tags, string(s.obj.UID), r.ClusterID)
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

// otherClusterMessage names an instance tagged for another cluster, and what to do.
func otherClusterMessage(inst *ec2.Instance, cluster, doing string) string {
	return fmt.Sprintf("instance %s carries %s=%s: it belongs to another cluster (this one is %s) that shares the AWS account; %s. "+
		"Use another name or namespace here, or, if that cluster is gone for good, remove its ec2-operator.dev/ tags and adopt "+
		"it with spec.instanceId", inst.ID, ec2.TagCluster, ec2.OwnerTag(inst.Tags, ec2.TagCluster), cluster, doing)
}

// instanceExists reports an instance in the way (InstanceExists): Ready is False, an
// Event says it once, and the object is looked at again at the resync period.
func (r *EC2InstanceReconciler) instanceExists(s *instanceScope, msg string) step {
	if c := s.condition(computev1alpha1.ConditionReady); c == nil || c.Reason != computev1alpha1.ReasonInstanceExists || c.Message != msg {
		r.event(s, corev1.EventTypeWarning, computev1alpha1.ReasonInstanceExists, msg)
	}
	s.notReady(computev1alpha1.ReasonInstanceExists, msg)
	r.Metrics.ReconcileError(computev1alpha1.ReasonInstanceExists)
	return doneAfter(r.resyncAfter())
}

// tagWithCluster adds the cluster tag to this object's instance when it lacks it
// (launched before the tag existed), and to what was created with it: the volumes
// it tags like itself, its primary network interface and the Elastic IP the operator
// allocated for it. It is its own CreateTags call, carrying only the cluster tag, so
// that the IAM policy can allow exactly this on untagged resources (TagLegacyOwned).
func (r *EC2InstanceReconciler) tagWithCluster(ctx context.Context, s *instanceScope, inst *ec2.Instance) error {
	if _, tagged := ec2.LookupOwnerTag(inst.Tags, ec2.TagCluster); tagged {
		return nil
	}
	key := ec2.TagCluster
	ids := launchVolumes(s, inst)
	if _, safe := inst.Tags[ec2.TagOwnerUIDSafe]; safe || exposesTags(inst) {
		// The instance takes the key in the form of its other ownership tags (a
		// migration moves them all later); what was created with it keeps the slash
		// form, which EC2's instance-metadata rule does not cover.
		key = ec2.TagClusterSafe
		if err := s.ec2.CreateTags(ctx, []string{inst.ID}, map[string]string{key: r.ClusterID}); err != nil {
			return fmt.Errorf("adding the cluster tag to instance %s: %w", inst.ID, err)
		}
	} else {
		ids = append([]string{inst.ID}, ids...)
	}
	if nic := inst.PrimaryInterface(); nic != nil && nic.ID != "" {
		ids = append(ids, nic.ID)
	}
	if eip := s.obj.Status.ElasticIP; eip != nil && eip.AllocatedByOperator && eip.AllocationID != "" {
		ids = append(ids, eip.AllocationID)
	}
	if err := s.ec2.CreateTags(ctx, ids, map[string]string{ec2.TagCluster: r.ClusterID}); err != nil {
		return fmt.Errorf("adding the cluster tag to instance %s: %w", inst.ID, err)
	}
	if inst.Tags == nil {
		inst.Tags = map[string]string{}
	}
	inst.Tags[key] = r.ClusterID
	r.event(s, corev1.EventTypeNormal, "ClusterTagged", fmt.Sprintf("tagged instance %s, launched before the operator tagged its cluster, "+
		"and its volumes, interface and Elastic IP with %s=%s", inst.ID, ec2.TagCluster, r.ClusterID))
	return nil
}
