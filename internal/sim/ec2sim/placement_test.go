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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// Dedicated Hosts and a host resource group used by these tests.
const (
	m5Host       = "h-0d100000000000001" // m5 family, us-east-1a
	c5LargeHost  = "h-0d100000000000002" // c5.large only, us-east-1a
	hostGroupARN = "arn:aws:resource-groups:us-east-1:123456789012:group/hosts"
)

// runPlaced is basicRun with a Placement and instance type.
func runPlaced(instanceType types.InstanceType, pl *types.Placement) *ec2.RunInstancesInput {
	in := basicRun()
	in.InstanceType, in.Placement = instanceType, pl
	return in
}

// runPlacedN launches n instances of in and returns their ids.
func runPlacedN(t *testing.T, c *ec2.Client, in *ec2.RunInstancesInput, n int32) []string {
	t.Helper()
	in.MinCount, in.MaxCount = aws.Int32(n), aws.Int32(n)
	out, err := c.RunInstances(simtest.Ctx(t), in)
	if err != nil {
		t.Fatalf("RunInstances(%d): %v", n, err)
	}
	var ids []string
	for _, i := range out.Instances {
		ids = append(ids, aws.ToString(i.InstanceId))
	}
	return ids
}

// A partition group places each instance in a partition: the requested one,
// or, as "Amazon EC2 tries to distribute the instances evenly across the
// number of partitions", the least used. DescribeInstances reports the group
// and partition.
func TestPartitionPlacementGroupAssignsPartitions(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 400})
	sim.AddPlacementGroup("hdfs", StrategyPartition, 3)
	id := runOne(t, c, runPlaced(types.InstanceTypeT3Micro, &types.Placement{GroupName: aws.String("hdfs"), PartitionNumber: aws.Int32(2)}))
	pl := describeOne(t, c, id).Placement
	if aws.ToString(pl.GroupName) != "hdfs" || aws.ToInt32(pl.PartitionNumber) != 2 || pl.Tenancy != types.TenancyDefault || aws.ToString(pl.GroupId) == "" {
		t.Fatalf("placement = %+v, want hdfs partition 2", pl)
	}
	seen := map[int32]int{}
	for _, id := range runPlacedN(t, c, runPlaced(types.InstanceTypeT3Micro, &types.Placement{GroupName: aws.String("hdfs")}), 2) {
		seen[aws.ToInt32(describeOne(t, c, id).Placement.PartitionNumber)]++
	}
	if seen[1] != 1 || seen[3] != 1 {
		t.Fatalf("automatic partitions = %v, want the empty partitions 1 and 3", seen)
	}
	if rec, _ := sim.Instance(id); rec.Placement.GroupName != "hdfs" || rec.Placement.PartitionNumber != 2 {
		t.Errorf("instance snapshot placement = %+v", rec.Placement)
	}
}

