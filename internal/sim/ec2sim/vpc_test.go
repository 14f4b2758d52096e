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
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// A nondefault VPC used by the networking tests.
const (
	testVPC         = "vpc-0c000000000000001"
	testSubnet      = "subnet-0c000000000000001" // 10.0.1.0/24 in us-east-1a
	testSmallSubnet = "subnet-0c000000000000002" // 10.0.2.0/28 in us-east-1b
	testGroup       = "sg-0c000000000000001"     // "default" of testVPC
	testAppGroup    = "sg-0c000000000000002"     // "app" of testVPC
)

// newVPCEnv is an emulator with testVPC, its subnets and groups.
func newVPCEnv(t *testing.T, cfg Config) (*Sim, *ec2.Client) {
	t.Helper()
	sim, c := newEnv(t, cfg)
	sim.AddVPC(testVPC, "10.0.0.0/16")
	sim.AddSubnetInVPC(testSubnet, testVPC, "us-east-1a", "10.0.1.0/24", map[string]string{"Tier": "private"})
	sim.AddSubnetInVPC(testSmallSubnet, testVPC, "us-east-1b", "10.0.2.0/28", nil)
	sim.AddSecurityGroupInVPC(testGroup, "default", testVPC, nil)
	sim.AddSecurityGroupInVPC(testAppGroup, "app", testVPC, map[string]string{"Team": "payments"})
	return sim, c
}

// runIn is basicRun in another subnet.
func runIn(subnetID string) *ec2.RunInstancesInput {
	in := basicRun()
	in.SubnetId = aws.String(subnetID)
	return in
}

// describeSubnet returns one subnet by id.
func describeSubnet(t *testing.T, c *ec2.Client, id string) types.Subnet {
	t.Helper()
	out, err := c.DescribeSubnets(simtest.Ctx(t), &ec2.DescribeSubnetsInput{SubnetIds: []string{id}})
	if err != nil || len(out.Subnets) != 1 {
		t.Fatalf("DescribeSubnets(%s): %v %+v", id, err, out)
	}
	return out.Subnets[0]
}

// "AWS reserves the first four IP addresses and the last IP address in each
// subnet CIDR block" (Amazon VPC User Guide, "Subnet CIDR blocks"): a /28 has
// 11 usable addresses and the first one assigned is the fifth.
func TestSubnetInVPCAllocatesPrivateIPsAfterTheReservedAddresses(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 200})
	sn := describeSubnet(t, c, testSmallSubnet)
	if aws.ToInt32(sn.AvailableIpAddressCount) != 11 || aws.ToString(sn.CidrBlock) != "10.0.2.0/28" || aws.ToString(sn.VpcId) != testVPC {
		t.Fatalf("subnet = %+v, want 10.0.2.0/28 with 11 available addresses", sn)
	}
	id := runOne(t, c, runIn(testSmallSubnet))
	got := describeOne(t, c, id)
	if aws.ToString(got.PrivateIpAddress) != "10.0.2.4" || aws.ToString(got.VpcId) != testVPC {
		t.Fatalf("private IP = %s in %s, want 10.0.2.4 in %s", aws.ToString(got.PrivateIpAddress), aws.ToString(got.VpcId), testVPC)
	}
	if n := aws.ToInt32(describeSubnet(t, c, testSmallSubnet).AvailableIpAddressCount); n != 10 {
		t.Fatalf("availableIpAddressCount = %d after one launch, want 10", n)
	}
	if len(got.SecurityGroups) != 1 || aws.ToString(got.SecurityGroups[0].GroupId) != testGroup {
		t.Errorf("an instance launched without groups gets its VPC's default group, got %+v", got.SecurityGroups)
	}
}

// DescribeSubnets' AvailableIpAddressCount is "the number of unused private
// IPv4 addresses in the subnet": every address an interface takes, primary or
// secondary, lowers it, and termination gives them back.
func TestAvailableIpAddressCountTracksAddressesInUseAndTermination(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 201})
	before := aws.ToInt32(describeSubnet(t, c, testSubnet).AvailableIpAddressCount)
	if before != 251 {
		t.Fatalf("a /24 has %d available addresses, want 256-5 = 251", before)
	}
	in := basicRun()
	in.SubnetId = nil
	in.NetworkInterfaces = []types.InstanceNetworkInterfaceSpecification{{
		DeviceIndex: aws.Int32(0), SubnetId: aws.String(testSubnet), SecondaryPrivateIpAddressCount: aws.Int32(2),
	}}
	id := runOne(t, c, in)
	if n := aws.ToInt32(describeSubnet(t, c, testSubnet).AvailableIpAddressCount); n != before-3 {
		t.Fatalf("availableIpAddressCount = %d with a primary and two secondaries in use, want %d", n, before-3)
	}
	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatal(err)
	}
	describeOne(t, c, id) // advances shutting-down to terminated
	if n := aws.ToInt32(describeSubnet(t, c, testSubnet).AvailableIpAddressCount); n != before {
		t.Fatalf("availableIpAddressCount = %d after termination, want %d", n, before)
	}
}

