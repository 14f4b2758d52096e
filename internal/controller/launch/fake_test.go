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

package launch

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// fakeEC2 is a function-field fake of EC2, what the launch phase may ask: a test sets
// the answers its decision needs, and any other call fails the test, so each test also
// proves which calls a decision makes. EC2's own behaviour (filters, idempotency,
// errors) is tested against the emulator; here only the phase's rules are.
type fakeEC2 struct {
	t     *testing.T
	calls []string

	runInstance    func(req ec2.LaunchRequest) (*ec2.Instance, error)
	getInstance    func(id string) (*ec2.Instance, error)
	findInstances  func(filter ec2.InstanceFilter) ([]ec2.Instance, error)
	ownedInstances func(namespace, name string) ([]ec2.Instance, error)
	// launchTurn is how long the client's RunInstances budget makes a launch wait.
	launchTurn time.Duration
}

var _ EC2 = (*fakeEC2)(nil)

// record notes a call, and fails the test when the fake has no answer for it.
func (f *fakeEC2) record(op string, answered bool) error {
	f.calls = append(f.calls, op)
	if !answered {
		f.t.Errorf("unexpected EC2 call %s", op)
		return fmt.Errorf("the test gave no answer to %s", op)
	}
	return nil
}

// ops lists the calls made, in order.
func (f *fakeEC2) ops() string { return strings.Join(f.calls, ",") }

// count is how many calls of op were made.
func (f *fakeEC2) count(op string) int {
	n := 0
	for _, c := range f.calls {
		if c == op {
			n++
		}
	}
	return n
}

func (f *fakeEC2) RunInstance(_ context.Context, req ec2.LaunchRequest) (*ec2.Instance, error) {
	if err := f.record("RunInstance", f.runInstance != nil); err != nil {
		return nil, err
	}
	return f.runInstance(req)
}

func (f *fakeEC2) RunInstances(_ context.Context, req ec2.LaunchRequest) ([]ec2.Instance, error) {
	return nil, f.record("RunInstances", false)
}

func (f *fakeEC2) GetInstance(_ context.Context, id string) (*ec2.Instance, error) {
	if err := f.record("GetInstance", f.getInstance != nil); err != nil {
		return nil, err
	}
	return f.getInstance(id)
}

func (f *fakeEC2) FindInstances(_ context.Context, filter ec2.InstanceFilter) ([]ec2.Instance, error) {
	if err := f.record("FindInstances", f.findInstances != nil); err != nil {
		return nil, err
	}
	return f.findInstances(filter)
}

func (f *fakeEC2) OwnedInstances(_ context.Context, namespace, name string) ([]ec2.Instance, error) {
	if err := f.record("OwnedInstances", f.ownedInstances != nil); err != nil {
		return nil, err
	}
	return f.ownedInstances(namespace, name)
}

func (f *fakeEC2) LaunchTurn(string, string) time.Duration { return f.launchTurn }
func (f *fakeEC2) LaunchBacklog() time.Duration            { return 0 }
func (f *fakeEC2) ChangedElsewhere(...string)              {}
func (f *fakeEC2) ExpectLookups([]string)                  {}

// The calls no decision under test makes.

func (f *fakeEC2) CancelSpotRequest(context.Context, string) error {
	return f.record("CancelSpotRequest", false)
}

func (f *fakeEC2) GetInstanceAttributes(context.Context, string) (*ec2.InstanceAttributes, error) {
	return nil, f.record("GetInstanceAttributes", false)
}

func (f *fakeEC2) FindImages(context.Context, ec2.ImageQuery) ([]ec2.Image, error) {
	return nil, f.record("FindImages", false)
}

func (f *fakeEC2) DescribeImage(context.Context, string) (*ec2.Image, error) {
	return nil, f.record("DescribeImage", false)
}

func (f *fakeEC2) InstanceType(context.Context, string) (*ec2.InstanceTypeInfo, error) {
	return nil, f.record("InstanceType", false)
}

func (f *fakeEC2) FindSubnets(context.Context, ec2.SubnetQuery) ([]ec2.Subnet, error) {
	return nil, f.record("FindSubnets", false)
}

func (f *fakeEC2) FindSecurityGroups(context.Context, ec2.SecurityGroupQuery) ([]ec2.SecurityGroup, error) {
	return nil, f.record("FindSecurityGroups", false)
}

func (f *fakeEC2) CreateTags(context.Context, []string, map[string]string) error {
	return f.record("CreateTags", false)
}

func (f *fakeEC2) DeleteTags(context.Context, []string, []string) error {
	return f.record("DeleteTags", false)
}

// holding makes the fake answer lookups from these instances as EC2 would: by ID, by
// client token and by tags (every tag equal), and the ownership listing with the live
// ones that carry the namespace and name.
func (f *fakeEC2) holding(instances ...ec2.Instance) *fakeEC2 {
	f.getInstance = func(id string) (*ec2.Instance, error) {
		for _, inst := range instances {
			if inst.ID == id {
				return &inst, nil
			}
		}
		return nil, fmt.Errorf("no instance %s in the test", id)
	}
	f.findInstances = func(filter ec2.InstanceFilter) ([]ec2.Instance, error) {
		var out []ec2.Instance
		for _, inst := range instances {
			if (filter.ClientToken == "" || inst.ClientToken == filter.ClientToken) && ec2.CarriesTags(inst.Tags, filter.Tags) {
				out = append(out, inst)
			}
		}
		return out, nil
	}
	f.ownedInstances = func(namespace, name string) ([]ec2.Instance, error) {
		var out []ec2.Instance
		for _, inst := range instances {
			live := inst.State != ec2.StateShuttingDown && inst.State != ec2.StateTerminated
			if live && ec2.OwnerTag(inst.Tags, ec2.TagOwnerNamespace) == namespace && ec2.OwnerTag(inst.Tags, ec2.TagOwnerName) == name {
				out = append(out, inst)
			}
		}
		return out, nil
	}
	return f
}

// instance is an instance as DescribeInstances returns it, launched at the given
// minute past the hour under token.
func instance(id, token string, minute int, state string, tags map[string]string) ec2.Instance {
	return ec2.Instance{ID: id, ClientToken: token, State: state, InstanceType: "t3.micro", Tags: maps.Clone(tags),
		LaunchTime: time.Date(2026, 12, 1, 10, minute, 0, 0, time.UTC)}
}
