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
	"net/netip"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// describeENI returns one network interface by id.
func describeENI(t *testing.T, c *ec2.Client, id string) types.NetworkInterface {
	t.Helper()
	out, err := c.DescribeNetworkInterfaces(simtest.Ctx(t), &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{id}})
	if err != nil || len(out.NetworkInterfaces) != 1 {
		t.Fatalf("DescribeNetworkInterfaces(%s): %v %+v", id, err, out)
	}
	return out.NetworkInterfaces[0]
}

// primaryENI is the id of an instance's primary interface.
func primaryENI(t *testing.T, c *ec2.Client, instanceID string) string {
	t.Helper()
	got := describeOne(t, c, instanceID)
	if len(got.NetworkInterfaces) != 1 {
		t.Fatalf("instance %s has interfaces %+v", instanceID, got.NetworkInterfaces)
	}
	return aws.ToString(got.NetworkInterfaces[0].NetworkInterfaceId)
}

// RunInstances' PrivateIpAddress: "The primary IPv4 address. You must
// specify a value from the IPv4 address range of the subnet."
func TestRunInstancesAssignsTheRequestedPrivateIP(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 300})
	in := runIn(testSubnet)
	in.PrivateIpAddress = aws.String("10.0.1.50")
	id := runOne(t, c, in)
	got := describeOne(t, c, id)
	if aws.ToString(got.PrivateIpAddress) != "10.0.1.50" || aws.ToString(got.NetworkInterfaces[0].PrivateIpAddress) != "10.0.1.50" {
		t.Fatalf("private IP = %s", aws.ToString(got.PrivateIpAddress))
	}
	if aws.ToString(got.PrivateDnsName) != "ip-10-0-1-50.ec2.internal" {
		t.Errorf("private DNS name = %s", aws.ToString(got.PrivateDnsName))
	}
}

// An address outside the subnet, or one of the five AWS reserves, is refused
// with "InvalidParameterValue: Address … does not fall within the subnet's
// address range", on the interface as at the top level.
func TestRunInstancesRefusesPrivateIPOutsideTheSubnetRange(t *testing.T) {
	sim, c := newVPCEnv(t, Config{Seed: 301})
	for _, ip := range []string{"10.0.2.5", "10.0.1.0", "10.0.1.3", "10.0.1.255", "not-an-ip"} {
		in := runIn(testSubnet)
		in.PrivateIpAddress = aws.String(ip)
		_, err := c.RunInstances(simtest.Ctx(t), in)
		simtest.WantCode(t, err, "InvalidParameterValue")
		if want := "Address " + ip + " does not fall within the subnet's address range"; simtest.ErrMessage(err) != want {
			t.Errorf("message = %q, want %q", simtest.ErrMessage(err), want)
		}
	}
	in := basicRun()
	in.SubnetId = nil
	in.NetworkInterfaces = []types.InstanceNetworkInterfaceSpecification{{
		DeviceIndex: aws.Int32(0), SubnetId: aws.String(testSubnet), PrivateIpAddress: aws.String("10.0.3.9"),
	}}
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidParameterValue")
	if n := len(sim.Instances()); n != 0 {
		t.Fatalf("%d instances launched", n)
	}
}

// A private IP another interface holds fails with "InvalidIPAddress.InUse:
// Address … is in use." (EC2 error codes), until its instance terminates.
func TestRunInstancesRefusesAPrivateIPInUse(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 302})
	in := runIn(testSubnet)
	in.PrivateIpAddress = aws.String("10.0.1.20")
	first := runOne(t, c, in)
	in.ClientToken = nil // the SDK filled it in; a retry with it would be idempotent
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidIPAddress.InUse")
	if simtest.ErrMessage(err) != "Address 10.0.1.20 is in use." {
		t.Errorf("message = %q", simtest.ErrMessage(err))
	}
	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{first}}); err != nil {
		t.Fatal(err)
	}
	describeOne(t, c, first)
	in.ClientToken = nil
	runOne(t, c, in) // the address was released at termination
}

