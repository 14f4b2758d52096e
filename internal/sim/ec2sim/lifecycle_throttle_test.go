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

// The new actions draw from their category's bucket (ec2limits): the Modify*
// actions from the mutating bucket of 50, the Describe* actions from the
// non-mutating bucket of 100; every call, refused or not, is counted and logged.
func TestNewActionsAreThrottledByCategoryAndCounted(t *testing.T) {
	sim, c, _ := throttledEnv(t)
	id := runOne(t, c, runType("t3.micro"))
	for i := range 50 {
		if _, err := c.ModifyInstanceMaintenanceOptions(simtest.Ctx(t), &ec2.ModifyInstanceMaintenanceOptionsInput{InstanceId: aws.String(id),
			AutoRecovery: types.InstanceAutoRecoveryStateDefault}); err != nil {
			t.Fatalf("call %d of a full mutating bucket: %v", i+1, err)
		}
	}
	_, err := c.ModifyInstanceMaintenanceOptions(simtest.Ctx(t), &ec2.ModifyInstanceMaintenanceOptionsInput{InstanceId: aws.String(id)})
	simtest.WantCode(t, err, "RequestLimitExceeded")
	// ModifyPrivateDnsNameOptions and ModifyInstanceCreditSpecification have buckets of their own.
	if _, err := c.ModifyPrivateDnsNameOptions(simtest.Ctx(t), &ec2.ModifyPrivateDnsNameOptionsInput{InstanceId: aws.String(id),
		EnableResourceNameDnsARecord: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ModifyInstanceCreditSpecification(simtest.Ctx(t), &ec2.ModifyInstanceCreditSpecificationInput{InstanceCreditSpecifications: []types.InstanceCreditSpecificationRequest{
		{InstanceId: aws.String(id), CpuCredits: aws.String("standard")}}}); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, err := c.DescribeInstanceTypes(simtest.Ctx(t), &ec2.DescribeInstanceTypesInput{InstanceTypes: []types.InstanceType{"t3.micro"}}); err != nil {
			t.Fatalf("call %d of a full non-mutating bucket: %v", i+1, err)
		}
	}
	_, err = c.DescribeInstanceTypes(simtest.Ctx(t), &ec2.DescribeInstanceTypesInput{})
	simtest.WantCode(t, err, "RequestLimitExceeded")
	if _, err := c.DescribeInstanceCreditSpecifications(simtest.Ctx(t), &ec2.DescribeInstanceCreditSpecificationsInput{InstanceIds: []string{id}}); err != nil {
		t.Fatal(err)
	}
	refused := sim.ThrottledCalls()
	if refused["ModifyInstanceMaintenanceOptions"] != 1 || refused["DescribeInstanceTypes"] != 1 {
		t.Fatalf("ThrottledCalls = %v", refused)
	}
	if sim.Calls("ModifyInstanceMaintenanceOptions") != 51 || sim.Calls("DescribeInstanceTypes") != 101 ||
		sim.Calls("ModifyPrivateDnsNameOptions") != 1 || sim.Calls("DescribeInstanceCreditSpecifications") != 1 {
		t.Fatalf("call counts = %v", sim.CallCounts())
	}
}
