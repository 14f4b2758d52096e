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
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// allocate allocates one Elastic IP and returns its allocation id and address.
func allocate(t *testing.T, c *ec2.Client) (string, string) {
	t.Helper()
	out, err := c.AllocateAddress(simtest.Ctx(t), &ec2.AllocateAddressInput{Domain: types.DomainTypeVpc})
	if err != nil {
		t.Fatalf("AllocateAddress: %v", err)
	}
	return aws.ToString(out.AllocationId), aws.ToString(out.PublicIp)
}

// associate associates an Elastic IP with an instance and returns the association id.
func associate(t *testing.T, c *ec2.Client, allocationID, instanceID string) string {
	t.Helper()
	out, err := c.AssociateAddress(simtest.Ctx(t), &ec2.AssociateAddressInput{AllocationId: aws.String(allocationID), InstanceId: aws.String(instanceID)})
	if err != nil {
		t.Fatalf("AssociateAddress: %v", err)
	}
	return aws.ToString(out.AssociationId)
}

// describeAddress returns one Elastic IP by allocation id.
func describeAddress(t *testing.T, c *ec2.Client, allocationID string) types.Address {
	t.Helper()
	out, err := c.DescribeAddresses(simtest.Ctx(t), &ec2.DescribeAddressesInput{AllocationIds: []string{allocationID}})
	if err != nil || len(out.Addresses) != 1 {
		t.Fatalf("DescribeAddresses(%s): %v %+v", allocationID, err, out)
	}
	return out.Addresses[0]
}

// AllocateAddress returns a vpc-domain address from Amazon's pool with an
// eipalloc- allocation id; TagSpecification elastic-ip tags it, and
// DescribeAddresses lists it unassociated.
func TestAllocateAddressReturnsATaggedVPCAddress(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 400})
	out, err := c.AllocateAddress(simtest.Ctx(t), &ec2.AllocateAddressInput{
		Domain:            types.DomainTypeVpc,
		TagSpecifications: []types.TagSpecification{{ResourceType: types.ResourceTypeElasticIp, Tags: []types.Tag{{Key: aws.String("Name"), Value: aws.String("ingress")}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := aws.ToString(out.AllocationId)
	if !strings.HasPrefix(id, "eipalloc-") || out.Domain != types.DomainTypeVpc || aws.ToString(out.PublicIpv4Pool) != "amazon" ||
		aws.ToString(out.NetworkBorderGroup) != DefaultRegion || aws.ToString(out.PublicIp) == "" {
		t.Fatalf("allocation = %+v", out)
	}
	a := describeAddress(t, c, id)
	if aws.ToString(a.PublicIp) != aws.ToString(out.PublicIp) || a.AssociationId != nil || len(a.Tags) != 1 || aws.ToString(a.Tags[0].Value) != "ingress" {
		t.Fatalf("described = %+v", a)
	}
	if rec, ok := sim.Address(id); !ok || rec.PublicIP != aws.ToString(out.PublicIp) || rec.Tags["Name"] != "ingress" {
		t.Fatalf("Address(%s) = %+v %v", id, rec, ok)
	}
	if n := len(sim.Addresses()); n != 1 {
		t.Fatalf("Addresses() has %d entries", n)
	}
	_, err = c.AllocateAddress(simtest.Ctx(t), &ec2.AllocateAddressInput{TagSpecifications: []types.TagSpecification{{ResourceType: types.ResourceTypeInstance, Tags: []types.Tag{{Key: aws.String("a"), Value: aws.String("b")}}}}})
	simtest.WantCode(t, err, "InvalidParameterValue")
}

// "By default, all AWS accounts have a quota of five (5) Elastic IP
// addresses per Region" (EC2 User Guide, "Elastic IP address quota"); over
// it AllocateAddress fails with "AddressLimitExceeded: The maximum number of
// addresses has been reached." Releasing one makes room again.
func TestAllocateAddressEnforcesTheElasticIPQuota(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 401})
	var first string
	for i := range 5 {
		id, _ := allocate(t, c)
		if i == 0 {
			first = id
		}
	}
	_, err := c.AllocateAddress(simtest.Ctx(t), &ec2.AllocateAddressInput{Domain: types.DomainTypeVpc})
	simtest.WantCode(t, err, "AddressLimitExceeded")
	if simtest.ErrMessage(err) != "The maximum number of addresses has been reached." {
		t.Errorf("message = %q", simtest.ErrMessage(err))
	}
	if _, err := c.ReleaseAddress(simtest.Ctx(t), &ec2.ReleaseAddressInput{AllocationId: aws.String(first)}); err != nil {
		t.Fatal(err)
	}
	allocate(t, c)
	sim.SetAddressLimit(7)
	allocate(t, c)
	allocate(t, c)
	_, err = c.AllocateAddress(simtest.Ctx(t), &ec2.AllocateAddressInput{})
	simtest.WantCode(t, err, "AddressLimitExceeded")
}

// AllocateAddress PublicIpv4Pool: "amazon" or a BYOIP pool the account has;
// an unknown pool fails with InvalidPublicIpv4PoolID.NotFound.
func TestAllocateAddressFromAPublicIPv4Pool(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 402})
	const pool = "ipv4pool-ec2-0123456789abcdef0"
	_, err := c.AllocateAddress(simtest.Ctx(t), &ec2.AllocateAddressInput{PublicIpv4Pool: aws.String(pool)})
	simtest.WantCode(t, err, "InvalidPublicIpv4PoolID.NotFound")
	sim.AddPublicIPv4Pool(pool)
	out, err := c.AllocateAddress(simtest.Ctx(t), &ec2.AllocateAddressInput{PublicIpv4Pool: aws.String(pool)})
	if err != nil || aws.ToString(out.PublicIpv4Pool) != pool {
		t.Fatalf("allocation from %s: %v %+v", pool, err, out)
	}
}

