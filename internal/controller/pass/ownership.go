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
	"sort"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// ExposesTags reports whether EC2 holds the instance to the instance-metadata tag key
// rule now: its tags are readable through IMDS.
func ExposesTags(inst *ec2.Instance) bool {
	return inst.MetadataOptions.InstanceMetadataTags == "enabled"
}

// OwnershipForm returns the ownership tags in the form the instance needs.
func OwnershipForm(tags map[string]string, safe bool) map[string]string {
	if safe {
		return ec2.IMDSSafeTags(tags)
	}
	return tags
}

// Counterpart returns an ownership key's other form.
func Counterpart(key string) string {
	if safe := ec2.SafeOwnershipKey(key); safe != key {
		return safe
	}
	for _, slash := range []string{ec2.TagOwnerUID, ec2.TagOwnerNamespace, ec2.TagOwnerName, ec2.TagCluster} {
		if ec2.SafeOwnershipKey(slash) == key {
			return slash
		}
	}
	return key
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// WriteOwnership tags the instance and its launch volumes as this object's (an
// adoption, a take-over): the instance in the form EC2 allows it now, the volumes in
// the slash form, and the instance loses the other form, whose values would be stale.
func WriteOwnership(ctx context.Context, c ec2.Tags, s *Scope, inst *ec2.Instance, ownership map[string]string) error {
	volumes := LaunchVolumes(s, inst)
	if !ExposesTags(inst) {
		if err := c.CreateTags(ctx, append([]string{inst.ID}, volumes...), ownership); err != nil {
			return err
		}
	} else {
		if err := c.CreateTags(ctx, []string{inst.ID}, ec2.IMDSSafeTags(ownership)); err != nil {
			return err
		}
		if err := c.CreateTags(ctx, volumes, ownership); err != nil {
			return err
		}
	}
	if inst.Tags == nil {
		inst.Tags = map[string]string{}
	}
	written := OwnershipForm(ownership, ExposesTags(inst))
	var stale []string
	for k, v := range written {
		inst.Tags[k] = v
		if other := Counterpart(k); other != k && hasKey(inst.Tags, other) {
			stale = append(stale, other)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	sort.Strings(stale)
	if err := c.DeleteTags(ctx, []string{inst.ID}, stale); err != nil {
		return err
	}
	for _, k := range stale {
		delete(inst.Tags, k)
	}
	return nil
}