// InstanceNetworkInterfaceSpecification: PrivateIpAddresses.N (one primary)
// and SecondaryPrivateIpAddressCount add secondary private IPv4 addresses,
// listed in privateIpAddressesSet after the primary.
func TestRunInstancesAssignsSecondaryPrivateIPs(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 303})
	in := basicRun()
	in.SubnetId = nil
	in.NetworkInterfaces = []types.InstanceNetworkInterfaceSpecification{{
		DeviceIndex: aws.Int32(0), SubnetId: aws.String(testSubnet),
		PrivateIpAddresses: []types.PrivateIpAddressSpecification{
			{PrivateIpAddress: aws.String("10.0.1.10"), Primary: aws.Bool(true)},
			{PrivateIpAddress: aws.String("10.0.1.11")},
		},
		SecondaryPrivateIpAddressCount: aws.Int32(1),
	}}
	id := runOne(t, c, in)
	ni := describeOne(t, c, id).NetworkInterfaces[0]
	var ips []string
	for _, a := range ni.PrivateIpAddresses {
		ips = append(ips, aws.ToString(a.PrivateIpAddress))
		if aws.ToBool(a.Primary) != (aws.ToString(a.PrivateIpAddress) == "10.0.1.10") {
			t.Errorf("%s primary = %v", aws.ToString(a.PrivateIpAddress), aws.ToBool(a.Primary))
		}
	}
	if strings.Join(ips, ",") != "10.0.1.10,10.0.1.11,10.0.1.4" {
		t.Fatalf("private addresses = %v, want the primary, the named secondary and one allocated", ips)
	}
}

// Ipv6AddressCount and Ipv6Addresses assign IPv6 addresses "from the IPv6
// address range of the subnet", at the top level or on the interface.
func TestRunInstancesAssignsIPv6AddressesFromTheSubnet(t *testing.T) {
	sim, c := newVPCEnv(t, Config{Seed: 304})
	sim.SetSubnetIPv6CIDR(testSubnet, "2600:1f18:abcd:1200::/64")
	prefix := netip.MustParsePrefix("2600:1f18:abcd:1200::/64")
	in := runIn(testSubnet)
	in.Ipv6AddressCount = aws.Int32(2)
	id := runOne(t, c, in)
	ni := describeOne(t, c, id).NetworkInterfaces[0]
	if len(ni.Ipv6Addresses) != 2 {
		t.Fatalf("ipv6 addresses = %+v", ni.Ipv6Addresses)
	}
	for _, a := range ni.Ipv6Addresses {
		if !prefix.Contains(netip.MustParseAddr(aws.ToString(a.Ipv6Address))) {
			t.Errorf("%s is outside %s", aws.ToString(a.Ipv6Address), prefix)
		}
	}
	in = basicRun()
	in.SubnetId = nil
	in.NetworkInterfaces = []types.InstanceNetworkInterfaceSpecification{{
		DeviceIndex: aws.Int32(0), SubnetId: aws.String(testSubnet),
		Ipv6Addresses: []types.InstanceIpv6Address{{Ipv6Address: aws.String("2600:1f18:abcd:1200::beef")}},
	}}
	id = runOne(t, c, in)
	if got := describeENI(t, c, primaryENI(t, c, id)); len(got.Ipv6Addresses) != 1 || aws.ToString(got.Ipv6Addresses[0].Ipv6Address) != "2600:1f18:abcd:1200::beef" {
		t.Fatalf("ipv6 addresses = %+v", got.Ipv6Addresses)
	}
	in.ClientToken = nil
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidIPAddress.InUse")
}

// IPv6 addresses need an IPv6 CIDR block on the subnet; without one the
// launch is refused and nothing starts.
func TestRunInstancesRefusesIPv6InASubnetWithoutIPv6CIDR(t *testing.T) {
	sim, c := newVPCEnv(t, Config{Seed: 305})
	in := runIn(testSubnet)
	in.Ipv6AddressCount = aws.Int32(1)
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidParameterValue")
	if !strings.Contains(simtest.ErrMessage(err), "IPv6 CIDR") {
		t.Errorf("message = %q", simtest.ErrMessage(err))
	}
	if n := len(sim.Instances()); n != 0 {
		t.Fatalf("%d instances launched", n)
	}
}

// "InsufficientFreeAddressesInSubnet: The specified subnet does not have
// enough free addresses to satisfy the request." (EC2 error codes): a /28 has
// 11 usable addresses, so 12 instances, or 6 with a secondary each, do not fit.
func TestRunInstancesFailsWhenTheSubnetHasTooFewFreeAddresses(t *testing.T) {
	sim, c := newVPCEnv(t, Config{Seed: 306})
	in := runIn(testSmallSubnet)
	in.MinCount, in.MaxCount = aws.Int32(12), aws.Int32(12)
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InsufficientFreeAddressesInSubnet")
	in = basicRun()
	in.SubnetId = nil
	in.MinCount, in.MaxCount = aws.Int32(6), aws.Int32(6)
	in.NetworkInterfaces = []types.InstanceNetworkInterfaceSpecification{{
		DeviceIndex: aws.Int32(0), SubnetId: aws.String(testSmallSubnet), SecondaryPrivateIpAddressCount: aws.Int32(1),
	}}
	_, err = c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InsufficientFreeAddressesInSubnet")
	if n := len(sim.Instances()); n != 0 {
		t.Fatalf("%d instances launched", n)
	}
	in = runIn(testSmallSubnet)
	in.MinCount, in.MaxCount = aws.Int32(11), aws.Int32(11)
	if _, err := c.RunInstances(simtest.Ctx(t), in); err != nil {
		t.Fatalf("11 instances fill a /28 exactly: %v", err)
	}
	if n := aws.ToInt32(describeSubnet(t, c, testSmallSubnet).AvailableIpAddressCount); n != 0 {
		t.Fatalf("availableIpAddressCount = %d, want 0", n)
	}
}