// Placement group rules: an unknown group is InvalidPlacementGroup.Unknown
// (documented); a partition number needs a partition group and must be one
// of its partitions; spread groups do not take Dedicated Instances; a
// cluster group stays in one Availability Zone.
func TestPlacementGroupRules(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 401})
	sim.AddPlacementGroup("hdfs", StrategyPartition, 3)
	sim.AddPlacementGroup("spread", StrategySpread, 0)
	sim.AddPlacementGroup("hpc", StrategyCluster, 0)
	for _, tc := range []struct {
		name string
		pl   *types.Placement
		want string
	}{
		{"unknown group", &types.Placement{GroupName: aws.String("nope")}, "InvalidPlacementGroup.Unknown"},
		{"partition outside the group", &types.Placement{GroupName: aws.String("hdfs"), PartitionNumber: aws.Int32(4)}, "InvalidParameterValue"},
		{"partition zero", &types.Placement{GroupName: aws.String("hdfs"), PartitionNumber: aws.Int32(0)}, "InvalidParameterValue"},
		{"partition in a spread group", &types.Placement{GroupName: aws.String("spread"), PartitionNumber: aws.Int32(1)}, "InvalidParameterValue"},
		{"partition without a group", &types.Placement{PartitionNumber: aws.Int32(1)}, "InvalidParameterValue"},
		{"dedicated in a spread group", &types.Placement{GroupName: aws.String("spread"), Tenancy: types.TenancyDedicated}, "InvalidParameterCombination"},
		{"unknown tenancy", &types.Placement{Tenancy: "shared"}, "InvalidParameterValue"},
	} {
		_, err := c.RunInstances(simtest.Ctx(t), runPlaced(types.InstanceTypeT3Micro, tc.pl))
		if got := simtest.ErrCode(err); got != tc.want {
			t.Errorf("%s: error %q (%v), want %s", tc.name, got, err, tc.want)
		}
	}
	// Dedicated Instances may use only two partitions of a partition group.
	_, err := c.RunInstances(simtest.Ctx(t), runPlaced(types.InstanceTypeT3Micro, &types.Placement{GroupName: aws.String("hdfs"), PartitionNumber: aws.Int32(3), Tenancy: types.TenancyDedicated}))
	simtest.WantCode(t, err, "InvalidParameterValue")

	runOne(t, c, runPlaced(types.InstanceTypeT3Micro, &types.Placement{GroupName: aws.String("hpc")}))
	other := runPlaced(types.InstanceTypeT3Micro, &types.Placement{GroupName: aws.String("hpc")})
	other.SubnetId = aws.String(DefaultSubnetIDs[1])
	_, err = c.RunInstances(simtest.Ctx(t), other)
	simtest.WantCode(t, err, "InvalidParameterValue")
}

// "You can have a maximum of seven running instances per Availability Zone
// per group" in a spread placement group: the eighth launch in a zone fails,
// another zone has its own seven, and a stopped member frees its slot until
// it starts again.
func TestSpreadPlacementGroupHoldsSevenRunningInstancesPerZone(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 402})
	c = noRetry(c)
	sim.AddPlacementGroup("critical", StrategySpread, 0)
	spread := func() *ec2.RunInstancesInput {
		return runPlaced(types.InstanceTypeT3Micro, &types.Placement{GroupName: aws.String("critical")})
	}
	ids := runPlacedN(t, c, spread(), 7)
	_, err := c.RunInstances(simtest.Ctx(t), spread())
	simtest.WantCode(t, err, "InsufficientInstanceCapacity")
	inB := spread()
	inB.SubnetId = aws.String(DefaultSubnetIDs[1])
	runOne(t, c, inB)

	stopForPlacement(t, c, ids[0])
	eighth := runOne(t, c, spread())
	_, err = c.StartInstances(simtest.Ctx(t), &ec2.StartInstancesInput{InstanceIds: []string{ids[0]}})
	simtest.WantCode(t, err, "InsufficientInstanceCapacity")
	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{eighth}}); err != nil {
		t.Fatal(err)
	}
	describeOne(t, c, eighth)
	if _, err := c.StartInstances(simtest.Ctx(t), &ec2.StartInstancesInput{InstanceIds: []string{ids[0]}}); err != nil {
		t.Fatalf("starting into the freed slot: %v", err)
	}
}

