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
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/memory"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// A set's new instances launch in batches: one RunInstances call for up to
// plan.MaxBatch of them, where separate calls would wait for EC2's per-call budget
// (two a second by default). The set writes each instance's place in its batch
// (computev1alpha1.LaunchBatchAnnotation) when it creates it, so the batch is known
// before anything is sent. Every member then writes its own launch record under the
// batch's client token; once all have, whichever member comes first sends the call
// through its own guarded client, and each member takes the instance at its launch
// index, records it and writes its own name and UID on it.
//
// What keeps a batch from leaking or doubling an instance:
//   - the call is sent only when every member exists, is not being deleted and has
//     a recent launch record, so each member's deletion looks for its instance;
//   - a member deleted before the call abandons the batch in this process (under the
//     same lock as the send), and the others launch alone;
//   - after a restart a member whose record may predate the call looks for the batch
//     by client token first, and a repeated call returns the same instances (EC2's
//     idempotency);
//   - a member finds its instance by client token and launch index, never another's.
const (
	// batchPoll is how soon a member looks again while its batch assembles: the
	// members' records are written within a second of each other.
	batchPoll = 500 * time.Millisecond
	// batchAssembly is how long a member waits for missing members (the set creates
	// them one after another) and their launch records before it launches alone.
	batchAssembly = 30 * time.Second
)

// BatchIndex indexes the EC2Instances in the cache by their batch's client token:
// every member of a batch lists the others while the batch assembles, and a list of
// a thousand-instance set on every poll would copy the whole set each time.
const BatchIndex = "launchBatchToken"

// IndexBatches registers BatchIndex with the manager's cache.
func IndexBatches(ctx context.Context, indexer client.FieldIndexer) error {
	return indexer.IndexField(ctx, &computev1alpha1.EC2Instance{}, BatchIndex, func(o client.Object) []string {
		value := o.GetAnnotations()[computev1alpha1.LaunchBatchAnnotation]
		if token, _, ok := strings.Cut(value, "/"); ok && token != "" {
			return []string{token}
		}
		return nil
	})
}

// launchInBatch launches a member of a set's batch. alone says the batch cannot be
// used (abandoned, or EC2 launched fewer instances than asked) and the member is to
// launch by itself.
func (l *Phase) launchInBatch(ctx context.Context, s *pass.Scope, b plan.Batch) (next pass.Step, alone bool) {
	st := &s.Obj.Status
	if id, ok := l.Launches.Get(s.Obj.UID, b.Token); ok && st.ClientToken == b.Token {
		return l.launchedEarlier(ctx, s, id), false
	}
	switch state, launched := l.Batches.State(b.Token); state {
	case memory.BatchAbandoned:
		return pass.Step{}, true
	case memory.BatchLaunched:
		return l.takeFromBatch(ctx, s, b, launched)
	}
	if launchStalled(s) {
		return pass.DoneAfter(0), false
	}
	if l.mayHaveBeenSentEarlier(s, b) {
		launched, err := l.Batches.Look(b.Token, func() (map[int32]string, error) { return l.findBatch(ctx, s, b) })
		if err != nil {
			return pass.Failed("looking for the instances of batch "+b.Token, err), false
		}
		if len(launched) > 0 {
			return l.takeFromBatch(ctx, s, b, launched)
		}
	}
	members, broken, err := l.batchMembers(ctx, s, b)
	if err != nil {
		return pass.Errored(err), false
	}
	if broken != "" || len(members) < int(b.Size) {
		return l.incompleteBatch(ctx, s, b, broken)
	}
	if s.Obj.Status.LastLaunchAttempt == nil {
		// Before it joins the batch, the member looks for an earlier object's instance
		// with its name (a restore), as a launch alone does; one it takes over leaves
		// the batch incomplete, and the others launch alone.
		if next := l.restoreCheck(ctx, s); next.Ends() || s.Inst != nil {
			return next, false
		}
	}
	if next := l.recordBatchLaunch(ctx, s, b); next.Ends() {
		return next, false
	}
	if !allRecorded(members, s.Obj, b.Token, l.now()) {
		return l.incompleteBatch(ctx, s, b, "")
	}
	return l.sendBatch(ctx, s, b, members)
}

// mayHaveBeenSentEarlier reports whether the member has a launch record under the
// batch's token that this process did not write: an earlier process may have sent
// the batch, and its answer is lost.
func (l *Phase) mayHaveBeenSentEarlier(s *pass.Scope, b plan.Batch) bool {
	st := &s.Obj.Status
	return st.ClientToken == b.Token && st.LastLaunchAttempt != nil && !l.Batches.RecordedHere(b.Token, s.Obj.UID)
}

