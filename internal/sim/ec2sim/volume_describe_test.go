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
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// DescribeVolumes' API reference on paging: MaxResults returns at most that many
// volumes with a NextToken for the rest (values from 5; it cannot be combined with
// VolumeId.N), and the SDK's paginator walks every page in order.
func TestDescribeVolumesPagesWithTheSDKPaginator(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 98})
	var want []string
	for range 12 {
		want = append(want, createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)}))
	}
	var got []string
	pages := 0
	pg := ec2.NewDescribeVolumesPaginator(c, &ec2.DescribeVolumesInput{MaxResults: aws.Int32(5)})
	for pg.HasMorePages() {
		out, err := pg.NextPage(simtest.Ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(out.Volumes) > 5 {
			t.Fatalf("page %d has %d volumes, more than MaxResults", pages, len(out.Volumes))
		}
		for _, v := range out.Volumes {
			got = append(got, aws.ToString(v.VolumeId))
		}
	}
	if pages != 3 || len(got) != len(want) {
		t.Fatalf("%d pages with %d volumes, want 3 pages with %d", pages, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("volume %d = %s, want %s (creation order)", i, got[i], want[i])
		}
	}
	_, err := c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{MaxResults: aws.Int32(4)})
	simtest.WantCode(t, err, "InvalidParameterValue")
	_, err = c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{MaxResults: aws.Int32(5), VolumeIds: want[:1]})
	simtest.WantCode(t, err, "InvalidParameterCombination")
	_, err = c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{NextToken: aws.String("garbage")})
	simtest.WantCode(t, err, "InvalidPaginationToken")
}

// DescribeVolumes' documented filters status, availability-zone, volume-id and
// attachment.status, attachment.instance-id and attachment.device select volumes
// by their state and attachment; an unknown filter is InvalidParameterValue.
func TestDescribeVolumesFiltersByStateAndAttachment(t *testing.T) {
	// The attachment stays attaching for a minute of the fake clock, which never moves.
	clock := newFakeClock()
	sim, c := newEnv(t, Config{Seed: 99, Now: clock.Now, VolumeAttachDuration: time.Minute})
	inst := runOne(t, c, basicRun())
	rec, _ := sim.Instance(inst)
	loose := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(DefaultRegion + "b"), Size: aws.Int32(1)})
	data := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)})
	if _, err := c.AttachVolume(simtest.Ctx(t), &ec2.AttachVolumeInput{VolumeId: aws.String(data), InstanceId: aws.String(inst), Device: aws.String("/dev/sdf")}); err != nil {
		t.Fatal(err)
	}
	ids := func(filters ...types.Filter) []string {
		t.Helper()
		out, err := c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{Filters: filters})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range out.Volumes {
			got = append(got, aws.ToString(v.VolumeId))
		}
		return got
	}
	f := func(name string, values ...string) types.Filter {
		return types.Filter{Name: aws.String(name), Values: values}
	}
	for _, tc := range []struct {
		filter types.Filter
		want   []string
	}{
		{f("status", "available"), []string{loose}},
		{f("status", "in-use"), []string{rec.RootVolumeID, data}},
		{f("availability-zone", DefaultRegion+"b"), []string{loose}},
		{f("volume-id", data, loose), []string{loose, data}},
		{f("attachment.status", "attaching"), []string{data}},
		{f("attachment.status", "attached"), []string{rec.RootVolumeID}},
		{f("attachment.instance-id", inst), []string{rec.RootVolumeID, data}},
		{f("attachment.device", "/dev/sdf"), []string{data}},
	} {
		got := ids(tc.filter)
		if len(got) != len(tc.want) {
			t.Errorf("%s=%v found %v, want %v", aws.ToString(tc.filter.Name), tc.filter.Values, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s=%v found %v, want %v", aws.ToString(tc.filter.Name), tc.filter.Values, got, tc.want)
			}
		}
	}
	_, err := c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{Filters: []types.Filter{f("no-such-filter", "x")}})
	simtest.WantCode(t, err, "InvalidParameterValue")
}

// The EC2 Developer Guide's request throttling: CreateVolume, AttachVolume,
// DetachVolume and DeleteVolume are mutating actions with the mutating bucket
// (50 tokens), and every call is counted in the call log.
func TestVolumeActionsAreThrottledAsMutatingAndCounted(t *testing.T) {
	sim, c, _ := throttledEnv(t)
	if b := ec2limits.Documented().Request("CreateVolume"); b != ec2limits.Mutating {
		t.Fatalf("CreateVolume's bucket = %v, want the mutating one", b)
	}
	for _, op := range []string{"AttachVolume", "DetachVolume", "DeleteVolume"} {
		if b := ec2limits.Documented().Request(op); b != ec2limits.Mutating {
			t.Errorf("%s's bucket = %v, want the mutating one", op, b)
		}
	}
	for i := range 50 {
		if _, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)}); err != nil {
			t.Fatalf("call %d of a full bucket: %v", i+1, err)
		}
	}
	_, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)})
	simtest.WantCode(t, err, "RequestLimitExceeded")
	if n := sim.Calls("CreateVolume"); n != 51 {
		t.Errorf("Calls(CreateVolume) = %d, want 51", n)
	}
	if n := sim.ThrottledCalls()["CreateVolume"]; n != 1 {
		t.Errorf("ThrottledCalls()[CreateVolume] = %d, want 1", n)
	}
	if n := len(sim.Volumes()); n != 50 {
		t.Errorf("%d volumes exist; a refused call must create nothing", n)
	}
}