// DescribeSubnets and DescribeSecurityGroups accept the tag:<key> and tag-key
// filters (API reference), and subnets and groups are taggable by
// CreateTags and DeleteTags.
func TestSubnetAndSecurityGroupTagFilters(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 202})
	subnets, err := c.DescribeSubnets(simtest.Ctx(t), &ec2.DescribeSubnetsInput{Filters: []types.Filter{
		{Name: aws.String("tag:Tier"), Values: []string{"private"}},
	}})
	if err != nil || len(subnets.Subnets) != 1 || aws.ToString(subnets.Subnets[0].SubnetId) != testSubnet {
		t.Fatalf("tag:Tier=private: %v %+v", err, subnets)
	}
	if tags := subnets.Subnets[0].Tags; len(tags) != 1 || aws.ToString(tags[0].Key) != "Tier" {
		t.Errorf("subnet tags = %+v", tags)
	}
	if _, err := c.CreateTags(simtest.Ctx(t), &ec2.CreateTagsInput{
		Resources: []string{testSmallSubnet, testGroup},
		Tags:      []types.Tag{{Key: aws.String("Owner"), Value: aws.String("net")}},
	}); err != nil {
		t.Fatal(err)
	}
	subnets, err = c.DescribeSubnets(simtest.Ctx(t), &ec2.DescribeSubnetsInput{Filters: []types.Filter{
		{Name: aws.String("tag-key"), Values: []string{"Owner"}},
	}})
	if err != nil || len(subnets.Subnets) != 1 || aws.ToString(subnets.Subnets[0].SubnetId) != testSmallSubnet {
		t.Fatalf("tag-key=Owner on subnets: %v %+v", err, subnets)
	}
	groups, err := c.DescribeSecurityGroups(simtest.Ctx(t), &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{
		{Name: aws.String("tag:Team"), Values: []string{"pay*"}},
	}})
	if err != nil || len(groups.SecurityGroups) != 1 || aws.ToString(groups.SecurityGroups[0].GroupId) != testAppGroup {
		t.Fatalf("tag:Team=pay* on groups: %v %+v", err, groups)
	}
	groups, err = c.DescribeSecurityGroups(simtest.Ctx(t), &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{
		{Name: aws.String("tag-key"), Values: []string{"Owner"}}, {Name: aws.String("vpc-id"), Values: []string{testVPC}},
	}})
	if err != nil || len(groups.SecurityGroups) != 1 || aws.ToString(groups.SecurityGroups[0].GroupId) != testGroup {
		t.Fatalf("tag-key=Owner on groups: %v %+v", err, groups)
	}
	if _, err := c.DeleteTags(simtest.Ctx(t), &ec2.DeleteTagsInput{Resources: []string{testGroup}, Tags: []types.Tag{{Key: aws.String("Owner")}}}); err != nil {
		t.Fatal(err)
	}
	groups, err = c.DescribeSecurityGroups(simtest.Ctx(t), &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{
		{Name: aws.String("tag-key"), Values: []string{"Owner"}},
	}})
	if err != nil || len(groups.SecurityGroups) != 0 {
		t.Fatalf("after DeleteTags: %v %+v", err, groups)
	}
	_, err = c.CreateTags(simtest.Ctx(t), &ec2.CreateTagsInput{Resources: []string{"subnet-0c0000000000000ff"}, Tags: []types.Tag{{Key: aws.String("a"), Value: aws.String("b")}}})
	simtest.WantCode(t, err, "InvalidSubnetID.NotFound")
}