// Dedicated Hosts: a launch names its host (tenancy host implied), lands on
// an auto-placement host, or on a host of a host resource group; the host
// must be in the instance's zone (ZonesMismatched) and support its type
// (UnsupportedInstanceTypeOnHost), both documented codes.
func TestDedicatedHostPlacement(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 403})
	sim.AddDedicatedHost(m5Host, "m5", "us-east-1a")
	sim.AddDedicatedHost(c5LargeHost, "c5.large", "us-east-1a")
	sim.AddHostResourceGroup(hostGroupARN, c5LargeHost)

	id := runOne(t, c, runPlaced(types.InstanceTypeM5Large, &types.Placement{HostId: aws.String(m5Host), Affinity: aws.String("host")}))
	pl := describeOne(t, c, id).Placement
	if pl.Tenancy != types.TenancyHost || aws.ToString(pl.HostId) != m5Host || aws.ToString(pl.Affinity) != "host" {
		t.Fatalf("placement = %+v, want host tenancy on %s with host affinity", pl, m5Host)
	}

	// Hosts are allocated with auto-placement off, so untargeted host-tenancy
	// launches find none until it is turned on.
	_, err := c.RunInstances(simtest.Ctx(t), runPlaced(types.InstanceTypeM5Large, &types.Placement{Tenancy: types.TenancyHost}))
	simtest.WantCode(t, err, "IncompatibleHostRequirements")
	sim.SetHostAutoPlacement(m5Host, true)
	id = runOne(t, c, runPlaced(types.InstanceTypeM5Xlarge, &types.Placement{Tenancy: types.TenancyHost}))
	if pl := describeOne(t, c, id).Placement; aws.ToString(pl.HostId) != m5Host || aws.ToString(pl.Affinity) != "default" {
		t.Fatalf("auto-placed placement = %+v", pl)
	}

	id = runOne(t, c, runPlaced(types.InstanceTypeC5Large, &types.Placement{HostResourceGroupArn: aws.String(hostGroupARN)}))
	pl = describeOne(t, c, id).Placement
	if aws.ToString(pl.HostId) != c5LargeHost || aws.ToString(pl.HostResourceGroupArn) != hostGroupARN || pl.Tenancy != types.TenancyHost {
		t.Fatalf("host resource group placement = %+v", pl)
	}
	if rec, _ := sim.Instance(id); rec.Placement.HostID != c5LargeHost || rec.Placement.HostResourceGroupARN != hostGroupARN {
		t.Errorf("instance snapshot placement = %+v", rec.Placement)
	}

	inB := runPlaced(types.InstanceTypeM5Large, &types.Placement{HostId: aws.String(m5Host)})
	inB.SubnetId = aws.String(DefaultSubnetIDs[1])
	for _, tc := range []struct {
		name string
		in   *ec2.RunInstancesInput
		want string
	}{
		{"host in another zone", inB, "ZonesMismatched"},
		{"type the host does not run", runPlaced(types.InstanceTypeC5Xlarge, &types.Placement{HostId: aws.String(c5LargeHost)}), "UnsupportedInstanceTypeOnHost"},
		{"unknown host", runPlaced(types.InstanceTypeM5Large, &types.Placement{HostId: aws.String("h-0ffffffffffffffff")}), "InvalidHostID.NotFound"},
		{"malformed host", runPlaced(types.InstanceTypeM5Large, &types.Placement{HostId: aws.String("host-1")}), "InvalidHostID.Malformed"},
		{"host with dedicated tenancy", runPlaced(types.InstanceTypeM5Large, &types.Placement{HostId: aws.String(m5Host), Tenancy: types.TenancyDedicated}), "InvalidParameterCombination"},
		{"group with default tenancy", runPlaced(types.InstanceTypeC5Large, &types.Placement{HostResourceGroupArn: aws.String(hostGroupARN), Tenancy: types.TenancyDefault}), "InvalidParameterCombination"},
		{"host affinity without a host", runPlaced(types.InstanceTypeM5Large, &types.Placement{Affinity: aws.String("host")}), "InvalidParameterCombination"},
		{"unknown affinity", runPlaced(types.InstanceTypeM5Large, &types.Placement{HostId: aws.String(m5Host), Affinity: aws.String("sticky")}), "InvalidAffinity"},
		{"host in a placement group", runPlaced(types.InstanceTypeM5Large, &types.Placement{HostId: aws.String(m5Host), GroupName: aws.String("any")}), "InvalidPlacementGroup.Unknown"},
	} {
		_, err := c.RunInstances(simtest.Ctx(t), tc.in)
		if got := simtest.ErrCode(err); got != tc.want {
			t.Errorf("%s: error %q (%v), want %s", tc.name, got, err, tc.want)
		}
	}
	sim.AddPlacementGroup("hpc", StrategyCluster, 0)
	_, err = c.RunInstances(simtest.Ctx(t), runPlaced(types.InstanceTypeM5Large, &types.Placement{HostId: aws.String(m5Host), GroupName: aws.String("hpc")}))
	simtest.WantCode(t, err, "InvalidParameterCombination") // "You can't launch Dedicated Hosts in placement groups."
}