// DescribeAddresses refuses an unknown allocation id with
// InvalidAllocationID.NotFound and filters by allocation-id, association-id,
// instance-id, network-interface-id, private-ip-address, public-ip, domain,
// tag:<key> and tag-key. Elastic IPs are taggable by CreateTags.
func TestDescribeAddressesFiltersAndUnknownIDs(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 403})
	inst := runOne(t, c, basicRun())
	a, ipA := allocate(t, c)
	b, _ := allocate(t, c)
	assoc := associate(t, c, a, inst)
	if _, err := c.CreateTags(simtest.Ctx(t), &ec2.CreateTagsInput{Resources: []string{b}, Tags: []types.Tag{{Key: aws.String("Spare"), Value: aws.String("yes")}}}); err != nil {
		t.Fatal(err)
	}
	got := describeOne(t, c, inst)
	eni, privateIP := aws.ToString(got.NetworkInterfaces[0].NetworkInterfaceId), aws.ToString(got.PrivateIpAddress)
	cases := []struct {
		name, value string
		want        string
	}{
		{"allocation-id", b, b},
		{"association-id", assoc, a},
		{"instance-id", inst, a},
		{"network-interface-id", eni, a},
		{"private-ip-address", privateIP, a},
		{"public-ip", ipA, a},
		{"domain", "vpc", a + "," + b},
		{"tag:Spare", "yes", b},
		{"tag-key", "Spare", b},
	}
	for _, tc := range cases {
		out, err := c.DescribeAddresses(simtest.Ctx(t), &ec2.DescribeAddressesInput{Filters: []types.Filter{{Name: aws.String(tc.name), Values: []string{tc.value}}}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var ids []string
		for _, x := range out.Addresses {
			ids = append(ids, aws.ToString(x.AllocationId))
		}
		if strings.Join(ids, ",") != tc.want {
			t.Errorf("%s=%s: got %v, want %s", tc.name, tc.value, ids, tc.want)
		}
	}
	out, err := c.DescribeAddresses(simtest.Ctx(t), &ec2.DescribeAddressesInput{PublicIps: []string{ipA}})
	if err != nil || len(out.Addresses) != 1 || aws.ToString(out.Addresses[0].AssociationId) != assoc ||
		aws.ToString(out.Addresses[0].InstanceId) != inst || aws.ToString(out.Addresses[0].NetworkInterfaceOwnerId) != DefaultAccountID {
		t.Fatalf("PublicIp=%s: %v %+v", ipA, err, out)
	}
	_, err = c.DescribeAddresses(simtest.Ctx(t), &ec2.DescribeAddressesInput{AllocationIds: []string{"eipalloc-0c0000000000000ff"}})
	simtest.WantCode(t, err, "InvalidAllocationID.NotFound")
}

// Associating an Elastic IP with an instance releases its auto-assigned
// public IPv4 address; the Elastic IP becomes the instance's public IP,
// owned by the account ("Elastic IP addresses", EC2 User Guide), and the
// interface's association names the allocation and association ids.
func TestAssociateAddressReplacesTheAutoAssignedPublicIP(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 404})
	inst := runOne(t, c, basicRun())
	before := describeOne(t, c, inst)
	if aws.ToString(before.PublicIpAddress) == "" {
		t.Fatal("a default subnet maps a public IP on launch")
	}
	alloc, ip := allocate(t, c)
	assoc := associate(t, c, alloc, inst)
	if !strings.HasPrefix(assoc, "eipassoc-") {
		t.Fatalf("association id %q", assoc)
	}
	got := describeOne(t, c, inst)
	ni := got.NetworkInterfaces[0]
	if aws.ToString(got.PublicIpAddress) != ip || aws.ToString(ni.Association.PublicIp) != ip || aws.ToString(ni.Association.IpOwnerId) != DefaultAccountID ||
		aws.ToString(ni.PrivateIpAddresses[0].Association.PublicIp) != ip {
		t.Fatalf("public IP = %s, interface association = %+v", aws.ToString(got.PublicIpAddress), ni.Association)
	}
	if !strings.Contains(aws.ToString(got.PublicDnsName), strings.ReplaceAll(ip, ".", "-")) {
		t.Errorf("public DNS name %s does not follow the Elastic IP", aws.ToString(got.PublicDnsName))
	}
	eni := describeENI(t, c, aws.ToString(ni.NetworkInterfaceId))
	if aws.ToString(eni.Association.AllocationId) != alloc || aws.ToString(eni.Association.AssociationId) != assoc || aws.ToString(eni.Association.PublicIp) != ip {
		t.Fatalf("DescribeNetworkInterfaces association = %+v", eni.Association)
	}
	if rec, _ := sim.Address(alloc); rec.InstanceID != inst || rec.AssociationID != assoc || rec.PrivateIP != aws.ToString(got.PrivateIpAddress) {
		t.Fatalf("Address(%s) = %+v", alloc, rec)
	}
	again := associate(t, c, alloc, inst)
	if again != assoc {
		t.Errorf("repeating the association (idempotent) returned %s, want %s", again, assoc)
	}
}

