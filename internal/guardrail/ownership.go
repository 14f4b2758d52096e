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

package guardrail

import (
	"context"
	"fmt"
	"strings"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/credentials"
)

// Owner is the object a pass acts for, as the ownership tags name it, and the cluster
// it is in. A request that changes a resource (tags it, attaches it, associates it) is
// refused when the resource is another object's: ownership, unlike the guardrails,
// holds with or without an account.
type Owner struct {
	Namespace, Name, UID, Cluster string
}

// OwnershipRefused is the Reason of a refusal for a resource another object or
// cluster owns.
const OwnershipRefused = "OwnedByAnother"

// claimBy says why tags keep the owner from acting on a resource as its own, or ""
// when they do not: a resource without ownership tags is nobody's yet, one with only
// the owner's namespace is its namespace's (a batch launch's), and one with
// the owner's namespace and name is its own (or an earlier object's of that name,
// which a restore takes over) unless another cluster tagged it.
func (o Owner) claimBy(tags map[string]string) string {
	if c := tags[ec2.TagCluster]; c != "" && o.Cluster != "" && c != o.Cluster {
		return "another cluster's (" + ec2.TagCluster + "=" + c + ")"
	}
	ns, name := ec2.OwnerTag(tags, ec2.TagOwnerNamespace), ec2.OwnerTag(tags, ec2.TagOwnerName)
	uid := ec2.OwnerTag(tags, ec2.TagOwnerUID)
	if uid == "" && ns == "" {
		return ""
	}
	if ns == o.Namespace && name == o.Name {
		return ""
	}
	if ns == o.Namespace && name == "" && uid == "" {
		// An instance a set's batch launched for its namespace, whose member has not
		// written its own name on it yet (batch.go in the launch phase): objects of
		// one namespace share its tenant's trust, and the member that took it tags it.
		return ""
	}
	return fmt.Sprintf("EC2Instance %s/%s's", ns, name)
}

// ownershipRefusal is the refusal of operation on resource, whose tags say whose it is.
func ownershipRefusal(operation, resource, whose string) error {
	return &Refusal{Operation: operation, Reason: OwnershipRefused,
		Violations: []Violation{{Field: resource, Value: whose}}}
}

// checkAddress lets an Elastic IP be associated only when it is this object's, or
// nobody's and (under guardrails) tagged adoptable by an administrator: an address
// briefly unassociated while another object's instance is replaced must not be taken.
// The namespace's listing of owned addresses (shared, and holding what this client
// allocated) answers for the operator's own; only an address outside it is described.
func (c *Client) checkAddress(ctx context.Context, allocationID string) error {
	owned, err := c.inner.OwnedAddresses(ctx, c.owner.Namespace)
	if err != nil {
		return err
	}
	for _, a := range owned {
		if a.AllocationID == allocationID {
			if whose := c.owner.claimBy(a.Tags); whose != "" {
				return ownershipRefusal("AssociateAddress", "Elastic IP "+allocationID, "is "+whose)
			}
			return nil
		}
	}
	found, err := c.inner.DescribeAddresses(ctx, []string{allocationID})
	if err != nil {
		return err
	}
	a, ok := found[allocationID]
	if !ok {
		return nil // EC2 answers the association itself: InvalidAllocationID.NotFound.
	}
	if whose := c.owner.claimBy(a.Tags); whose != "" {
		return ownershipRefusal("AssociateAddress", "Elastic IP "+allocationID, "is "+whose)
	}
	if c.rules.guarded && a.Tags[credentials.AdoptableTagKey] == "" {
		return &Refusal{Operation: "AssociateAddress", Violations: []Violation{{
			Field: "Elastic IP " + allocationID, Value: "not allocated by the operator and not tagged " + credentials.AdoptableTagKey,
			Rule: "an address the operator did not allocate is taken only when an administrator tagged it adoptable"}}}
	}
	return nil
}

// checkTagged lets tags be written only on resources that are this object's or
// nobody's yet: instances, volumes, Elastic IPs and the network interfaces of its
// instances, described from what the client remembers (their ownership changes only
// through the operator's own tags). A volume attached to an instance the same
// request tags is checked as part of that instance, without describing it: the
// launch volumes an object tags with its instance cost no DescribeVolumes.
func (c *Client) checkTagged(ctx context.Context, operation string, ids []string) error {
	withInstance := map[string]bool{}
	for _, id := range ids {
		if !strings.HasPrefix(id, "i-") {
			continue
		}
		inst, err := c.inner.GetInstance(ctx, id)
		if awserrors.IsNotFound(err) {
			continue // the call itself fails as EC2 answers
		}
		if err != nil {
			return err
		}
		if whose := c.owner.claimBy(inst.Tags); whose != "" {
			return ownershipRefusal(operation, id, "is "+whose)
		}
		for _, v := range inst.VolumeIDs {
			withInstance[v] = true
		}
	}
	for _, id := range ids {
		if strings.HasPrefix(id, "i-") || withInstance[id] {
			continue
		}
		tags, err := c.tagsOf(ctx, id)
		if err != nil {
			return err
		}
		if whose := c.owner.claimBy(tags); whose != "" {
			return ownershipRefusal(operation, id, "is "+whose)
		}
	}
	return nil
}

// tagsOf returns the tags of a resource other than an instance (checkTagged reads
// those), nil when EC2 does not know it (the call itself then fails as EC2 answers).
func (c *Client) tagsOf(ctx context.Context, id string) (map[string]string, error) {
	switch {
	case strings.HasPrefix(id, "vol-"):
		found, err := c.inner.DescribeVolumes(ctx, []string{id})
		if err != nil {
			return nil, err
		}
		return found[id].Tags, nil
	case strings.HasPrefix(id, "eni-"):
		// An interface is tagged as part of its instance: it must be one of an
		// instance this object owns (the namespace's shared listing answers).
		owned, err := c.inner.OwnedInstances(ctx, c.owner.Namespace, c.owner.Name)
		if err != nil {
			return nil, err
		}
		for _, inst := range owned {
			for _, nic := range inst.NetworkInterfaces {
				if nic.ID == id {
					return inst.Tags, nil
				}
			}
		}
		return nil, &Refusal{Operation: "CreateTags", Reason: OwnershipRefused,
			Violations: []Violation{{Field: id, Value: "is not an interface of an instance this object owns"}}}
	case strings.HasPrefix(id, "eipalloc-"):
		found, err := c.inner.DescribeAddresses(ctx, []string{id})
		if err != nil {
			return nil, err
		}
		return found[id].Tags, nil
	}
	return nil, &Refusal{Operation: "CreateTags", Reason: OwnershipRefused,
		Violations: []Violation{{Field: id, Value: "is not a resource the operator tags (instances, volumes, Elastic IPs, network interfaces)"}}}
}