// findBatch finds the instances a batch launched, by its client token, in every
// state: a terminated one still says the batch was sent, and its member replaces it.
func (l *Phase) findBatch(ctx context.Context, s *pass.Scope, b plan.Batch) (map[int32]string, error) {
	found, err := l.EC2Of(s).FindInstances(ctx, ec2.InstanceFilter{ClientToken: b.Token})
	if err != nil {
		return nil, err
	}
	launched := map[int32]string{}
	for _, inst := range found {
		if pass.ClaimOf(inst.Tags, string(s.Obj.UID), l.ClusterID) != pass.ClaimOtherCluster {
			launched[inst.LaunchIndex] = inst.ID
		}
	}
	return launched, nil
}

// batchMembers lists the batch's members from the cache, by launch index: the
// instances of the member's set, controlled by the same set, that carry the same
// batch. broken says why the batch cannot be sent, "" when nothing does.
func (l *Phase) batchMembers(ctx context.Context, s *pass.Scope, b plan.Batch) ([]computev1alpha1.EC2Instance, string, error) {
	owner := metav1.GetControllerOf(s.Obj)
	setName := s.Obj.Labels[computev1alpha1.InstanceSetLabel]
	if owner == nil || owner.Kind != "EC2InstanceSet" || setName == "" {
		return nil, "the instance is not controlled by an EC2InstanceSet", nil
	}
	list := &computev1alpha1.EC2InstanceList{}
	if err := l.Client.List(ctx, list, client.InNamespace(s.Obj.Namespace),
		client.MatchingLabels{computev1alpha1.InstanceSetLabel: setName}, client.MatchingFields{BatchIndex: b.Token}); err != nil {
		return nil, "", err
	}
	byIndex := map[int32]computev1alpha1.EC2Instance{}
	for _, m := range list.Items {
		mb, ok := plan.BatchOf(&m)
		if c := metav1.GetControllerOf(&m); c == nil || c.UID != owner.UID || !ok || mb.Token != b.Token {
			continue
		}
		if mb.Size != b.Size {
			return nil, "instance " + m.Name + " names another size for the batch", nil
		}
		if _, dup := byIndex[mb.Index]; dup {
			return nil, "two instances take launch index " + fmt.Sprint(mb.Index), nil
		}
		if !m.DeletionTimestamp.IsZero() {
			return nil, "instance " + m.Name + " is being deleted", nil
		}
		byIndex[mb.Index] = m
	}
	members := make([]computev1alpha1.EC2Instance, 0, len(byIndex))
	for _, m := range byIndex {
		members = append(members, m)
	}
	sort.Slice(members, func(i, j int) bool { return members[i].Name < members[j].Name })
	return members, "", nil
}

// incompleteBatch waits for missing members, and for their launch records, while
// the set may still be creating them, and otherwise gives the batch up (unless this
// process launched it already, which the next pass takes from memory): the member
// launches alone. broken gives the batch up at once.
func (l *Phase) incompleteBatch(ctx context.Context, s *pass.Scope, b plan.Batch, broken string) (pass.Step, bool) {
	if broken == "" && l.now().Sub(s.Obj.CreationTimestamp.Time) < batchAssembly {
		return pass.DoneAfter(batchPoll), false
	}
	if broken == "" {
		broken = fmt.Sprintf("not all %d instances of the batch exist with a launch record after %s", b.Size, batchAssembly)
	}
	if l.mayHaveBeenSentEarlier(s, b) {
		// An earlier process may have sent the batch, and EC2 may not show it yet:
		// launching alone now could leave this member's batch instance behind.
		if l.WithinVisibilityGrace(s) {
			return pass.DoneAfter(l.PollInterval), false
		}
		launched, err := l.findBatch(ctx, s, b)
		if err != nil {
			return pass.Failed("looking for the instances of batch "+b.Token, err), false
		}
		if len(launched) > 0 && l.Batches.Found(b.Token, launched) {
			return l.takeFromBatch(ctx, s, b, launched)
		}
	}
	if !l.Batches.Abandon(b.Token) {
		return pass.Again(), false
	}
	s.Event(corev1.EventTypeNormal, "LaunchingAlone", "not launching with batch "+b.Token+": "+broken+"; launching this instance by itself")
	return pass.Step{}, true
}

// recordBatchLaunch writes the member's launch record under the batch's token, as a
// launch alone does (prepareLaunch: image, placement, guardrails, account), unless a
// recent one is there.
func (l *Phase) recordBatchLaunch(ctx context.Context, s *pass.Scope, b plan.Batch) pass.Step {
	if recentRecord(s.Obj, b.Token, l.now()) {
		return pass.Proceed()
	}
	next := l.prepareLaunch(ctx, s, b.Token)
	if !next.Ends() {
		l.Batches.Recorded(b.Token, s.Obj.UID)
	}
	return next
}

// recentRecord reports whether an instance has a launch record under token that a
// send may still rely on: its deletion waits for what such a record may have
// launched (WithinVisibilityGrace).
func recentRecord(o *computev1alpha1.EC2Instance, token string, now time.Time) bool {
	st := &o.Status
	return st.ClientToken == token && st.LastLaunchAttempt != nil && now.Sub(st.LastLaunchAttempt.Time) < launchRecordReuse
}