// ModifyInstancePlacement: host, tenancy, group and partition change only
// on a stopped instance (InvalidInstanceState, documented); tenancy moves
// between dedicated and host only (InvalidTenancy for default, documented);
// GroupName "" leaves the group; affinity alone may change while running.
func TestModifyInstancePlacement(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 404})
	sim.AddPlacementGroup("hdfs", StrategyPartition, 2)
	sim.AddDedicatedHost(m5Host, "m5", "us-east-1a")
	id := runOne(t, c, basicRun())
	intoGroup := &ec2.ModifyInstancePlacementInput{InstanceId: aws.String(id), GroupName: aws.String("hdfs"), PartitionNumber: aws.Int32(2)}
	_, err := c.ModifyInstancePlacement(simtest.Ctx(t), intoGroup)
	simtest.WantCode(t, err, "InvalidInstanceState")
	stopForPlacement(t, c, id)
	if out, err := c.ModifyInstancePlacement(simtest.Ctx(t), intoGroup); err != nil || !aws.ToBool(out.Return) {
		t.Fatalf("ModifyInstancePlacement into the group: %v %+v", err, out)
	}
	if pl := describeOne(t, c, id).Placement; aws.ToString(pl.GroupName) != "hdfs" || aws.ToInt32(pl.PartitionNumber) != 2 {
		t.Fatalf("placement = %+v, want hdfs partition 2", pl)
	}
	_, err = c.ModifyInstancePlacement(simtest.Ctx(t), &ec2.ModifyInstancePlacementInput{InstanceId: aws.String(id), GroupName: aws.String("nope")})
	simtest.WantCode(t, err, "InvalidPlacementGroup.Unknown")
	if _, err := c.ModifyInstancePlacement(simtest.Ctx(t), &ec2.ModifyInstancePlacementInput{InstanceId: aws.String(id), GroupName: aws.String("")}); err != nil {
		t.Fatal(err)
	}
	if pl := describeOne(t, c, id).Placement; aws.ToString(pl.GroupName) != "" || pl.PartitionNumber != nil {
		t.Fatalf("placement after leaving the group = %+v", pl)
	}
	_, err = c.ModifyInstancePlacement(simtest.Ctx(t), &ec2.ModifyInstancePlacementInput{InstanceId: aws.String(id), Tenancy: types.HostTenancyHost})
	simtest.WantCode(t, err, "InvalidTenancy")
	_, err = c.ModifyInstancePlacement(simtest.Ctx(t), &ec2.ModifyInstancePlacementInput{InstanceId: aws.String(id)})
	simtest.WantCode(t, err, "MissingParameter")

	// A dedicated m5 instance moves onto a host, then changes affinity while running.
	ded := runOne(t, c, runPlaced(types.InstanceTypeM5Large, &types.Placement{Tenancy: types.TenancyDedicated}))
	stopForPlacement(t, c, ded)
	if _, err := c.ModifyInstancePlacement(simtest.Ctx(t), &ec2.ModifyInstancePlacementInput{InstanceId: aws.String(ded), Tenancy: types.HostTenancyHost, HostId: aws.String(m5Host)}); err != nil {
		t.Fatalf("dedicated to host: %v", err)
	}
	if _, err := c.StartInstances(simtest.Ctx(t), &ec2.StartInstancesInput{InstanceIds: []string{ded}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ModifyInstancePlacement(simtest.Ctx(t), &ec2.ModifyInstancePlacementInput{InstanceId: aws.String(ded), Affinity: types.AffinityHost}); err != nil {
		t.Fatalf("affinity on a running instance: %v", err)
	}
	pl := describeOne(t, c, ded).Placement
	if pl.Tenancy != types.TenancyHost || aws.ToString(pl.HostId) != m5Host || aws.ToString(pl.Affinity) != "host" {
		t.Fatalf("placement = %+v, want host %s with host affinity", pl, m5Host)
	}
	_, err = c.ModifyInstancePlacement(simtest.Ctx(t), &ec2.ModifyInstancePlacementInput{InstanceId: aws.String(ded), Tenancy: types.HostTenancyDedicated})
	simtest.WantCode(t, err, "InvalidInstanceState")
}

// DescribePlacementGroups lists groups by name or filter, with their
// strategy, partition count and spread level.
func TestDescribePlacementGroups(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 405})
	sim.AddPlacementGroup("hdfs", StrategyPartition, 5)
	sim.AddPlacementGroup("critical", StrategySpread, 0)
	out, err := c.DescribePlacementGroups(simtest.Ctx(t), &ec2.DescribePlacementGroupsInput{GroupNames: []string{"hdfs"}})
	if err != nil || len(out.PlacementGroups) != 1 {
		t.Fatalf("DescribePlacementGroups(hdfs): %v %+v", err, out)
	}
	g := out.PlacementGroups[0]
	if g.Strategy != types.PlacementStrategyPartition || aws.ToInt32(g.PartitionCount) != 5 || g.State != types.PlacementGroupStateAvailable ||
		aws.ToString(g.GroupArn) != "arn:aws:ec2:us-east-1:123456789012:placement-group/hdfs" || aws.ToString(g.GroupId) == "" {
		t.Fatalf("group = %+v", g)
	}
	out, err = c.DescribePlacementGroups(simtest.Ctx(t), &ec2.DescribePlacementGroupsInput{Filters: []types.Filter{{Name: aws.String("strategy"), Values: []string{"spread"}}}})
	if err != nil || len(out.PlacementGroups) != 1 || aws.ToString(out.PlacementGroups[0].GroupName) != "critical" || out.PlacementGroups[0].SpreadLevel != types.SpreadLevelRack {
		t.Fatalf("strategy=spread: %v %+v", err, out)
	}
	out, err = c.DescribePlacementGroups(simtest.Ctx(t), &ec2.DescribePlacementGroupsInput{GroupIds: []string{aws.ToString(g.GroupId)}})
	if err != nil || len(out.PlacementGroups) != 1 || aws.ToString(out.PlacementGroups[0].GroupName) != "hdfs" {
		t.Fatalf("by id: %v %+v", err, out)
	}
	_, err = c.DescribePlacementGroups(simtest.Ctx(t), &ec2.DescribePlacementGroupsInput{GroupNames: []string{"nope"}})
	simtest.WantCode(t, err, "InvalidPlacementGroup.Unknown")
}

