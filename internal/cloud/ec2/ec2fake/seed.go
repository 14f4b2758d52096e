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

package ec2fake

import (
	"maps"
	"slices"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// The resources New seeds, named like the emulator's so that test fixtures read alike.
const (
	DefaultZone            = "us-east-1a"
	DefaultVPCID           = "vpc-0fake0000000000001"
	DefaultSubnetID        = "subnet-0fake00000000001"
	DefaultSecurityGroupID = "sg-0fake000000000001"
	DefaultImageID         = "ami-0fake000000000001"
	// AccountID owns the default image and every Elastic IP.
	AccountID = "123456789012"
)

// launchEpoch is the launch time of the first instance; each later launch is one
// second later, so that launch times are deterministic and ordered.
var launchEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// instance is what the fake knows of an instance: what DescribeInstances returns, and
// the attributes and launch request it does not.
type instance struct {
	ec2.Instance
	// req is the launch request, compared with a repeated RunInstance of the token.
	req              ec2.LaunchRequest
	protected        bool
	userData         string
	stopProtected    bool
	shutdownBehavior string
	credits          string
}

// volume is an EBS volume and the request it was created with.
type volume struct {
	ec2.Volume
	req ec2.VolumeRequest
}

// securityGroup and image keep the tags their ec2 types do not carry, which the
// selector queries match.
type securityGroup struct {
	ec2.SecurityGroup
	tags map[string]string
}

type image struct {
	ec2.Image
	tags map[string]string
}

func (f *Fake) seedDefaults() {
	f.AddSubnet(ec2.Subnet{ID: DefaultSubnetID, VPCID: DefaultVPCID, AvailabilityZone: DefaultZone,
		CIDR: "10.0.0.0/24", AvailableIPs: 250})
	f.AddSecurityGroup(ec2.SecurityGroup{ID: DefaultSecurityGroupID, Name: "default", VPCID: DefaultVPCID}, nil)
	f.AddImage(ec2.Image{ID: DefaultImageID, Name: "al2023-ami-fake", OwnerID: AccountID, OwnerAlias: "amazon",
		Architecture: "x86_64", CreationDate: launchEpoch.AddDate(0, -1, 0), RootDeviceName: "/dev/xvda"}, nil)
	for _, t := range []ec2.InstanceTypeInfo{
		{Name: "t3.micro", Architectures: []string{"x86_64"}, MemoryMiB: 1024, Burstable: true},
		{Name: "t3.small", Architectures: []string{"x86_64"}, MemoryMiB: 2048, Burstable: true},
		{Name: "t3.large", Architectures: []string{"x86_64"}, MemoryMiB: 8192, Burstable: true, HibernationSupported: true},
		{Name: "m5.large", Architectures: []string{"x86_64"}, MemoryMiB: 8192, HibernationSupported: true,
			ValidCores: []int32{1}, ValidThreadsPerCore: []int32{1, 2}},
	} {
		f.AddInstanceType(t)
	}
}

// AddSubnet adds or replaces a subnet.
func (f *Fake) AddSubnet(s ec2.Subnet) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s.Tags = maps.Clone(s.Tags)
	f.subnets = slices.DeleteFunc(f.subnets, func(o ec2.Subnet) bool { return o.ID == s.ID })
	f.subnets = append(f.subnets, s)
}

// AddSecurityGroup adds or replaces a security group, with the tags selectors match.
func (f *Fake) AddSecurityGroup(g ec2.SecurityGroup, tags map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.groups = slices.DeleteFunc(f.groups, func(o securityGroup) bool { return o.ID == g.ID })
	f.groups = append(f.groups, securityGroup{SecurityGroup: g, tags: maps.Clone(tags)})
}

// AddImage adds or replaces an image, with the tags image queries match.
func (f *Fake) AddImage(img ec2.Image, tags map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.images = slices.DeleteFunc(f.images, func(o image) bool { return o.ID == img.ID })
	f.images = append(f.images, image{Image: img, tags: maps.Clone(tags)})
}

// AddInstanceType adds or replaces an instance type.
func (f *Fake) AddInstanceType(t ec2.InstanceTypeInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.types[t.Name] = t
}

