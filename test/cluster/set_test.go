//go:build cluster

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

package cluster

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// checkSetLifecycle runs the EC2InstanceSet sample with the rules OLM really granted
// (the CSV's permissions lifted to a ClusterRole): the set launches its instances in
// one batch, rolls them to a new image (checkSetRoll), kubectl scale shrinks it
// through the scale subresource, and deleting the set lets
// the garbage collector (which envtest lacks) delete its EC2Instances, each of which
// terminates its instance.
func (c *Cluster) checkSetLifecycle(t testing.TB, ns string) {
	t.Helper()
	ctx := context.Background()
	c.Kubectl(t, "-n", ns, "apply", "-f", filepath.Join(c.Root, "config", "samples", "compute_v1alpha1_ec2instanceset.yaml"))
	key := client.ObjectKey{Namespace: ns, Name: "web"}
	settled := func(replicas int32) func() (bool, error) {
		return func() (bool, error) {
			set := &computev1alpha1.EC2InstanceSet{}
			if err := c.Client.Get(ctx, key, set); err != nil {
				return false, err
			}
			st := set.Status
			ok := meta.IsStatusConditionTrue(st.Conditions, "Ready") && st.ObservedGeneration == set.Generation &&
				st.Replicas == replicas && st.AvailableReplicas == replicas
			return ok, fmt.Errorf("status %+v", st)
		}
	}
	c.WaitFor(t, 4*time.Minute, "the sample EC2InstanceSet Ready with 3 instances", settled(3))
	ids := c.setInstanceIDs(t, ns)
	for _, id := range ids {
		// The three were launched together, by one RunInstances call.
		if rec, _ := c.AWS.Sim.Instance(id); !strings.HasPrefix(rec.ClientToken, "ec2set-") {
			t.Errorf("instance %s was launched with client token %q, not by the set's batch", id, rec.ClientToken)
		}
	}
	c.checkSetRoll(t, ns, settled(3))
	ids = append(ids, c.setInstanceIDs(t, ns)...)
	c.Kubectl(t, "-n", ns, "scale", "ec2set/web", "--replicas=1")
	c.WaitFor(t, 3*time.Minute, "the set scaled to 1", settled(1))
	c.Kubectl(t, "-n", ns, "delete", "ec2set", "web", "--wait=false")
	c.WaitFor(t, 3*time.Minute, "the set's instances garbage-collected and terminated", func() (bool, error) {
		left := &computev1alpha1.EC2InstanceList{}
		if err := c.Client.List(ctx, left, client.InNamespace(ns), client.MatchingLabels{computev1alpha1.InstanceSetLabel: "web"}); err != nil {
			return false, err
		}
		if len(left.Items) > 0 {
			return false, fmt.Errorf("%d EC2Instances of the set left", len(left.Items))
		}
		for _, id := range ids {
			if rec, _ := c.AWS.Sim.Instance(id); rec.State != ec2sim.StateTerminated && rec.State != ec2sim.StateShuttingDown {
				return false, fmt.Errorf("instance %s is %s", id, rec.State)
			}
		}
		return true, nil
	})
}

// setInstanceIDs are the instances the sample set's EC2Instances recorded.
func (c *Cluster) setInstanceIDs(t testing.TB, ns string) []string {
	t.Helper()
	members := &computev1alpha1.EC2InstanceList{}
	if err := c.Client.List(context.Background(), members, client.InNamespace(ns),
		client.MatchingLabels{computev1alpha1.InstanceSetLabel: "web"}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range members.Items {
		ids = append(ids, m.Status.InstanceID)
	}
	return ids
}

// rolledImage is the image the sample set is rolled to.
const rolledImage = "ami-0bbbbbbbbbbbbbbb2"

// checkSetRoll changes the sample set's image with kubectl patch and watches the
// rolling replacement (maxSurge 1, maxUnavailable 0, minReadySeconds 30): at every
// look at least three instances are Ready, until the set is settled on three
// instances of the new image.
func (c *Cluster) checkSetRoll(t testing.TB, ns string, settled func() (bool, error)) {
	t.Helper()
	c.AWS.Sim.AddImage(rolledImage, "al2023-next-x86_64", "x86_64")
	c.Kubectl(t, "-n", ns, "patch", "ec2set/web", "--type=merge", "-p",
		`{"spec":{"template":{"spec":{"imageId":"`+rolledImage+`"}}}}`)
	fewest := 3
	c.WaitFor(t, 6*time.Minute, "the set rolled to the new image, never fewer than 3 Ready", func() (bool, error) {
		members := &computev1alpha1.EC2InstanceList{}
		if err := c.Client.List(context.Background(), members, client.InNamespace(ns),
			client.MatchingLabels{computev1alpha1.InstanceSetLabel: "web"}); err != nil {
			return false, err
		}
		ready, rolled := 0, 0
		for _, m := range members.Items {
			if m.DeletionTimestamp == nil && meta.IsStatusConditionTrue(m.Status.Conditions, computev1alpha1.ConditionReady) {
				ready++
				if m.Spec.ImageID == rolledImage {
					rolled++
				}
			}
		}
		fewest = min(fewest, ready)
		if done, err := settled(); !done || rolled != 3 {
			return false, fmt.Errorf("%d Ready, %d of them on the new image; set: %v", ready, rolled, err)
		}
		return true, nil
	})
	if fewest < 3 {
		t.Errorf("only %d instances were Ready at one point of the rolling change, want never fewer than 3", fewest)
	}
}
