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
	"errors"
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// TestABatchInstanceIsItsNamespacesUntilItsObjectTagsIt launches a set's batch, as
// the launch phase does, with only the namespace's ownership tag: an object of that
// namespace may write its own tags on an instance of it, one of another namespace
// may not, and once tagged the instance is that object's alone. The instance's
// attached volumes are checked with it, without a DescribeVolumes.
func TestABatchInstanceIsItsNamespacesUntilItsObjectTagsIt(t *testing.T) {
	e := newEmulated(t)
	ctx := context.Background()
	member := New(e.client, Rules{Region: "us-west-2"}, Owner{Namespace: "team-a", Name: "web-0", UID: "u-0", Cluster: "c-1"})
	launched, err := member.RunInstances(ctx, ec2.LaunchRequest{ClientToken: "ec2set-t", ImageID: ec2sim.DefaultImageID,
		InstanceType: "t3.micro", Count: 2, Tags: map[string]string{ec2.TagOwnerNamespace: "team-a", ec2.TagCluster: "c-1"}})
	if err != nil || len(launched) != 2 || launched[1].LaunchIndex != 1 {
		t.Fatalf("a batch of 2: %+v, %v", launched, err)
	}
	inst, err := e.client.GetInstance(ctx, launched[0].ID)
	if err != nil || len(inst.VolumeIDs) == 0 {
		t.Fatalf("the batch's first instance: %+v, %v", inst, err)
	}

	stranger := New(e.client, Rules{Region: "us-west-2"}, Owner{Namespace: "team-b", Name: "db", UID: "u-9", Cluster: "c-1"})
	var refusal *Refusal
	if err := stranger.CreateTags(ctx, []string{inst.ID}, ec2.OwnershipTags("team-b", "db", "u-9", "c-1")); !errors.As(err, &refusal) {
		t.Fatalf("another namespace's object tagged a batch instance: %v", err)
	}

	e.sent()
	own := ec2.OwnershipTags("team-a", "web-0", "u-0", "c-1")
	if err := member.CreateTags(ctx, append([]string{inst.ID}, inst.VolumeIDs...), own); err != nil {
		t.Fatalf("the member tagging its instance and volumes: %v", err)
	}
	if n := count(e.sent(), "DescribeVolumes"); n != 0 {
		t.Errorf("%d DescribeVolumes for volumes attached to the instance tagged with them", n)
	}
	sibling := New(e.client, Rules{Region: "us-west-2"}, Owner{Namespace: "team-a", Name: "web-1", UID: "u-1", Cluster: "c-1"})
	if err := sibling.CreateTags(ctx, []string{inst.ID}, map[string]string{"x": "y"}); !errors.As(err, &refusal) {
		t.Errorf("a sibling tagged an instance its member had taken: %v", err)
	}
	if err := sibling.CreateTags(ctx, inst.VolumeIDs, map[string]string{"x": "y"}); !errors.As(err, &refusal) {
		t.Errorf("a sibling tagged the volumes of an instance its member had taken: %v", err)
	}
}
