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

package ec2sim

import (
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// instanceIDs flattens a DescribeInstances page into instance ids.
func instanceIDs(out *ec2.DescribeInstancesOutput) []string {
	var ids []string
	for _, r := range out.Reservations {
		for _, in := range r.Instances {
			ids = append(ids, aws.ToString(in.InstanceId))
		}
	}
	return ids
}

func TestDescribeInstancesPagesWithMaxResultsAndNextToken(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 30})
	var launched []string
	for i := 0; i < 12; i++ {
		launched = append(launched, runOne(t, c, basicRun()))
	}
	var seen []string
	pages := 0
	p := ec2.NewDescribeInstancesPaginator(c, &ec2.DescribeInstancesInput{MaxResults: aws.Int32(5)})
	for p.HasMorePages() {
		out, err := p.NextPage(simtest.Ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(instanceIDs(out)); n > 5 {
			t.Fatalf("page of %d instances exceeds MaxResults", n)
		}
		seen = append(seen, instanceIDs(out)...)
		pages++
	}
	if pages != 3 {
		t.Errorf("got %d pages, want 3", pages)
	}
	sort.Strings(seen)
	sort.Strings(launched)
	if len(seen) != len(launched) {
		t.Fatalf("paged through %d instances, want %d", len(seen), len(launched))
	}
	for i := range seen {
		if seen[i] != launched[i] {
			t.Fatalf("paged ids %v, want %v", seen, launched)
		}
	}
	_, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{MaxResults: aws.Int32(4)})
	simtest.WantCode(t, err, "InvalidParameterValue")
}

func TestDescribeInstancesFiltersByTagsStateAndID(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 31})
	tagged := basicRun()
	tagged.TagSpecifications = []types.TagSpecification{{ResourceType: types.ResourceTypeInstance, Tags: []types.Tag{
		{Key: aws.String("ec2-operator/owner"), Value: aws.String("default/web")},
	}}}
	a := runOne(t, c, tagged)
	b := runOne(t, c, basicRun())
	if err := sim.StopInstance(b); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		filters []types.Filter
		want    []string
	}{
		{"tag value", []types.Filter{{Name: aws.String("tag:ec2-operator/owner"), Values: []string{"default/web"}}}, []string{a}},
		{"tag value wildcard", []types.Filter{{Name: aws.String("tag:ec2-operator/owner"), Values: []string{"default/*"}}}, []string{a}},
		{"tag key", []types.Filter{{Name: aws.String("tag-key"), Values: []string{"ec2-operator/owner"}}}, []string{a}},
		{"state", []types.Filter{{Name: aws.String("instance-state-name"), Values: []string{"stopping", "stopped"}}}, []string{b}},
		{"instance id", []types.Filter{{Name: aws.String("instance-id"), Values: []string{b}}}, []string{b}},
		{"no match", []types.Filter{{Name: aws.String("tag:missing"), Values: []string{"x"}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{Filters: tt.filters})
			if err != nil {
				t.Fatal(err)
			}
			got := instanceIDs(out)
			if len(got) != len(tt.want) || (len(got) == 1 && got[0] != tt.want[0]) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewInstancesAreInvisibleToDescribeInstancesUntilTheVisibilityDelayPasses(t *testing.T) {
	clock := newFakeClock()
	_, c := newEnv(t, Config{Seed: 32, VisibilityDelay: 2 * time.Second, Now: clock.Now})
	id := runOne(t, c, basicRun())
	_, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
	simtest.WantCode(t, err, "InvalidInstanceID.NotFound")
	out, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{})
	if err != nil || len(instanceIDs(out)) != 0 {
		t.Fatalf("unfiltered describe shows %v (%v)", instanceIDs(out), err)
	}
	clock.Advance(2 * time.Second)
	if got := describeOne(t, c, id); aws.ToString(got.InstanceId) != id {
		t.Fatalf("got %s", aws.ToString(got.InstanceId))
	}
}

func TestTerminatedInstancesStayVisibleForTheRetentionPeriodThenVanish(t *testing.T) {
	clock := newFakeClock()
	sim, c := newEnv(t, Config{Seed: 33, Now: clock.Now, TerminatedRetention: time.Minute})
	in := basicRun()
	in.TagSpecifications = []types.TagSpecification{{ResourceType: types.ResourceTypeInstance, Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}}
	id := runOne(t, c, in)
	rootVol := func() string { r, _ := sim.Instance(id); return r.RootVolumeID }()
	out, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{id}})
	if err != nil {
		t.Fatal(err)
	}
	ch := out.TerminatingInstances[0]
	if ch.CurrentState.Name != types.InstanceStateNameShuttingDown || ch.PreviousState.Name != types.InstanceStateNameRunning {
		t.Fatalf("state change = %+v -> %+v", ch.PreviousState, ch.CurrentState)
	}
	got := describeOne(t, c, id)
	if got.State.Name != types.InstanceStateNameTerminated || len(got.Tags) != 1 {
		t.Fatalf("state %s tags %+v", got.State.Name, got.Tags)
	}
	if got.StateReason == nil || aws.ToString(got.StateReason.Code) != "Client.UserInitiatedShutdown" {
		t.Errorf("state reason = %+v", got.StateReason)
	}
	_, err = c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{VolumeIds: []string{rootVol}})
	simtest.WantCode(t, err, "InvalidVolume.NotFound")
	// Terminating again succeeds and reports the current state.
	out, err = c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{id}})
	if err != nil || out.TerminatingInstances[0].CurrentState.Name != types.InstanceStateNameTerminated {
		t.Fatalf("second terminate: %v %+v", err, out)
	}
	clock.Advance(time.Minute)
	_, err = c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
	simtest.WantCode(t, err, "InvalidInstanceID.NotFound")
}