// DescribeInstances accepts the documented placement filters
// (placement-group-name, placement-partition-number, tenancy, host-id) and
// capacity-reservation-id.
func TestDescribeInstancesPlacementFilters(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 406})
	sim.AddPlacementGroup("hdfs", StrategyPartition, 2)
	sim.AddDedicatedHost(m5Host, "m5", "us-east-1a")
	sim.AddCapacityReservation(openCR, "t3.micro", "us-east-1a", 1, "open", nil)
	grouped := runOne(t, c, runPlaced(types.InstanceTypeT3Small, &types.Placement{GroupName: aws.String("hdfs"), PartitionNumber: aws.Int32(2)}))
	hosted := runOne(t, c, runPlaced(types.InstanceTypeM5Large, &types.Placement{HostId: aws.String(m5Host)}))
	reserved := runOne(t, c, basicRun())
	for _, tc := range []struct {
		name, value, want string
	}{
		{"placement-group-name", "hdfs", grouped},
		{"placement-partition-number", "2", grouped},
		{"tenancy", "host", hosted},
		{"host-id", m5Host, hosted},
		{"capacity-reservation-id", openCR, reserved},
	} {
		out, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{Filters: []types.Filter{{Name: aws.String(tc.name), Values: []string{tc.value}}}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if ids := instanceIDs(out); len(ids) != 1 || ids[0] != tc.want {
			t.Errorf("%s=%s matched %v, want [%s]", tc.name, tc.value, ids, tc.want)
		}
	}
}
