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
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// AssignPrivateIpAddresses and UnassignPrivateIpAddresses (EC2 API reference):
// secondary addresses come from the interface's subnet, by count or by name, and go
// back to it when unassigned; the primary address stays.
func TestSecondaryAddressesAreAssignedAndUnassignedInPlace(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 1})
	sim.AddVPC("vpc-0000000000000e001", "10.5.0.0/16")
	sim.AddSubnetInVPC("subnet-0000000000000e001", "vpc-0000000000000e001", "us-east-1a", "10.5.1.0/28", nil)
	sim.AddSecurityGroupInVPC("sg-0000000000000e001", "app", "vpc-0000000000000e001", nil)
	in := basicRun()
	in.SubnetId, in.SecurityGroupIds = aws.String("subnet-0000000000000e001"), []string{"sg-0000000000000e001"}
	id := runOne(t, c, in)
	inst := describeOne(t, c, id)
	eni := aws.ToString(inst.NetworkInterfaces[0].NetworkInterfaceId)
	free := func() int32 {
		out, err := c.DescribeSubnets(simtest.Ctx(t), &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-0000000000000e001"}})
		if err != nil {
			t.Fatal(err)
		}
		return aws.ToInt32(out.Subnets[0].AvailableIpAddressCount)
	}
	before := free()

	out, err := c.AssignPrivateIpAddresses(simtest.Ctx(t), &ec2.AssignPrivateIpAddressesInput{NetworkInterfaceId: aws.String(eni), SecondaryPrivateIpAddressCount: aws.Int32(2)})
	if err != nil || len(out.AssignedPrivateIpAddresses) != 2 {
		t.Fatalf("AssignPrivateIpAddresses = %+v, %v", out, err)
	}
	if got := free(); got != before-2 {
		t.Errorf("free addresses %d, want %d", got, before-2)
	}
	ips := describeOne(t, c, id).NetworkInterfaces[0].PrivateIpAddresses
	if len(ips) != 3 {
		t.Fatalf("interface addresses %+v", ips)
	}
	second := aws.ToString(out.AssignedPrivateIpAddresses[0].PrivateIpAddress)
	if _, err := c.UnassignPrivateIpAddresses(simtest.Ctx(t), &ec2.UnassignPrivateIpAddressesInput{NetworkInterfaceId: aws.String(eni), PrivateIpAddresses: []string{second}}); err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, a := range describeOne(t, c, id).NetworkInterfaces[0].PrivateIpAddresses {
		left = append(left, aws.ToString(a.PrivateIpAddress))
	}
	if len(left) != 2 || slices.Contains(left, second) || free() != before-1 {
		t.Errorf("after unassigning %s: %v, %d free", second, left, free())
	}
	primary := aws.ToString(inst.PrivateIpAddress)
	_, err = c.UnassignPrivateIpAddresses(simtest.Ctx(t), &ec2.UnassignPrivateIpAddressesInput{NetworkInterfaceId: aws.String(eni), PrivateIpAddresses: []string{primary}})
	simtest.WantCode(t, err, "InvalidParameterValue")
	// A /28 has 11 usable addresses: asking for more than are free is refused.
	_, err = c.AssignPrivateIpAddresses(simtest.Ctx(t), &ec2.AssignPrivateIpAddressesInput{NetworkInterfaceId: aws.String(eni), SecondaryPrivateIpAddressCount: aws.Int32(20)})
	simtest.WantCode(t, err, "InsufficientFreeAddressesInSubnet")
}
