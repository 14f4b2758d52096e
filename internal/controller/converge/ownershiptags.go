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
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// MaxInstanceTags is EC2's limit of tags on one resource. A migration of the ownership
// tags adds the new keys before it removes the old ones, so on an instance near the
// limit it moves one key at a time.
const MaxInstanceTags = 50

// wantsSafeOwnership reports whether the instance's ownership tags must take the
// IMDS-safe form: the spec exposes tags in instance metadata, or the instance still
// does. The second keeps the safe form until EC2 has turned the option off, since
// until then EC2 refuses the slash form; the next pass moves the keys back.
func wantsSafeOwnership(spec *computev1alpha1.EC2InstanceSpec, inst *ec2.Instance) bool {
	return plan.DesiredMetadataOptions(spec).InstanceMetadataTags == "enabled" || pass.ExposesTags(inst)
}

// ownershipMoves lists, for an instance whose ownership tags should take the safe form
// (or the slash form), the keys to add with their values and the keys of the other form
// to remove afterwards. A key whose target form is present already only loses the
// other form, whose value may be stale.
func ownershipMoves(tags map[string]string, safe bool) (add map[string]string, remove []string) {
	for _, slash := range []string{ec2.TagOwnerUID, ec2.TagOwnerNamespace, ec2.TagOwnerName, ec2.TagCluster} {
		from, to := ec2.SafeOwnershipKey(slash), slash
		if safe {
			from, to = slash, ec2.SafeOwnershipKey(slash)
		}
		if from == to {
			// The cluster tag has one form, valid in both.
			continue
		}
		v, has := tags[from]
		if !has {
			continue
		}
		if _, done := tags[to]; !done {
			if add == nil {
				add = map[string]string{}
			}
			add[to] = v
		}
		remove = append(remove, from)
	}
	sort.Strings(remove)
	return add, remove
}

// migrateOwnershipTags rewrites the instance's ownership tags in place to the form its
// metadata options need, without a relaunch: the new keys are created before the old
// ones are deleted, so the instance is never without an owner tag. Only the instance's own tags change; EC2's rule does not cover its
// volumes, interface or address.
func (ph *Phase) migrateOwnershipTags(ctx context.Context, s *pass.Scope, inst *ec2.Instance) error {
	safe := wantsSafeOwnership(&s.Obj.Spec, inst)
	add, remove := ownershipMoves(inst.Tags, safe)
	if len(remove) == 0 {
		return nil
	}
	steps := [][]string{remove}
	if len(inst.Tags)+len(add) > MaxInstanceTags {
		// No room for both forms of every key at once (the API keeps two tags free
		// for this): the UID and cluster keys move together, then the others, so that
		// the instance always carries a whole pair in one form, which the IAM policy's
		// conditions need.
		steps = [][]string{nil, nil}
		for _, k := range remove {
			i := 1
			if k == ec2.TagOwnerUID || k == ec2.TagOwnerUIDSafe || k == ec2.TagCluster || k == ec2.TagClusterSafe {
				i = 0
			}
			steps[i] = append(steps[i], k)
		}
		steps = slices.DeleteFunc(steps, func(keys []string) bool { return len(keys) == 0 })
	}
	for _, keys := range steps {
		set := map[string]string{}
		for _, k := range keys {
			if v, ok := add[pass.Counterpart(k)]; ok {
				set[pass.Counterpart(k)] = v
			}
		}
		if err := ph.EC2Of(s).CreateTags(ctx, []string{inst.ID}, set); err != nil {
			return fmt.Errorf("migrating the ownership tags of instance %s: %w", inst.ID, err)
		}
		for k, v := range set {
			inst.Tags[k] = v
		}
		if err := ph.EC2Of(s).DeleteTags(ctx, []string{inst.ID}, keys); err != nil {
			return fmt.Errorf("migrating the ownership tags of instance %s: %w", inst.ID, err)
		}
		for _, k := range keys {
			delete(inst.Tags, k)
		}
	}
	form := "ec2-operator.dev/ (instance metadata tags are off)"
	if safe {
		form = ec2.IMDSSafePrefix + " (instance metadata cannot carry keys with a slash)"
	}
	s.Event(corev1.EventTypeNormal, "OwnershipTagsMigrated",
		fmt.Sprintf("rewrote the ownership tags of instance %s under %s, in place", inst.ID, form))
	return nil
}

// ownershipOnly returns the ownership tags among tags.
func ownershipOnly(tags map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range tags {
		if ec2.IsOwnershipKey(k) {
			out[k] = v
		}
	}
	return out
}
