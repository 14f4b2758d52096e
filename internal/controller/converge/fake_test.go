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

package converge

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// fakeEC2 is a fake of EC2, what converge may ask, for the aspects' rule tests. It
// answers the power, settings and tag calls those tests make, recording each with its
// arguments, and fails the ones named in fail. Every other method is the embedded nil
// interface's, so a call the test did not plan for panics and fails the test. EC2's
// own behaviour is tested against the emulator; here only converge's rules are.
type fakeEC2 struct {
	EC2
	calls []string
	// fail answers a call of this operation with this error.
	fail map[string]error
}

// record notes a call with its arguments and returns the planned answer.
func (f *fakeEC2) record(op string, args ...any) error {
	f.calls = append(f.calls, fmt.Sprintf("%s%v", op, args))
	return f.fail[op]
}

// ops lists the operations called, in order, without their arguments.
func (f *fakeEC2) ops() string {
	var ops []string
	for _, c := range f.calls {
		ops = append(ops, strings.SplitN(c, "[", 2)[0])
	}
	return strings.Join(ops, ",")
}

// called lists the calls of op, with their arguments.
func (f *fakeEC2) called(op string) []string {
	return slices.DeleteFunc(slices.Clone(f.calls), func(c string) bool { return strings.SplitN(c, "[", 2)[0] != op })
}

func (f *fakeEC2) StartInstance(_ context.Context, id string) error {
	return f.record("StartInstance", id)
}
func (f *fakeEC2) StopInstance(_ context.Context, id string) error {
	return f.record("StopInstance", id)
}
func (f *fakeEC2) HibernateInstance(_ context.Context, id string) error {
	return f.record("HibernateInstance", id)
}

func (f *fakeEC2) ModifyInstanceType(_ context.Context, id, instanceType string) error {
	return f.record("ModifyInstanceType", id, instanceType)
}

func (f *fakeEC2) ModifyTerminationProtection(_ context.Context, id string, enabled bool) error {
	return f.record("ModifyTerminationProtection", id, enabled)
}

func (f *fakeEC2) SetDetailedMonitoring(_ context.Context, id string, enabled bool) error {
	return f.record("SetDetailedMonitoring", id, enabled)
}

func (f *fakeEC2) CreateTags(_ context.Context, ids []string, tags map[string]string) error {
	return f.record("CreateTags", ids, tags)
}

func (f *fakeEC2) DeleteTags(_ context.Context, ids []string, keys []string) error {
	return f.record("DeleteTags", ids, keys)
}

// runningInstance is an instance as DescribeInstances returns it for the spec: its
// type, the default group and the metadata options launched with.
func runningInstance(spec ec2.MetadataOptions, instanceType, state string) *ec2.Instance {
	return &ec2.Instance{ID: "i-0123456789abcdef0", State: state, InstanceType: instanceType, SubnetID: "subnet-1", VPCID: "vpc-1",
		AvailabilityZone: "us-east-1a", SecurityGroupIDs: []string{defaultGroup}, MetadataOptions: spec, Tags: map[string]string{}}
}

// defaultGroup is the security group the instances of these tests are in.
const defaultGroup = "sg-0123456789abcdef0"