// DescribeSecurityGroups' GroupName parameter: "[Default VPC] You can specify
// either the ID or the name of the security group. [Nondefault VPC] You must
// specify the ID" -- names resolve in the default VPC only, while the
// group-name filter sees every VPC.
func TestDescribeSecurityGroupsGroupNameFindsOnlyDefaultVPCGroups(t *testing.T) {
	sim, c := newVPCEnv(t, Config{Seed: 203})
	sim.AddSecurityGroupInVPC("sg-0c000000000000003", "web", testVPC, nil)
	out, err := c.DescribeSecurityGroups(simtest.Ctx(t), &ec2.DescribeSecurityGroupsInput{GroupNames: []string{"web"}})
	if err != nil || len(out.SecurityGroups) != 1 || aws.ToString(out.SecurityGroups[0].GroupId) != WebSecurityGroupID {
		t.Fatalf("GroupName=web: %v %+v", err, out)
	}
	_, err = c.DescribeSecurityGroups(simtest.Ctx(t), &ec2.DescribeSecurityGroupsInput{GroupNames: []string{"app"}})
	simtest.WantCode(t, err, "InvalidGroup.NotFound")
	out, err = c.DescribeSecurityGroups(simtest.Ctx(t), &ec2.DescribeSecurityGroupsInput{Filters: []types.Filter{
		{Name: aws.String("group-name"), Values: []string{"web"}},
	}})
	if err != nil || len(out.SecurityGroups) != 2 {
		t.Fatalf("group-name=web filter: %v %+v", err, out)
	}
}

// RunInstances refuses security groups of another VPC than the subnet's with
// "InvalidParameter: Security group sg-… and subnet subnet-… belong to
// different networks."
func TestRunInstancesRefusesSecurityGroupOfAnotherVPC(t *testing.T) {
	sim, c := newVPCEnv(t, Config{Seed: 204})
	in := runIn(testSubnet)
	in.SecurityGroupIds = []string{WebSecurityGroupID}
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidParameter")
	if msg := simtest.ErrMessage(err); msg != "Security group "+WebSecurityGroupID+" and subnet "+testSubnet+" belong to different networks." {
		t.Errorf("message = %q", msg)
	}
	in = basicRun()
	in.SecurityGroupIds = []string{testAppGroup}
	_, err = c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidParameter")
	if n := len(sim.Instances()); n != 0 {
		t.Fatalf("%d instances launched", n)
	}
}

// Security group names only resolve in the default VPC: with a nondefault
// subnet EC2 answers "The parameter groupName cannot be used with the
// parameter subnet".
func TestRunInstancesGroupNamesNeedTheDefaultVPC(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 205})
	in := runIn(testSubnet)
	in.SecurityGroups = []string{"app"}
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidParameterCombination")
}

// ModifyInstanceAttribute GroupId.N only takes groups of the instance's VPC;
// EC2 answers "InvalidGroup.NotFound: You have specified two resources that
// belong to different networks."
func TestModifyInstanceAttributeRefusesGroupOfAnotherVPC(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 206})
	id := runOne(t, c, runIn(testSubnet))
	_, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{InstanceId: aws.String(id), Groups: []string{WebSecurityGroupID}})
	simtest.WantCode(t, err, "InvalidGroup.NotFound")
	if !strings.Contains(simtest.ErrMessage(err), "belong to different networks") {
		t.Errorf("message = %q", simtest.ErrMessage(err))
	}
	if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{InstanceId: aws.String(id), Groups: []string{testAppGroup}}); err != nil {
		t.Fatalf("a group of the instance's VPC: %v", err)
	}
	if got := describeOne(t, c, id); len(got.SecurityGroups) != 1 || aws.ToString(got.SecurityGroups[0].GroupId) != testAppGroup {
		t.Fatalf("groups = %+v", got.SecurityGroups)
	}
}

// A subnet's IPv6 CIDR block shows in DescribeSubnets'
// Ipv6CidrBlockAssociationSet, and its /64 is filterable.
func TestSubnetIPv6CIDRIsDescribed(t *testing.T) {
	sim, c := newVPCEnv(t, Config{Seed: 207})
	sim.SetSubnetIPv6CIDR(testSubnet, "2600:1f18:abcd:1200::/64")
	sn := describeSubnet(t, c, testSubnet)
	if len(sn.Ipv6CidrBlockAssociationSet) != 1 || aws.ToString(sn.Ipv6CidrBlockAssociationSet[0].Ipv6CidrBlock) != "2600:1f18:abcd:1200::/64" ||
		sn.Ipv6CidrBlockAssociationSet[0].Ipv6CidrBlockState.State != types.SubnetCidrBlockStateCodeAssociated {
		t.Fatalf("ipv6 associations = %+v", sn.Ipv6CidrBlockAssociationSet)
	}
	out, err := c.DescribeSubnets(simtest.Ctx(t), &ec2.DescribeSubnetsInput{Filters: []types.Filter{
		{Name: aws.String("ipv6-cidr-block-association.ipv6-cidr-block"), Values: []string{"2600:1f18:abcd:1200::/64"}},
	}})
	if err != nil || len(out.Subnets) != 1 {
		t.Fatalf("ipv6 filter: %v %+v", err, out)
	}
}
