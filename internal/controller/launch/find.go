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
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// launchedEarlier continues with an instance this process launched in an earlier pass
// and has not recorded yet. Its ID, and what the rest of the pass sees, are written
// once at the end of the pass.
func (l *Phase) launchedEarlier(ctx context.Context, s *pass.Scope, id string) pass.Step {
	inst, err := l.EC2Of(s).GetInstance(ctx, id)
	switch {
	case awserrors.IsNotFound(err) && l.WithinVisibilityGrace(s):
		return pass.DoneAfter(l.PollInterval)
	case awserrors.IsNotFound(err):
		l.Launches.Forget(s.Obj.UID)
		s.Obj.Status.InstanceID = id
		return l.instanceMissing(ctx, s)
	case err != nil:
		return pass.Failed("describing instance "+id, err)
	}
	l.Launches.Forget(s.Obj.UID)
	s.Obj.Status.InstanceID = inst.ID
	s.Obj.Status.LaunchAttempts = 0
	pass.RememberLaunchVolumes(s, inst)
	pass.ObserveInstance(s, inst)
	s.SetCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionTrue, "Launched", "instance "+inst.ID+" exists")
	if inst.State == ec2.StateShuttingDown || inst.State == ec2.StateTerminated {
		return l.instanceTerminated(ctx, s, inst)
	}
	s.Inst = inst
	return l.writeOwnTags(ctx, s, inst)
}

// FindOwnInstance looks for a live instance launched for this object: first by the
// client token, then by the ownership tag, which also finds instances launched under an
// earlier token. When several exist (which the token should make impossible), it
// manages the oldest and says so, rather than terminating anything on its own.
func (l *Phase) FindOwnInstance(ctx context.Context, s *pass.Scope, token string) (*ec2.Instance, error) {
	var live []ec2.Instance
	if token != "" {
		// An adopting object whose adoption was refused has no token, only its UID.
		candidates, err := l.EC2Of(s).FindInstances(ctx, ec2.InstanceFilter{ClientToken: token})
		if err != nil {
			return nil, err
		}
		live = l.ourLiveInstances(s, inBatchPlace(s.Obj, token, candidates))
	}
	if len(live) == 0 {
		candidates, err := l.EC2Of(s).FindInstances(ctx, ec2.InstanceFilter{Tags: map[string]string{ec2.TagOwnerUID: string(s.Obj.UID)}})
		if err != nil {
			return nil, err
		}
		live = l.ourLiveInstances(s, candidates)
	}
	if len(live) == 0 {
		return nil, nil
	}
	sort.Slice(live, func(i, j int) bool { return live[i].LaunchTime.Before(live[j].LaunchTime) })
	if len(live) > 1 {
		var others []string
		for _, o := range live[1:] {
			others = append(others, o.ID)
		}
		s.Event(corev1.EventTypeWarning, "DuplicateInstances",
			fmt.Sprintf("more than one instance carries this object's ownership tag; managing %s and leaving %v alone", live[0].ID, others))
	}
	return &live[0], nil
}

// inBatchPlace keeps, of the instances launched under a set's batch token, the one at
// the object's launch index: the others are its batch's other members'.
func inBatchPlace(obj *computev1alpha1.EC2Instance, token string, in []ec2.Instance) []ec2.Instance {
	b, ok := plan.BatchOf(obj)
	if !ok || b.Token != token {
		return in
	}
	var out []ec2.Instance
	for _, inst := range in {
		if inst.LaunchIndex == b.Index {
			out = append(out, inst)
		}
	}
	return out
}

// ourLiveInstances keeps the live instances that are this object's in this cluster. An
// instance found by this object's client token or UID but tagged for another cluster
// can only be a copy with forged tags; it is not touched.
func (l *Phase) ourLiveInstances(s *pass.Scope, in []ec2.Instance) []ec2.Instance {
	var out []ec2.Instance
	for _, i := range in {
		if pass.ClaimOf(i.Tags, string(s.Obj.UID), l.ClusterID) == pass.ClaimOtherCluster {
			continue
		}
		if i.State != ec2.StateShuttingDown && i.State != ec2.StateTerminated {
			out = append(out, i)
		}
	}
	return out
}

// recordInstance writes the instance ID to status at once: from here on the instance
// is found by ID, and a crash cannot make the operator launch another. The pass goes
// on with the instance in s.inst.
func (l *Phase) recordInstance(ctx context.Context, s *pass.Scope, inst *ec2.Instance) pass.Step {
	s.Obj.Status.InstanceID = inst.ID
	s.Obj.Status.LaunchAttempts = 0
	pass.ObserveInstance(s, inst)
	s.SetCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionTrue, "Launched", "instance "+inst.ID+" exists")
	if err := s.PatchStatus(ctx, l.Client); err != nil {
		return pass.Errored(err)
	}
	s.Inst = inst
	return pass.Proceed()
}
