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

// runType is basicRun with another instance type.
func runType(it types.InstanceType) *ec2.RunInstancesInput {
	in := basicRun()
	in.InstanceType = it
	return in
}

// CPU options are validated against the type's valid cores and threads, both
// must be given, T2 refuses them, and DescribeInstances reports them (or the
// type's defaults).
func TestRunInstancesCPUOptions(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 20})
	in := runType("c5.xlarge")
	in.CpuOptions = &types.CpuOptionsRequest{CoreCount: aws.Int32(2), ThreadsPerCore: aws.Int32(1)}
	id := runOne(t, c, in)
	if o := describeOne(t, c, id).CpuOptions; o == nil || aws.ToInt32(o.CoreCount) != 2 || aws.ToInt32(o.ThreadsPerCore) != 1 {
		t.Fatalf("cpuOptions = %+v", o)
	}
	def := runOne(t, c, runType("m5.large"))
	if o := describeOne(t, c, def).CpuOptions; aws.ToInt32(o.CoreCount) != 1 || aws.ToInt32(o.ThreadsPerCore) != 2 {
		t.Fatalf("default cpuOptions = %+v", o)
	}

	bad := []struct {
		it       types.InstanceType
		opts     *types.CpuOptionsRequest
		wantCode string
	}{
		{"c5.xlarge", &types.CpuOptionsRequest{CoreCount: aws.Int32(1), ThreadsPerCore: aws.Int32(2)}, "InvalidParameterValue"}, // c5.xlarge: cores 2 only
		{"m7g.large", &types.CpuOptionsRequest{CoreCount: aws.Int32(1), ThreadsPerCore: aws.Int32(2)}, "InvalidParameterValue"}, // Graviton: 1 thread
		{"c5.xlarge", &types.CpuOptionsRequest{CoreCount: aws.Int32(2)}, "MissingParameter"},
		{"t2.micro", &types.CpuOptionsRequest{CoreCount: aws.Int32(1), ThreadsPerCore: aws.Int32(1)}, "InvalidParameterCombination"},
	}
	for _, b := range bad {
		in := runType(b.it)
		in.CpuOptions = b.opts
		_, err := c.RunInstances(simtest.Ctx(t), in)
		simtest.WantCode(t, err, b.wantCode)
	}
}

// Changing the instance type resets the CPU options to the new type's
// defaults ("Rules for specifying CPU options").
func TestInstanceTypeChangeResetsCPUOptions(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 21})
	in := runType("m6i.xlarge")
	in.CpuOptions = &types.CpuOptionsRequest{CoreCount: aws.Int32(1), ThreadsPerCore: aws.Int32(1)}
	id := runOne(t, c, in)
	if err := sim.StopInstance(id); err != nil {
		t.Fatal(err)
	}
	describeOne(t, c, id) // completes the stop
	if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{InstanceId: aws.String(id),
		InstanceType: &types.AttributeValue{Value: aws.String("m6i.2xlarge")}}); err != nil {
		t.Fatal(err)
	}
	if o := describeOne(t, c, id).CpuOptions; aws.ToInt32(o.CoreCount) != 4 || aws.ToInt32(o.ThreadsPerCore) != 2 {
		t.Fatalf("cpuOptions after resize = %+v", o)
	}
}

// creditsOf returns DescribeInstanceCreditSpecifications' answer by instance.
func creditsOf(t *testing.T, c *ec2.Client, ids ...string) map[string]string {
	t.Helper()
	out, err := c.DescribeInstanceCreditSpecifications(simtest.Ctx(t), &ec2.DescribeInstanceCreditSpecificationsInput{InstanceIds: ids})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, s := range out.InstanceCreditSpecifications {
		m[aws.ToString(s.InstanceId)] = aws.ToString(s.CpuCredits)
	}
	return m
}