// AssociateAddress NetworkInterfaceId and PrivateIpAddress: an Elastic IP
// can go to a secondary private address of an interface.
func TestAssociateAddressWithASecondaryPrivateIP(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 405})
	in := basicRun()
	in.SubnetId = nil
	in.NetworkInterfaces = []types.InstanceNetworkInterfaceSpecification{{DeviceIndex: aws.Int32(0), SubnetId: aws.String(testSubnet), SecondaryPrivateIpAddressCount: aws.Int32(1)}}
	inst := runOne(t, c, in)
	eni := primaryENI(t, c, inst)
	alloc, ip := allocate(t, c)
	secondary := aws.ToString(describeENI(t, c, eni).PrivateIpAddresses[1].PrivateIpAddress)
	if _, err := c.AssociateAddress(simtest.Ctx(t), &ec2.AssociateAddressInput{AllocationId: aws.String(alloc), NetworkInterfaceId: aws.String(eni), PrivateIpAddress: aws.String(secondary)}); err != nil {
		t.Fatal(err)
	}
	got := describeOne(t, c, inst)
	if got.PublicIpAddress != nil {
		t.Errorf("the instance's public IP follows its primary address only, got %s", aws.ToString(got.PublicIpAddress))
	}
	if a := got.NetworkInterfaces[0].PrivateIpAddresses[1].Association; a == nil || aws.ToString(a.PublicIp) != ip {
		t.Fatalf("secondary association = %+v", a)
	}
	_, err := c.AssociateAddress(simtest.Ctx(t), &ec2.AssociateAddressInput{AllocationId: aws.String(alloc), InstanceId: aws.String(inst), NetworkInterfaceId: aws.String(eni)})
	simtest.WantCode(t, err, "InvalidParameterCombination")
}