// AddInstance adds an instance as it is, for a test that starts from an instance the
// operator did not launch (adoption) or launched in an earlier life. An empty ID gets
// a new one, an empty State is running. It returns the ID.
func (f *Fake) AddInstance(in ec2.Instance) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if in.ID == "" {
		in.ID = f.newID("i")
	}
	if in.State == "" {
		in.State = ec2.StateRunning
	}
	if in.ClientToken != "" {
		f.tokens[in.ClientToken] = in.ID
	}
	if _, ok := f.instances[in.ID]; !ok {
		f.order = append(f.order, in.ID)
	}
	f.instances[in.ID] = &instance{Instance: cloneInstance(in), shutdownBehavior: "stop"}
	return in.ID
}

// SetState puts an instance in state at once, whatever its state was.
func (f *Fake) SetState(id, state string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if in, ok := f.instances[id]; ok {
		in.State = state
	}
}

// Advance ends every transition, as EC2 does after a while: pending instances run,
// stopping ones stop and shutting-down ones terminate (their delete-on-termination
// volumes go with them).
func (f *Fake) Advance() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range f.order {
		in := f.instances[id]
		switch in.State {
		case ec2.StatePending:
			in.State = ec2.StateRunning
		case ec2.StateStopping:
			in.State = ec2.StateStopped
		case ec2.StateShuttingDown:
			in.State = ec2.StateTerminated
			f.terminated(in)
		}
	}
}

// Forget removes an instance, as EC2 does about an hour after its termination: it is
// then not found at all. Its client token is forgotten too.
func (f *Fake) Forget(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if in, ok := f.instances[id]; ok {
		delete(f.tokens, in.ClientToken)
		delete(f.instances, id)
		f.order = slices.DeleteFunc(f.order, func(o string) bool { return o == id })
	}
}

// Instance returns a copy of an instance without logging a call, for a test's
// assertions.
func (f *Fake) Instance(id string) (ec2.Instance, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	in, ok := f.instances[id]
	if !ok {
		return ec2.Instance{}, false
	}
	return cloneInstance(in.Instance), true
}

// Volume returns a copy of a volume without logging a call.
func (f *Fake) Volume(id string) (ec2.Volume, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.volumes[id]
	if !ok {
		return ec2.Volume{}, false
	}
	return cloneVolume(v.Volume), true
}

// Address returns a copy of an Elastic IP without logging a call.
func (f *Fake) Address(allocationID string) (ec2.Address, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.addresses[allocationID]
	if !ok {
		return ec2.Address{}, false
	}
	return cloneAddress(*a), true
}

// cloneInstance copies the slices and maps of an instance, so that neither the test
// nor the code under test can change the fake's state through a returned value.
func cloneInstance(in ec2.Instance) ec2.Instance {
	in.SecurityGroupIDs = slices.Clone(in.SecurityGroupIDs)
	in.Tags = maps.Clone(in.Tags)
	if in.Tags == nil {
		in.Tags = map[string]string{}
	}
	in.VolumeIDs = slices.Clone(in.VolumeIDs)
	in.BlockDevices = slices.Clone(in.BlockDevices)
	nics := slices.Clone(in.NetworkInterfaces)
	for i := range nics {
		nics[i].PrivateIPs = slices.Clone(nics[i].PrivateIPs)
		nics[i].IPv6s = slices.Clone(nics[i].IPv6s)
	}
	in.NetworkInterfaces = nics
	if in.SourceDestCheck != nil {
		v := *in.SourceDestCheck
		in.SourceDestCheck = &v
	}
	return in
}

func cloneVolume(v ec2.Volume) ec2.Volume {
	v.Tags = maps.Clone(v.Tags)
	if v.Tags == nil {
		v.Tags = map[string]string{}
	}
	return v
}

func cloneAddress(a ec2.Address) ec2.Address {
	a.Tags = maps.Clone(a.Tags)
	if a.Tags == nil {
		a.Tags = map[string]string{}
	}
	return a
}

// AddSnapshot adds or replaces a snapshot volumes can be created from.
func (f *Fake) AddSnapshot(snap ec2.Snapshot) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.snapshots == nil {
		f.snapshots = map[string]ec2.Snapshot{}
	}
	f.snapshots[snap.ID] = snap
}