// Burstable instances default to standard (T2) or unlimited (T3, T3a, T4g),
// take an explicit option, and non-burstable types refuse one and report
// standard.
func TestCreditSpecificationAtLaunch(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 22})
	t2 := runOne(t, c, runType("t2.micro"))
	t3 := runOne(t, c, runType("t3.micro"))
	in := runType("t3.small")
	in.CreditSpecification = &types.CreditSpecificationRequest{CpuCredits: aws.String("standard")}
	t3s := runOne(t, c, in)
	m5 := runOne(t, c, runType("m5.large"))
	got := creditsOf(t, c, t2, t3, t3s, m5)
	want := map[string]string{t2: "standard", t3: "unlimited", t3s: "standard", m5: "standard"}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s credits = %q, want %q", id, got[id], w)
		}
	}
	in = runType("m5.large")
	in.CreditSpecification = &types.CreditSpecificationRequest{CpuCredits: aws.String("unlimited")}
	_, err := c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InstanceCreditSpecification.NotSupported")
	in = runType("t3.micro")
	in.CreditSpecification = &types.CreditSpecificationRequest{CpuCredits: aws.String("turbo")}
	_, err = c.RunInstances(simtest.Ctx(t), in)
	simtest.WantCode(t, err, "InvalidParameterValue")

	// Without ids, the unlimited instances are listed.
	out, err := c.DescribeInstanceCreditSpecifications(simtest.Ctx(t), &ec2.DescribeInstanceCreditSpecificationsInput{})
	if err != nil || len(out.InstanceCreditSpecifications) != 1 || aws.ToString(out.InstanceCreditSpecifications[0].InstanceId) != t3 {
		t.Fatalf("unfiltered = %+v, %v", out, err)
	}
}

// ModifyInstanceCreditSpecification reports each instance as successful or
// unsuccessful with the codes the API reference lists.
func TestModifyInstanceCreditSpecification(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 23})
	t3 := runOne(t, c, runType("t3.micro"))
	m5 := runOne(t, c, runType("m5.large"))
	gone := runOne(t, c, runType("t3.micro"))
	if err := sim.TerminateInstance(gone); err != nil {
		t.Fatal(err)
	}
	spec := func(id, v string) types.InstanceCreditSpecificationRequest {
		return types.InstanceCreditSpecificationRequest{InstanceId: aws.String(id), CpuCredits: aws.String(v)}
	}
	out, err := c.ModifyInstanceCreditSpecification(simtest.Ctx(t), &ec2.ModifyInstanceCreditSpecificationInput{InstanceCreditSpecifications: []types.InstanceCreditSpecificationRequest{
		spec(t3, "standard"), spec(m5, "unlimited"), spec("i-0000000000000dead", "standard"), spec("i-bad", "standard"), spec(gone, "standard"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.SuccessfulInstanceCreditSpecifications) != 1 || aws.ToString(out.SuccessfulInstanceCreditSpecifications[0].InstanceId) != t3 {
		t.Fatalf("successful = %+v", out.SuccessfulInstanceCreditSpecifications)
	}
	codes := map[string]types.UnsuccessfulInstanceCreditSpecificationErrorCode{}
	for _, u := range out.UnsuccessfulInstanceCreditSpecifications {
		codes[aws.ToString(u.InstanceId)] = u.Error.Code
	}
	want := map[string]types.UnsuccessfulInstanceCreditSpecificationErrorCode{
		m5:                    types.UnsuccessfulInstanceCreditSpecificationErrorCodeInstanceCreditSpecificationNotSupported,
		"i-0000000000000dead": types.UnsuccessfulInstanceCreditSpecificationErrorCodeInstanceNotFound,
		"i-bad":               types.UnsuccessfulInstanceCreditSpecificationErrorCodeInvalidInstanceId,
		gone:                  types.UnsuccessfulInstanceCreditSpecificationErrorCodeIncorrectInstanceState,
	}
	for id, w := range want {
		if codes[id] != w {
			t.Errorf("%s: code %q, want %q", id, codes[id], w)
		}
	}
	if got := creditsOf(t, c, t3)[t3]; got != "standard" {
		t.Fatalf("t3 credits after modify = %q", got)
	}
}