// EC2 associates Elastic IPs with running or stopped instances only; a
// pending one fails with "InvalidInstanceID: The pending instance '…' is not
// in a valid state for this operation."
func TestAssociateAddressRefusesAPendingInstance(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 406, PendingDuration: time.Hour})
	inst := runOne(t, c, basicRun())
	alloc, _ := allocate(t, c)
	_, err := c.AssociateAddress(simtest.Ctx(t), &ec2.AssociateAddressInput{AllocationId: aws.String(alloc), InstanceId: aws.String(inst)})
	simtest.WantCode(t, err, "InvalidInstanceID")
	if simtest.ErrMessage(err) != "The pending instance '"+inst+"' is not in a valid state for this operation." {
		t.Errorf("message = %q", simtest.ErrMessage(err))
	}
	_, err = c.AssociateAddress(simtest.Ctx(t), &ec2.AssociateAddressInput{AllocationId: aws.String("eipalloc-0c0000000000000ff"), InstanceId: aws.String(inst)})
	simtest.WantCode(t, err, "InvalidAllocationID.NotFound")
}

// AssociateAddress AllowReassociation: "Reassociation is automatic, but you
// can specify false to ensure the operation fails if the Elastic IP address
// is already associated with another resource" (API reference), which
// fails with Resource.AlreadyAssociated.
func TestAssociateAddressAlreadyAssociatedElsewhere(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 407})
	first := runOne(t, c, basicRun())
	second := runOne(t, c, basicRun())
	alloc, ip := allocate(t, c)
	assoc := associate(t, c, alloc, first)
	_, err := c.AssociateAddress(simtest.Ctx(t), &ec2.AssociateAddressInput{AllocationId: aws.String(alloc), InstanceId: aws.String(second), AllowReassociation: aws.Bool(false)})
	simtest.WantCode(t, err, "Resource.AlreadyAssociated")
	if simtest.ErrMessage(err) != "resource "+alloc+" is already associated with associate-id "+assoc {
		t.Errorf("message = %q", simtest.ErrMessage(err))
	}
	moved, err := c.AssociateAddress(simtest.Ctx(t), &ec2.AssociateAddressInput{AllocationId: aws.String(alloc), InstanceId: aws.String(second), AllowReassociation: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(moved.AssociationId) == assoc {
		t.Error("reassociation kept the old association id")
	}
	if got := describeOne(t, c, second); aws.ToString(got.PublicIpAddress) != ip {
		t.Fatalf("second instance public IP = %s, want %s", aws.ToString(got.PublicIpAddress), ip)
	}
	if got := describeOne(t, c, first); aws.ToString(got.PublicIpAddress) == ip || got.PublicIpAddress == nil {
		t.Fatalf("first instance public IP = %s, want a new auto-assigned one", aws.ToString(got.PublicIpAddress))
	}
}

// After DisassociateAddress an instance whose primary interface got a public
// IPv4 address at launch "receives a new public IPv4 address" (EC2 User
// Guide, "Public IPv4 addresses"); one launched without a public IP has
// none. DisassociateAddress is idempotent, but an association id that never
// existed fails with InvalidAssociationID.NotFound.
func TestDisassociateAddress(t *testing.T) {
	_, c := newVPCEnv(t, Config{Seed: 408})
	public := runOne(t, c, basicRun())
	private := runOne(t, c, runIn(testSubnet))
	oldIP := aws.ToString(describeOne(t, c, public).PublicIpAddress)
	a, ipA := allocate(t, c)
	b, _ := allocate(t, c)
	assocA := associate(t, c, a, public)
	assocB := associate(t, c, b, private)
	for _, id := range []string{assocA, assocB} {
		if _, err := c.DisassociateAddress(simtest.Ctx(t), &ec2.DisassociateAddressInput{AssociationId: aws.String(id)}); err != nil {
			t.Fatal(err)
		}
	}
	got := describeOne(t, c, public)
	if ip := aws.ToString(got.PublicIpAddress); ip == "" || ip == ipA || ip == oldIP {
		t.Fatalf("public IP after disassociation = %q, want a new auto-assigned address", ip)
	}
	if aws.ToString(got.NetworkInterfaces[0].Association.IpOwnerId) != "amazon" {
		t.Errorf("association owner = %s, want amazon", aws.ToString(got.NetworkInterfaces[0].Association.IpOwnerId))
	}
	if got := describeOne(t, c, private); got.PublicIpAddress != nil || got.NetworkInterfaces[0].Association != nil {
		t.Fatalf("instance without a launch public IP has %s after disassociation", aws.ToString(got.PublicIpAddress))
	}
	if addr := describeAddress(t, c, a); addr.AssociationId != nil || addr.InstanceId != nil {
		t.Fatalf("address still associated: %+v", addr)
	}
	if _, err := c.DisassociateAddress(simtest.Ctx(t), &ec2.DisassociateAddressInput{AssociationId: aws.String(assocA)}); err != nil {
		t.Fatalf("repeating DisassociateAddress (idempotent): %v", err)
	}
	_, err := c.DisassociateAddress(simtest.Ctx(t), &ec2.DisassociateAddressInput{AssociationId: aws.String("eipassoc-0c0000000000000ff")})
	simtest.WantCode(t, err, "InvalidAssociationID.NotFound")
}

// ReleaseAddress: "[Nondefault VPC] You must disassociate the Elastic IP
// address before you can release it. Otherwise, Amazon EC2 returns an error
// (InvalidIPAddress.InUse)"; "[Default VPC] Releasing an Elastic IP address
// automatically disassociates it from any instance that it's associated with."
func TestReleaseAddress(t *testing.T) {
	sim, c := newVPCEnv(t, Config{Seed: 409})
	inVPC := runOne(t, c, runIn(testSubnet))
	inDefault := runOne(t, c, basicRun())
	a, _ := allocate(t, c)
	b, ipB := allocate(t, c)
	associate(t, c, a, inVPC)
	associate(t, c, b, inDefault)
	_, err := c.ReleaseAddress(simtest.Ctx(t), &ec2.ReleaseAddressInput{AllocationId: aws.String(a)})
	simtest.WantCode(t, err, "InvalidIPAddress.InUse")
	if _, ok := sim.Address(a); !ok {
		t.Fatal("a refused release removed the address")
	}
	if _, err := c.ReleaseAddress(simtest.Ctx(t), &ec2.ReleaseAddressInput{AllocationId: aws.String(b)}); err != nil {
		t.Fatalf("release in the default VPC: %v", err)
	}
	if got := describeOne(t, c, inDefault); aws.ToString(got.PublicIpAddress) == ipB {
		t.Fatal("the released address is still the instance's public IP")
	}
	_, err = c.DescribeAddresses(simtest.Ctx(t), &ec2.DescribeAddressesInput{AllocationIds: []string{b}})
	simtest.WantCode(t, err, "InvalidAllocationID.NotFound")
	_, err = c.ReleaseAddress(simtest.Ctx(t), &ec2.ReleaseAddressInput{AllocationId: aws.String(b)})
	simtest.WantCode(t, err, "InvalidAllocationID.NotFound")
}

// "When you stop an instance, its Elastic IP address remains associated"
// (VPC) and it keeps it when it starts again; termination disassociates the
// Elastic IP, which stays allocated to the account ("Elastic IP addresses",
// EC2 User Guide).
func TestElasticIPSurvivesStopAndIsDisassociatedAtTermination(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 410})
	inst := runOne(t, c, basicRun())
	alloc, ip := allocate(t, c)
	associate(t, c, alloc, inst)
	if _, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{inst}}); err != nil {
		t.Fatal(err)
	}
	if got := describeOne(t, c, inst); got.State.Name != types.InstanceStateNameStopped || aws.ToString(got.PublicIpAddress) != ip {
		t.Fatalf("stopped instance %s has public IP %s, want %s", got.State.Name, aws.ToString(got.PublicIpAddress), ip)
	}
	if _, err := c.StartInstances(simtest.Ctx(t), &ec2.StartInstancesInput{InstanceIds: []string{inst}}); err != nil {
		t.Fatal(err)
	}
	if got := describeOne(t, c, inst); aws.ToString(got.PublicIpAddress) != ip {
		t.Fatalf("restarted instance public IP = %s, want %s", aws.ToString(got.PublicIpAddress), ip)
	}
	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{inst}}); err != nil {
		t.Fatal(err)
	}
	if got := describeOne(t, c, inst); got.State.Name != types.InstanceStateNameTerminated || got.PublicIpAddress != nil {
		t.Fatalf("terminated instance %s has public IP %s", got.State.Name, aws.ToString(got.PublicIpAddress))
	}
	rec, ok := sim.Address(alloc)
	if !ok || rec.AssociationID != "" || rec.InstanceID != "" || rec.PublicIP != ip {
		t.Fatalf("after termination Address(%s) = %+v %v, want allocated and unassociated", alloc, rec, ok)
	}
}