// TagSpecification with ResourceType network-interface tags the interfaces
// RunInstances creates, and only them.
func TestRunInstancesTagsTheNetworkInterfaceFromTagSpecification(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 307})
	in := runIn(testSubnet)
	in.TagSpecifications = []types.TagSpecification{
		{ResourceType: types.ResourceTypeInstance, Tags: []types.Tag{{Key: aws.String("Name"), Value: aws.String("web-1")}}},
		{ResourceType: types.ResourceTypeNetworkInterface, Tags: []types.Tag{{Key: aws.String("Role"), Value: aws.String("eth0")}}},
	}
	id := runOne(t, c, in)
	ni := describeENI(t, c, primaryENI(t, c, id))
	if len(ni.TagSet) != 1 || aws.ToString(ni.TagSet[0].Key) != "Role" || aws.ToString(ni.TagSet[0].Value) != "eth0" {
		t.Fatalf("interface tags = %+v", ni.TagSet)
	}
	if tags := describeOne(t, c, id).Tags; len(tags) != 1 || aws.ToString(tags[0].Key) != "Name" {
		t.Fatalf("instance tags = %+v", tags)
	}
}

// DescribeNetworkInterfaces filters by attachment.instance-id,
// network-interface-id, subnet-id, vpc-id, tag:<key> and tag-key, and
// refuses unknown ids with InvalidNetworkInterfaceID.NotFound. Interfaces
// are taggable by CreateTags.
func TestDescribeNetworkInterfacesFilters(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 308})
	a := runOne(t, c, runIn(testSubnet))
	b := runOne(t, c, runIn(testSmallSubnet))
	d := runOne(t, c, basicRun())
	eniA, eniB := primaryENI(t, c, a), primaryENI(t, c, b)
	if _, err := c.CreateTags(simtest.Ctx(t), &ec2.CreateTagsInput{Resources: []string{eniB}, Tags: []types.Tag{{Key: aws.String("Role"), Value: aws.String("db")}}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		filter types.Filter
		want   []string
	}{
		{types.Filter{Name: aws.String("attachment.instance-id"), Values: []string{a}}, []string{eniA}},
		{types.Filter{Name: aws.String("network-interface-id"), Values: []string{eniB}}, []string{eniB}},
		{types.Filter{Name: aws.String("subnet-id"), Values: []string{testSmallSubnet}}, []string{eniB}},
		{types.Filter{Name: aws.String("vpc-id"), Values: []string{testVPC}}, []string{eniA, eniB}},
		{types.Filter{Name: aws.String("vpc-id"), Values: []string{DefaultVPCID}}, []string{primaryENI(t, c, d)}},
		{types.Filter{Name: aws.String("tag:Role"), Values: []string{"db"}}, []string{eniB}},
		{types.Filter{Name: aws.String("tag-key"), Values: []string{"Role"}}, []string{eniB}},
	}
	for _, tc := range cases {
		out, err := c.DescribeNetworkInterfaces(simtest.Ctx(t), &ec2.DescribeNetworkInterfacesInput{Filters: []types.Filter{tc.filter}})
		if err != nil {
			t.Fatalf("%s: %v", aws.ToString(tc.filter.Name), err)
		}
		var got []string
		for _, ni := range out.NetworkInterfaces {
			got = append(got, aws.ToString(ni.NetworkInterfaceId))
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s=%v: got %v, want %v", aws.ToString(tc.filter.Name), tc.filter.Values, got, tc.want)
		}
	}
	ni := describeENI(t, c, eniA)
	if aws.ToString(ni.Attachment.InstanceId) != a || aws.ToInt32(ni.Attachment.DeviceIndex) != 0 || ni.Status != types.NetworkInterfaceStatusInUse ||
		aws.ToString(ni.AvailabilityZone) != "us-east-1a" || !aws.ToBool(ni.SourceDestCheck) {
		t.Errorf("interface = %+v", ni)
	}
	_, err := c.DescribeNetworkInterfaces(simtest.Ctx(t), &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-0c0000000000000ff"}})
	simtest.WantCode(t, err, "InvalidNetworkInterfaceID.NotFound")
	_, err = c.DescribeNetworkInterfaces(simtest.Ctx(t), &ec2.DescribeNetworkInterfacesInput{Filters: []types.Filter{{Name: aws.String("bogus"), Values: []string{"x"}}}})
	simtest.WantCode(t, err, "InvalidParameterValue")
}

// Source/destination checking is on by default; ModifyNetworkInterfaceAttribute
// SourceDestCheck and ModifyInstanceAttribute SourceDestCheck (which acts on
// the primary interface) switch it, and DescribeInstances,
// DescribeNetworkInterfaces and DescribeInstanceAttribute sourceDestCheck
// report it.
func TestSourceDestCheckCanBeDisabledAndEnabled(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 309})
	id := runOne(t, c, runIn(testSubnet))
	eni := primaryENI(t, c, id)
	check := func(want bool) {
		t.Helper()
		got := describeOne(t, c, id)
		if aws.ToBool(got.SourceDestCheck) != want || aws.ToBool(got.NetworkInterfaces[0].SourceDestCheck) != want {
			t.Fatalf("DescribeInstances sourceDestCheck = %v / %v, want %v", aws.ToBool(got.SourceDestCheck), aws.ToBool(got.NetworkInterfaces[0].SourceDestCheck), want)
		}
		if ni := describeENI(t, c, eni); aws.ToBool(ni.SourceDestCheck) != want {
			t.Fatalf("DescribeNetworkInterfaces sourceDestCheck = %v, want %v", aws.ToBool(ni.SourceDestCheck), want)
		}
		attr, err := c.DescribeInstanceAttribute(simtest.Ctx(t), &ec2.DescribeInstanceAttributeInput{InstanceId: aws.String(id), Attribute: types.InstanceAttributeNameSourceDestCheck})
		if err != nil || aws.ToBool(attr.SourceDestCheck.Value) != want {
			t.Fatalf("DescribeInstanceAttribute sourceDestCheck: %v %+v, want %v", err, attr, want)
		}
	}
	check(true)
	if _, err := c.ModifyNetworkInterfaceAttribute(simtest.Ctx(t), &ec2.ModifyNetworkInterfaceAttributeInput{
		NetworkInterfaceId: aws.String(eni), SourceDestCheck: &types.AttributeBooleanValue{Value: aws.Bool(false)},
	}); err != nil {
		t.Fatal(err)
	}
	check(false)
	if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id), SourceDestCheck: &types.AttributeBooleanValue{Value: aws.Bool(true)},
	}); err != nil {
		t.Fatal(err)
	}
	check(true)
	_, err := c.ModifyNetworkInterfaceAttribute(simtest.Ctx(t), &ec2.ModifyNetworkInterfaceAttributeInput{
		NetworkInterfaceId: aws.String("eni-0c0000000000000ff"), SourceDestCheck: &types.AttributeBooleanValue{Value: aws.Bool(false)},
	})
	simtest.WantCode(t, err, "InvalidNetworkInterfaceID.NotFound")
}

