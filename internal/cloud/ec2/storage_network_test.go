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

package ec2

import (
	"context"
	"maps"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// These tests drive the storage, address and network calls through the SDK against
// the emulator, so that EC2's parameters, answers and errors are exercised as they
// are in production.

func TestDataVolumesAreLaunchedTaggedAndReportedByDevice(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	req := basicLaunch("vols")
	req.Volumes = []VolumeRequest{
		{Device: "/dev/sdf", SizeGiB: 20, Type: "gp3", IOPS: 4000, Throughput: 250, DeleteOnTermination: true},
		{Device: "/dev/sdg", SizeGiB: 200, Type: "st1", DeleteOnTermination: false},
	}
	inst, err := e.client.RunInstance(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	inst = e.waitState(t, inst.ID, StateRunning)
	byDevice := map[string]BlockDevice{}
	for _, bd := range inst.BlockDevices {
		byDevice[bd.Device] = bd
	}
	f, g := byDevice["/dev/sdf"], byDevice["/dev/sdg"]
	if f.VolumeID == "" || !f.DeleteOnTermination || g.VolumeID == "" || g.DeleteOnTermination {
		t.Fatalf("block devices %+v", inst.BlockDevices)
	}
	vols, err := e.client.DescribeVolumes(context.Background(), []string{f.VolumeID, g.VolumeID, "vol-0000000000000dead"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vols) != 2 {
		t.Fatalf("DescribeVolumes returned %d volumes, want the 2 that exist (an unknown ID must not fail the batch)", len(vols))
	}
	if v := vols[f.VolumeID]; v.SizeGiB != 20 || v.Type != "gp3" || v.IOPS != 4000 || v.Throughput != 250 || v.Tags[TagOwnerUID] != "uid-vols" {
		t.Errorf("volume /dev/sdf = %+v", v)
	}
	if v := vols[g.VolumeID]; v.Type != "st1" || v.AttachedTo != inst.ID || v.Device != "/dev/sdg" {
		t.Errorf("volume /dev/sdg = %+v", v)
	}
}

func TestConcurrentVolumeLookupsShareOneDescribeVolumes(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	var ids []string
	for i := range 8 {
		req := basicLaunch("share-" + string(rune('a'+i)))
		req.Volumes = []VolumeRequest{{Device: "/dev/sdf", SizeGiB: 10, Type: "gp3", DeleteOnTermination: true}}
		inst, err := e.client.RunInstance(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, inst.BlockDevices[len(inst.BlockDevices)-1].VolumeID)
	}
	before := e.sim.Calls("DescribeVolumes")
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := e.client.DescribeVolumes(context.Background(), []string{id})
			if err != nil || len(got) != 1 {
				t.Errorf("DescribeVolumes(%s) = %v, %v", id, got, err)
			}
		}()
	}
	wg.Wait()
	if n := e.sim.Calls("DescribeVolumes") - before; n != 1 {
		t.Errorf("8 concurrent lookups made %d DescribeVolumes calls, want 1", n)
	}
}

func TestCreateVolumeWithTheSameTokenReturnsTheSameVolume(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	ctx := context.Background()
	req := VolumeRequest{Device: "/dev/sdf", SizeGiB: 10, Type: "gp3"}
	tags := OwnershipTags("ns", "web", "uid", "cluster-1")
	token := VolumeClientToken("uid", "i-0123456789abcdef0", 0, "us-east-1a", req, tags)
	if len(token) > 64 {
		t.Fatalf("token %q is longer than EC2's 64 characters", token)
	}
	if again := VolumeClientToken("uid", "i-0123456789abcdef0", 0, "us-east-1a", req, maps.Clone(tags)); again != token {
		t.Errorf("the same request got the tokens %q and %q", token, again)
	}
	a, err := e.client.CreateVolume(ctx, "us-east-1a", token, req, tags)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.client.CreateVolume(ctx, "us-east-1a", token, req, tags)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != b.ID || len(e.sim.Volumes()) != 1 {
		t.Errorf("a repeated CreateVolume made %s and %s (%d volumes)", a.ID, b.ID, len(e.sim.Volumes()))
	}
	if other := VolumeClientToken("uid", "i-0123456789abcdef0", 1, "us-east-1a", req, tags); other == token {
		t.Error("a volume re-added after a removal must get a new token")
	}
	// EC2 refuses a token reused with other parameters for ever: a request changed in
	// any of them needs a token of its own.
	bigger, encrypted, tagged := req, req, maps.Clone(tags)
	bigger.SizeGiB = 20
	encrypted.Encrypted = aws.Bool(false)
	tagged["team"] = "web"
	for name, other := range map[string]string{
		"size":       VolumeClientToken("uid", "i-0123456789abcdef0", 0, "us-east-1a", bigger, tags),
		"encryption": VolumeClientToken("uid", "i-0123456789abcdef0", 0, "us-east-1a", encrypted, tags),
		"tags":       VolumeClientToken("uid", "i-0123456789abcdef0", 0, "us-east-1a", req, tagged),
	} {
		if other == token {
			t.Errorf("a request with another %s got the same token", name)
		}
	}
	if _, err := e.client.CreateVolume(ctx, "us-east-1a", token, bigger, tags); awserrors.KindOf(err) != awserrors.KindIdempotencyConflict {
		t.Errorf("CreateVolume with the token of other parameters: %v, want an idempotency conflict", err)
	}
	if err := e.client.DeleteVolume(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.client.DeleteVolume(ctx, a.ID); err != nil {
		t.Errorf("deleting a deleted volume: %v, want success", err)
	}
}

func TestSnapshotOfAnotherRegionIsInvalidInput(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	req := basicLaunch("snap")
	req.Volumes = []VolumeRequest{{Device: "/dev/sdf", Type: "gp3", SnapshotID: "snap-0123456789abcdef0", DeleteOnTermination: true}}
	_, err := e.client.RunInstance(context.Background(), req)
	if awserrors.CodeOf(err) != "InvalidSnapshot.NotFound" || awserrors.KindOf(err) != awserrors.KindInvalidInput {
		t.Fatalf("got %v, want InvalidSnapshot.NotFound as invalid input", err)
	}
}

func TestElasticIPAllocateAssociateReleaseThroughTheSDK(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	ctx := context.Background()
	inst := e.launch(t, "eip")
	inst = e.waitState(t, inst.ID, StateRunning)
	tags := OwnershipTags("ns", "web", "uid-eip", "cluster-1")
	addr, err := e.client.AllocateAddress(ctx, "", tags)
	if err != nil {
		t.Fatal(err)
	}
	found, err := e.client.OwnedAddresses(ctx, "ns")
	if err != nil || len(found) != 1 || found[0].AllocationID != addr.AllocationID || found[0].Tags[TagOwnerUID] != "uid-eip" {
		t.Fatalf("OwnedAddresses of the namespace = %+v, %v", found, err)
	}
	assoc, err := e.client.AssociateAddress(ctx, addr.AllocationID, inst.ID, inst.NetworkInterfaces[0].ID)
	if err != nil || assoc == "" {
		t.Fatalf("AssociateAddress = %q, %v", assoc, err)
	}
	got, _ := e.client.DescribeAddresses(ctx, []string{addr.AllocationID})
	if a := got[addr.AllocationID]; a.AssociationID != assoc || a.InstanceID != inst.ID {
		t.Errorf("address after association = %+v", a)
	}
	// The instance now shows the Elastic IP as its public IP, owned by the account.
	seen, err := e.client.describeInstanceNow(ctx, inst.ID)
	if err != nil {
		t.Fatal(err)
	}
	if nic := seen.NetworkInterfaces[0]; nic.PublicIP != addr.PublicIP || nic.PublicIPOwner == "amazon" {
		t.Errorf("primary interface %+v, want public IP %s owned by the account", nic, addr.PublicIP)
	}

	// Taking an address from another association is refused, never done.
	other := e.waitState(t, e.launch(t, "eip-2").ID, StateRunning)
	_, err = e.client.AssociateAddress(ctx, addr.AllocationID, other.ID, other.NetworkInterfaces[0].ID)
	if awserrors.CodeOf(err) != "Resource.AlreadyAssociated" || awserrors.KindOf(err) != awserrors.KindTerminal {
		t.Errorf("associating an associated address: %v, want Resource.AlreadyAssociated", err)
	}
	if err := e.client.DisassociateAddress(ctx, assoc, inst.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.client.DisassociateAddress(ctx, assoc, inst.ID); err != nil {
		t.Errorf("disassociating twice: %v, want success", err)
	}
	if err := e.client.ReleaseAddress(ctx, addr.AllocationID); err != nil {
		t.Fatal(err)
	}
	if err := e.client.ReleaseAddress(ctx, addr.AllocationID); err != nil {
		t.Errorf("releasing twice: %v, want success", err)
	}
}

func TestAddressLimitIsACapacityError(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	e.sim.SetAddressLimit(1)
	if _, err := e.client.AllocateAddress(context.Background(), "", nil); err != nil {
		t.Fatal(err)
	}
	_, err := e.client.AllocateAddress(context.Background(), "", nil)
	if awserrors.CodeOf(err) != "AddressLimitExceeded" || awserrors.KindOf(err) != awserrors.KindCapacity {
		t.Errorf("got %v, want AddressLimitExceeded as a capacity error", err)
	}
}

func TestSubnetAndGroupQueriesFilterByTagsAndShareAnswers(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	e.sim.AddVPC("vpc-0000000000000aaaa", "10.0.0.0/16")
	e.sim.AddSubnetInVPC("subnet-0000000000000aaa1", "vpc-0000000000000aaaa", "us-east-1a", "10.0.1.0/24", map[string]string{"tier": "private"})
	e.sim.AddSubnetInVPC("subnet-0000000000000aaa2", "vpc-0000000000000aaaa", "us-east-1b", "10.0.2.0/28", map[string]string{"tier": "private"})
	e.sim.AddSubnetInVPC("subnet-0000000000000aaa3", "vpc-0000000000000aaaa", "us-east-1a", "10.0.3.0/24", map[string]string{"tier": "public"})
	e.sim.AddSecurityGroupInVPC("sg-0000000000000aaa1", "web", "vpc-0000000000000aaaa", map[string]string{"role": "web"})
	e.sim.AddSecurityGroupInVPC("sg-0000000000000aaa2", "db", "vpc-0000000000000aaaa", map[string]string{"role": "db"})
	ctx := context.Background()

	subnets, err := e.client.FindSubnets(ctx, SubnetQuery{Tags: map[string]string{"tier": "private"}})
	if err != nil || len(subnets) != 2 {
		t.Fatalf("FindSubnets(tier=private) = %+v, %v", subnets, err)
	}
	for _, s := range subnets {
		if s.VPCID != "vpc-0000000000000aaaa" || s.AvailableIPs <= 0 {
			t.Errorf("subnet %+v", s)
		}
	}
	zoned, err := e.client.FindSubnets(ctx, SubnetQuery{Tags: map[string]string{"tier": ""}, AvailabilityZone: "us-east-1a"})
	if err != nil || len(zoned) != 2 {
		t.Fatalf("FindSubnets(tier exists, us-east-1a) = %+v, %v", zoned, err)
	}
	calls := e.sim.Calls("DescribeSubnets")
	if _, err := e.client.FindSubnets(ctx, SubnetQuery{Tags: map[string]string{"tier": "private"}}); err != nil {
		t.Fatal(err)
	}
	if e.sim.Calls("DescribeSubnets") != calls {
		t.Error("the same query within the sharing window asked EC2 again")
	}

	groups, err := e.client.FindSecurityGroups(ctx, SecurityGroupQuery{VPCID: "vpc-0000000000000aaaa", Tags: map[string]string{"role": "web"}})
	if err != nil || len(groups) != 1 || groups[0].ID != "sg-0000000000000aaa1" {
		t.Fatalf("FindSecurityGroups(role=web) = %+v, %v", groups, err)
	}
	byName, err := e.client.FindSecurityGroups(ctx, SecurityGroupQuery{VPCID: "vpc-0000000000000aaaa", Names: []string{"db"}})
	if err != nil || len(byName) != 1 || byName[0].ID != "sg-0000000000000aaa2" {
		t.Fatalf("FindSecurityGroups(name=db) in a nondefault VPC = %+v, %v", byName, err)
	}
}

func TestLaunchAddressingAndSourceDestCheck(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	e.sim.AddVPC("vpc-0000000000000bbbb", "10.1.0.0/16")
	e.sim.AddSubnetInVPC("subnet-0000000000000bbb1", "vpc-0000000000000bbbb", "us-east-1a", "10.1.1.0/24", nil)
	e.sim.SetSubnetIPv6CIDR("subnet-0000000000000bbb1", "2600:1f18:1:100::/64")
	e.sim.AddSecurityGroupInVPC("sg-0000000000000bbb1", "app", "vpc-0000000000000bbbb", nil)
	ctx := context.Background()
	req := basicLaunch("addr")
	req.SubnetID, req.SecurityGroupIDs = "subnet-0000000000000bbb1", []string{"sg-0000000000000bbb1"}
	req.PrivateIPAddress, req.SecondaryPrivateIPAddressCount, req.IPv6AddressCount = "10.1.1.20", 2, 1
	inst, err := e.client.RunInstance(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	inst = e.waitState(t, inst.ID, StateRunning)
	nic := inst.NetworkInterfaces[0]
	if inst.PrivateIP != "10.1.1.20" || len(nic.PrivateIPs) != 3 || nic.PrivateIPs[0] != "10.1.1.20" || len(nic.IPv6s) != 1 {
		t.Errorf("addresses: private %s, interface %+v", inst.PrivateIP, nic)
	}
	if inst.SourceDestCheck == nil || !*inst.SourceDestCheck {
		t.Errorf("source/dest check %v, want on by default", inst.SourceDestCheck)
	}
	if err := e.client.SetSourceDestCheck(ctx, inst.ID, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.client.describeInstanceNow(ctx, inst.ID); got.SourceDestCheck == nil || *got.SourceDestCheck {
		t.Errorf("source/dest check after turning it off: %v", got.SourceDestCheck)
	}

	// The same address again is in use; one outside the subnet is invalid.
	dup := basicLaunch("addr-dup")
	dup.SubnetID, dup.SecurityGroupIDs, dup.PrivateIPAddress = req.SubnetID, req.SecurityGroupIDs, "10.1.1.20"
	if _, err := e.client.RunInstance(ctx, dup); awserrors.CodeOf(err) != "InvalidIPAddress.InUse" {
		t.Errorf("launching with an address in use: %v", err)
	}
	dup.ClientToken, dup.PrivateIPAddress = "addr-out", "10.9.9.9"
	if _, err := e.client.RunInstance(ctx, dup); awserrors.CodeOf(err) != "InvalidParameterValue" || awserrors.KindOf(err) != awserrors.KindInvalidInput {
		t.Errorf("launching with an address outside the subnet: %v", err)
	}

	// Explicit IPv6 addresses at the top level (no interface specification needed).
	v6 := basicLaunch("addr-v6")
	v6.SubnetID, v6.SecurityGroupIDs, v6.IPv6Addresses = req.SubnetID, req.SecurityGroupIDs, []string{"2600:1f18:1:100::abcd"}
	inst6, err := e.client.RunInstance(ctx, v6)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.waitState(t, inst6.ID, StateRunning).NetworkInterfaces[0].IPv6s; len(got) != 1 || got[0] != "2600:1f18:1:100::abcd" {
		t.Errorf("IPv6 addresses %v", got)
	}
	if in := buildRunInstancesInput(v6, ""); in.NetworkInterfaces != nil || len(in.Ipv6Addresses) != 1 || aws.ToString(in.Ipv6Addresses[0].Ipv6Address) != "2600:1f18:1:100::abcd" {
		t.Errorf("explicit IPv6 addresses sent as %+v / %+v", in.Ipv6Addresses, in.NetworkInterfaces)
	}
}

func TestOwnedAddressesIsOneListingPerNamespaceWithTheAllocationsSinceIt(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	ctx := context.Background()
	if _, err := e.client.OwnedAddresses(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	var allocated []string
	for i := range 3 {
		a, err := e.client.AllocateAddress(ctx, "", OwnershipTags("ns", "web", "uid-"+string(rune('a'+i)), "cluster-1"))
		if err != nil {
			t.Fatal(err)
		}
		allocated = append(allocated, a.AllocationID)
	}
	listed, err := e.client.OwnedAddresses(ctx, "ns")
	if err != nil || len(listed) != 3 {
		t.Fatalf("listing after three allocations = %+v, %v", listed, err)
	}
	if n := e.sim.Calls("DescribeAddresses"); n != 1 {
		t.Errorf("%d DescribeAddresses calls, want the one listing shared", n)
	}
	if err := e.client.ReleaseAddress(ctx, allocated[0]); err != nil {
		t.Fatal(err)
	}
	if listed, _ := e.client.OwnedAddresses(ctx, "ns"); len(listed) != 2 {
		t.Errorf("a released address is still listed: %+v", listed)
	}
	if other, _ := e.client.OwnedAddresses(ctx, "other"); len(other) != 0 {
		t.Errorf("another namespace lists %+v", other)
	}
}

func TestALostAllocationAnswerMakesTheNextListingAskAgain(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{MaxAttempts: 1})
	ctx := context.Background()
	if _, err := e.client.OwnedAddresses(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	// EC2 allocates, but the client hears an error.
	e.sim.InjectFault(ec2sim.Fault{Operation: "AllocateAddress", Code: "InternalError", AfterEffect: true, Times: 1})
	if _, err := e.client.AllocateAddress(ctx, "", OwnershipTags("ns", "web", "uid-lost", "cluster-1")); err == nil {
		t.Fatal("the injected error did not reach the caller")
	}
	listed, err := e.client.OwnedAddresses(ctx, "ns")
	if err != nil || len(listed) != 1 || listed[0].Tags[TagOwnerUID] != "uid-lost" {
		t.Errorf("listing after a lost answer = %+v, %v; want the address EC2 allocated", listed, err)
	}
}
