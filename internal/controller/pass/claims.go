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

package pass

import (
	"context"
	"fmt"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// Claim says whose a tagged resource is, seen from one object in one cluster.
type Claim int

const (
	// ClaimNone: no ownership tags at all (an instance made outside the operator).
	ClaimNone Claim = iota
	// ClaimOurs: this object's. Its UID is unique across clusters, so a resource with
	// its UID and no cluster tag (launched before the cluster tag existed) is this
	// object's too; it gets the tag on its next pass.
	ClaimOurs
	// ClaimSibling: another object's in this cluster (an earlier object with the same
	// namespace and name, for example, deleted without its finalizer).
	ClaimSibling
	// ClaimUnproven: another object's, without a cluster tag: launched before the tag
	// existed, by this cluster or by another one sharing the account. Nothing tells
	// which, so it is never taken over on its own.
	ClaimUnproven
	// ClaimOtherCluster: tagged for another cluster. Never adopted, changed or
	// terminated, whatever its other tags say.
	ClaimOtherCluster
)

// ClaimOf classifies tags for the object with uid in cluster.
func ClaimOf(tags map[string]string, uid, cluster string) Claim {
	c, tagged := ec2.LookupOwnerTag(tags, ec2.TagCluster)
	switch {
	case tagged && c != cluster:
		return ClaimOtherCluster
	case ec2.OwnerTag(tags, ec2.TagOwnerUID) == "":
		return ClaimNone
	case ec2.OwnerTag(tags, ec2.TagOwnerUID) == uid:
		return ClaimOurs
	case tagged:
		return ClaimSibling
	default:
		return ClaimUnproven
	}
}

// OtherClusterMessage names an instance tagged for another cluster, and what to do.
func OtherClusterMessage(inst *ec2.Instance, cluster, doing string) string {
	return fmt.Sprintf("instance %s carries %s=%s: it belongs to another cluster (this one is %s) that shares the AWS account; %s. "+
		"Use another name or namespace here, or, if that cluster is gone for good, remove its ec2-operator.dev/ tags and adopt "+
		"it with spec.instanceId", inst.ID, ec2.TagCluster, ec2.OwnerTag(inst.Tags, ec2.TagCluster), cluster, doing)
}

// ReleaseResources marks resources the operator lets go of with the instance they
// came from and removes their ownership tags. The mark goes first: the IAM policy
// allows tagging only while the resource still carries this cluster's tag.
func ReleaseResources(ctx context.Context, c ec2.Tags, instanceID string, ids ...string) error {
	if err := c.CreateTags(ctx, ids, map[string]string{ec2.TagReleased: instanceID}); err != nil {
		return err
	}
	return c.DeleteTags(ctx, ids, ec2.OwnershipTagKeys())
}
