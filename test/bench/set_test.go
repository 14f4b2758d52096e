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

package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// rolledImage is the image a set's rolling change moves to.
const rolledImage = "ami-0aaaaaaaaaaaaaaa1"

// runSet is run for one EC2InstanceSet of sc.n replicas: create, restart, with
// sc.roll a rolling image change (maxSurge 25%, maxUnavailable 0) that must never
// leave fewer than sc.n instances Ready, and delete. envtest runs no garbage collector, so the delete
// phase deletes the set and then its EC2Instances, as the collector would.
func runSet(t *testing.T, sc scenario) []phase {
	t.Helper()
	b := newBench(t, sc)
	b.sim.AddImage(rolledImage, "al2023-next-x86_64", "x86_64")
	set := benchSet(b.ns, sc)
	create := b.measure("create", func() {
		if err := b.k8s.Create(context.Background(), set); err != nil {
			t.Fatalf("creating the set: %v", err)
		}
	}, func() string { return b.setNotSettled(set.Name, "") })
	create.rssMiB = b.current.peakRSS()
	create.floor = launchFloor(sc.sim.Throttle, sc.n)
	if sc.target > 0 && create.wall > sc.target {
		t.Errorf("%s: %d replicas took %s to be Ready, want at most %s", sc.name, sc.n, create.wall.Round(100*time.Millisecond), sc.target)
	}
	// Each instance gets its object's own tags after the launch; under the
	// documented limits (ten CreateTags a second) a thousand take longer than the
	// launch, and the instances are Ready meanwhile. The phase waits for the last.
	ownTags := b.measure("own tags follow", func() {}, b.untaggedInstances)
	phases := []phase{create, ownTags}
	if sc.steady > 0 {
		steady := b.measure("steady", func() {}, elapsed(sc.steady))
		steady.rssMiB = b.current.peakRSS()
		phases = append(phases, steady)
	}
	phases = append(phases, b.restart())
	if sc.roll {
		phases = append(phases, b.rollSet(set.Name))
	}

	del := b.measure("delete", func() {
		if err := b.k8s.Delete(context.Background(), set); err != nil {
			t.Fatalf("deleting the set: %v", err)
		}
		if err := b.k8s.DeleteAllOf(context.Background(), &computev1alpha1.EC2Instance{}, client.InNamespace(b.ns),
			client.MatchingLabels{computev1alpha1.InstanceSetLabel: set.Name}); err != nil {
			t.Fatalf("deleting the set's EC2Instances: %v", err)
		}
	}, func() string { return remaining(t, b.k8s, b.ns) })
	del.rssMiB = b.current.peakRSS()
	launches := sc.n
	if sc.roll {
		launches = 2 * sc.n
	}
	b.checkNothingLeft(launches)
	return append(phases, del)
}

// rollSet changes the set's image and measures the rolling replacement, which must
// never leave fewer than all replicas Ready.
func (b *bench) rollSet(name string) phase {
	sc := b.sc
	oldHash := b.getSet(name).Status.TemplateHash
	fewest := sc.n
	roll := b.measure("rolling image change", func() {
		b.updateSet(name, func(s *computev1alpha1.EC2InstanceSet) { s.Spec.Template.Spec.ImageID = rolledImage })
	}, func() string {
		fewest = min(fewest, b.readyMembers(name))
		return b.setNotSettled(name, oldHash)
	})
	roll.rssMiB = b.current.peakRSS()
	roll.floor = launchFloor(sc.sim.Throttle, sc.n)
	b.t.Logf("%s: the rolling image change kept at least %d of %d instances Ready", sc.name, fewest, sc.n)
	if fewest < sc.n {
		b.t.Errorf("%s: %d instances Ready at one point of the rolling change, want never fewer than %d", sc.name, fewest, sc.n)
	}
	return roll
}

// untaggedInstances says how many live instances lack their object's UID tag, ""
// when none does.
func (b *bench) untaggedInstances() string {
	n := 0
	for _, i := range b.sim.Instances() {
		if i.State != ec2sim.StateShuttingDown && i.State != ec2sim.StateTerminated && i.Tags[ec2.TagOwnerUID] == "" {
			n++
		}
	}
	if n > 0 {
		return fmt.Sprintf("%d instances without their object's tags", n)
	}
	return ""
}

// benchSet is the set a set scenario creates: sc.n replicas of the instance the other
// scenarios create, replaced a quarter at a time with none unavailable.
func benchSet(ns string, sc scenario) *computev1alpha1.EC2InstanceSet {
	spec := instance(ns, "bench", sc).Spec
	spec.SubnetID = ec2sim.DefaultSubnetIDs[0]
	return &computev1alpha1.EC2InstanceSet{
		ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: ns},
		Spec: computev1alpha1.EC2InstanceSetSpec{
			Replicas: ptr.To(int32(sc.n)),
			Template: computev1alpha1.EC2InstanceTemplate{Spec: spec},
			Strategy: computev1alpha1.EC2InstanceSetStrategy{Type: computev1alpha1.RollingUpdate,
				RollingUpdate: &computev1alpha1.RollingUpdateEC2InstanceSet{
					MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromInt32(0))}},
		},
	}
}

func (b *bench) getSet(name string) *computev1alpha1.EC2InstanceSet {
	set := &computev1alpha1.EC2InstanceSet{}
	if err := b.k8s.Get(context.Background(), client.ObjectKey{Namespace: b.ns, Name: name}, set); err != nil {
		b.t.Fatalf("getting the set: %v", err)
	}
	return set
}

// updateSet applies mutate to the latest version of the set, retrying conflicts with
// the operator's status writes (a bounded number of times).
func (b *bench) updateSet(name string, mutate func(*computev1alpha1.EC2InstanceSet)) {
	for range 20 {
		set := b.getSet(name)
		mutate(set)
		err := b.k8s.Update(context.Background(), set)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			b.t.Fatalf("updating the set: %v", err)
		}
	}
	b.t.Fatal("updating the set: too many conflicts")
}

// setNotSettled says what the set still lacks to be settled on a template other than
// notHash: Ready, with every replica of the current template available.
func (b *bench) setNotSettled(name, notHash string) string {
	set := b.getSet(name)
	st, n := set.Status, b.sc.n
	if !meta.IsStatusConditionTrue(st.Conditions, computev1alpha1.ConditionReady) || st.ObservedGeneration != set.Generation ||
		int(st.Replicas) != n || int(st.AvailableReplicas) != n || int(st.UpdatedReplicas) != n || st.TemplateHash == notHash {
		return fmt.Sprintf("set status: %d instances, %d ready, %d available, %d updated", st.Replicas, st.ReadyReplicas,
			st.AvailableReplicas, st.UpdatedReplicas)
	}
	return ""
}

// readyMembers counts the set's EC2Instances that are Ready and not being deleted.
func (b *bench) readyMembers(name string) int {
	list := &computev1alpha1.EC2InstanceList{}
	if err := b.k8s.List(context.Background(), list, client.InNamespace(b.ns),
		client.MatchingLabels{computev1alpha1.InstanceSetLabel: name}); err != nil {
		b.t.Fatal(err)
	}
	ready := 0
	for _, o := range list.Items {
		if o.DeletionTimestamp == nil && meta.IsStatusConditionTrue(o.Status.Conditions, computev1alpha1.ConditionReady) {
			ready++
		}
	}
	return ready
}