// allRecorded reports whether every member has a recent launch record under token;
// self is the member of this pass, whose record may be newer than the cache's.
func allRecorded(members []computev1alpha1.EC2Instance, self *computev1alpha1.EC2Instance, token string, now time.Time) bool {
	for i := range members {
		m := &members[i]
		if m.UID == self.UID {
			m = self
		}
		if !recentRecord(m, token, now) {
			return false
		}
	}
	return true
}

// sendBatch sends the batch's RunInstances (once in this process, whoever asks) and
// hands each member its instance.
func (l *Phase) sendBatch(ctx context.Context, s *pass.Scope, b plan.Batch, members []computev1alpha1.EC2Instance) (pass.Step, bool) {
	if wait := l.EC2Of(s).LaunchTurn(b.Token, s.Obj.Namespace); wait > 0 {
		return pass.DoneAfter(wait), false
	}
	source := l.Kernel.SourceVersion(s.Obj)
	userData, err := l.Kernel.DesiredUserData(ctx, s.Obj)
	if err != nil {
		return pass.Failed("reading the user data", err), false
	}
	sent := false
	launched, err := l.Batches.Send(b.Token, func() (map[int32]string, error) {
		sent = true
		insts, err := l.EC2Of(s).RunInstances(ctx, plan.BatchLaunchRequest(s.Obj, l.ClusterID, b, userData))
		if err != nil {
			return nil, err
		}
		byIndex := make(map[int32]string, len(insts))
		for _, inst := range insts {
			byIndex[inst.LaunchIndex] = inst.ID
		}
		return byIndex, nil
	})
	switch {
	case errors.Is(err, memory.ErrBatchAbandoned):
		return pass.Step{}, true
	case awserrors.HeldBack(err):
		return pass.Failed(LaunchAction, err), false
	case err != nil:
		return l.launchFailed(ctx, s, err), false
	}
	if sent {
		s.Event(corev1.EventTypeNormal, "LaunchedBatch",
			fmt.Sprintf("launched %d instances for %d members of batch %s in one call", len(launched), b.Size, b.Token))
		l.handOut(members, b.Token, launched, userData, source)
	}
	return l.takeFromBatch(ctx, s, b, launched)
}

// handOut tells every member its instance: the next pass of each takes it from
// memory, and comes now rather than at its next poll. What was set at launch is
// remembered for each, as for a launch alone.
func (l *Phase) handOut(members []computev1alpha1.EC2Instance, token string, launched map[int32]string, userData, source string) {
	for i := range members {
		m := &members[i]
		mb, _ := plan.BatchOf(m)
		id, ok := launched[mb.Index]
		if !ok {
			continue
		}
		l.Launches.Put(m.UID, token, id)
		l.Attributes.Put(m.UID, m.Generation, l.now(), plan.LaunchedAttributes(m, userData), source)
		select {
		case l.Requeue <- event.GenericEvent{Object: m}:
		default:
			// The queue is full: the member comes back at its poll.
		}
	}
}

// takeFromBatch takes the member's instance from the batch's. EC2 may have launched
// fewer than asked: a member without one launches alone.
func (l *Phase) takeFromBatch(ctx context.Context, s *pass.Scope, b plan.Batch, launched map[int32]string) (pass.Step, bool) {
	id, ok := launched[b.Index]
	if !ok {
		s.Event(corev1.EventTypeNormal, "LaunchingAlone",
			fmt.Sprintf("batch %s launched %d of its %d instances, none at launch index %d; launching this instance by itself",
				b.Token, len(launched), b.Size, b.Index))
		return pass.Step{}, true
	}
	l.Launches.Put(s.Obj.UID, b.Token, id)
	return l.launchedEarlier(ctx, s, id), false
}

// writeOwnTags writes the member's name and UID (and its Name tag) on the batch
// instance it took, which the batch launched with only the tags all members share.
// A write held back for EC2's budget is left to the tags aspect of a later pass: the
// instance is recorded as this object's already.
func (l *Phase) writeOwnTags(ctx context.Context, s *pass.Scope, inst *ec2.Instance) pass.Step {
	b, ok := plan.BatchOf(s.Obj)
	if !ok || inst.ClientToken != b.Token || ec2.OwnerTag(inst.Tags, ec2.TagOwnerUID) == string(s.Obj.UID) {
		return pass.Proceed()
	}
	own := ec2.OwnershipTags(s.Obj.Namespace, s.Obj.Name, string(s.Obj.UID), l.ClusterID)
	if name, ok := plan.DesiredTags(s.Obj, l.ClusterID)[ec2.TagName]; ok && inst.Tags[ec2.TagName] != name {
		own[ec2.TagName] = name
	}
	err := pass.WriteOwnership(ctx, l.EC2Of(s), s, inst, own)
	if err != nil && !awserrors.HeldBack(err) {
		return pass.Failed("writing this object's ownership tags on instance "+inst.ID, err)
	}
	return pass.Proceed()
}
