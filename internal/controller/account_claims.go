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