// ModifyNetworkInterfaceAttribute SecurityGroupId.N refuses groups of another
// VPC, like ModifyInstanceAttribute.
func TestModifyNetworkInterfaceAttributeRefusesGroupOfAnotherVPC(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 310})
	id := runOne(t, c, runIn(testSubnet))
	_, err := c.ModifyNetworkInterfaceAttribute(simtest.Ctx(t), &ec2.ModifyNetworkInterfaceAttributeInput{
		NetworkInterfaceId: aws.String(primaryENI(t, c, id)), Groups: []string{DefaultSecurityGroupID},
	})
	simtest.WantCode(t, err, "InvalidGroup.NotFound")
}

// The primary interface is deleted when its instance terminates
// (DeleteOnTermination is true for interfaces RunInstances creates), and its
// addresses go back to the subnet.
func TestTerminationDeletesThePrimaryInterface(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 311})
	id := runOne(t, c, runIn(testSubnet))
	eni := primaryENI(t, c, id)
	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatal(err)
	}
	if got := describeOne(t, c, id); got.State.Name != types.InstanceStateNameTerminated || len(got.NetworkInterfaces) != 0 {
		t.Fatalf("terminated instance = %s with interfaces %+v", got.State.Name, got.NetworkInterfaces)
	}
	_, err := c.DescribeNetworkInterfaces(simtest.Ctx(t), &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{eni}})
	simtest.WantCode(t, err, "InvalidNetworkInterfaceID.NotFound")
	if n := aws.ToInt32(describeSubnet(t, c, testSubnet).AvailableIpAddressCount); n != 251 {
		t.Fatalf("availableIpAddressCount = %d after termination, want 251", n)
	}
}
