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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// Tags is the tags aspect. The ownership tags take the form the metadata
// options need before the options change: EC2 refuses to expose tags in instance
// metadata while a key has a slash.
func (ph *Phase) Tags(ctx context.Context, s *pass.Scope, p *Pass) pass.Step {
	if err := ph.tagWithCluster(ctx, s, p.inst); err != nil {
		p.fail("tags", err)
	} else if err := ph.migrateOwnershipTags(ctx, s, p.inst); err != nil {
		p.fail("tags", err)
	} else if err := ph.syncTags(ctx, s, p.inst); err != nil {
		if wait, ok := tagsFollow(s, p.inst, err); ok {
			p.followUp = wait
			// Recorded now, with the Ready this pass writes, so that the tags landing
			// later cost no status write of their own. The keys are the spec's; one
			// not written yet that leaves the spec is deleted harmlessly.
			s.Obj.Status.ManagedTagKeys = sortedKeys(plan.DesiredTags(s.Obj, ph.ClusterID))
		} else {
			p.fail("tags", err)
		}
	}
	return pass.Proceed()
}

// tagsFollow says whether tags EC2's budget held back may follow without keeping the
// instance from being Ready, and when to try again: those of an instance a set's
// batch launched, which its object has not tagged with its own name and UID yet. A
// thousand instances launched in ten calls would otherwise wait for a thousand
// CreateTags calls (ten a second by EC2's documented limits) to be Ready; the
// instance is recorded as this object's already, and found by its launch index.
func tagsFollow(s *pass.Scope, inst *ec2.Instance, err error) (time.Duration, bool) {
	b, ok := plan.BatchOf(s.Obj)
	if !ok || !awserrors.HeldBack(err) || inst.ClientToken != b.Token || ec2.OwnerTag(inst.Tags, ec2.TagOwnerUID) == string(s.Obj.UID) {
		return 0, false
	}
	// The members of a batch come back spread out, a tenth of a second apart by
	// launch index (EC2's documented CreateTags refill is ten a second), rather than
	// all at once when the budget is spent.
	stagger := min(time.Duration(b.Index)*100*time.Millisecond, 15*time.Second)
	return max(awserrors.RetryAfterOf(err), time.Second) + stagger, true
}

// syncTags applies the desired tags to the instance and its volumes, and removes only
// the tags the operator applied before that have left the spec.
func (ph *Phase) syncTags(ctx context.Context, s *pass.Scope, inst *ec2.Instance) error {
	desired := plan.DesiredTags(s.Obj, ph.ClusterID)
	safe := wantsSafeOwnership(&s.Obj.Spec, inst)
	toSet, toDelete := ec2.TagDiff(pass.OwnershipForm(desired, safe), inst.Tags, s.Obj.Status.ManagedTagKeys)
	toDelete = slices.DeleteFunc(toDelete, ec2.IsOwnershipKey) // moved by migrateOwnershipTags only
	resources := append([]string{inst.ID}, pass.LaunchVolumes(s, inst)...)
	if ownSet := ownershipOnly(toSet); safe && len(ownSet) > 0 {
		// The safe form is the instance's alone: its volumes keep the slash form.
		if err := ph.EC2Of(s).CreateTags(ctx, []string{inst.ID}, ownSet); err != nil {
			return err
		}
		for k := range ownSet {
			delete(toSet, k)
		}
	}
	if err := checkTagBudget(inst, toSet, toDelete); err != nil {
		return err
	}
	// One event for the pass, naming what was set and what was removed: two events
	// with the same reason on an unchanged object would be folded into one series by
	// the events recorder, and the second note would never be shown.
	var done []string
	defer func() {
		if len(done) > 0 {
			ph.driftCorrected(s, plan.Drift{Field: "tags", Actual: "differed from the spec", Desired: strings.Join(done, "; ")})
		}
	}()
	if len(toSet) > 0 {
		// A refusal for the tag limit means this pass knew the instance's tags older
		// than EC2 (tags added outside Kubernetes): the next pass reads them afresh
		// (ec2.Tags says so) and refuses without calling (checkTagBudget).
		if err := ph.EC2Of(s).CreateTags(ctx, resources, toSet); err != nil {
			return err
		}
		done = append(done, "set "+strings.Join(sortedKeys(toSet), ","))
	}
	if len(toDelete) > 0 {
		if err := ph.EC2Of(s).DeleteTags(ctx, resources, toDelete); err != nil {
			return err
		}
		done = append(done, "removed "+strings.Join(toDelete, ","))
	}
	s.Obj.Status.ManagedTagKeys = sortedKeys(desired)
	return nil
}

// checkTagBudget refuses, without calling EC2, tags that would take the instance past
// EC2's 50 tags: tags added outside Kubernetes count too, and a CreateTags that cannot
// succeed would be retried for ever. The refusal names the counts; removing tags (in
// the spec or outside) lets the next pass through.
func checkTagBudget(inst *ec2.Instance, toSet map[string]string, toDelete []string) error {
	after := len(inst.Tags)
	for k := range toSet {
		if _, has := inst.Tags[k]; !has {
			after++
		}
	}
	for _, k := range toDelete {
		if _, has := inst.Tags[k]; has {
			after--
		}
	}
	if after <= MaxInstanceTags {
		return nil
	}
	return &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "CreateTags", Code: codeTagBudget,
		Message: fmt.Sprintf("instance %s has %d tags, and setting %s would make %d; EC2 allows %d per resource (tags added outside Kubernetes count too): remove tags from the spec or from the instance",
			inst.ID, len(inst.Tags), strings.Join(sortedKeys(toSet), ","), after, MaxInstanceTags)}
}

// codeTagBudget marks tags refused before CreateTags for EC2's per-resource limit.
const codeTagBudget = "TagLimitExceeded"

// driftCorrected reports one applied correction as an event and a metric.
func (ph *Phase) driftCorrected(s *pass.Scope, d plan.Drift) {
	ph.Metrics.DriftCorrected(d.Field)
	s.Event(corev1.EventTypeNormal, "DriftCorrected", fmt.Sprintf("%s: %s -> %s", d.Field, d.Actual, d.Desired))
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// tagWithCluster adds the cluster tag to this object's instance when it lacks it
// (launched before the tag existed), and to what was created with it: the volumes
// it tags like itself, its primary network interface and the Elastic IP the operator
// allocated for it. It is its own CreateTags call, carrying only the cluster tag, so
// that the IAM policy can allow exactly this on untagged resources (TagLegacyOwned).
func (ph *Phase) tagWithCluster(ctx context.Context, s *pass.Scope, inst *ec2.Instance) error {
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
		if err := ph.EC2Of(s).CreateTags(ctx, []string{inst.ID}, map[string]string{key: ph.ClusterID}); err != nil {
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
	if err := ph.EC2Of(s).CreateTags(ctx, ids, map[string]string{ec2.TagCluster: ph.ClusterID}); err != nil {
		return fmt.Errorf("adding the cluster tag to instance %s: %w", inst.ID, err)
	}
	if inst.Tags == nil {
		inst.Tags = map[string]string{}
	}
	inst.Tags[key] = ph.ClusterID
	s.Event(corev1.EventTypeNormal, "ClusterTagged", fmt.Sprintf("tagged instance %s, launched before the operator tagged its cluster, "+
		"and its volumes, interface and Elastic IP with %s=%s", inst.ID, ec2.TagCluster, ph.ClusterID))
	return nil
}
