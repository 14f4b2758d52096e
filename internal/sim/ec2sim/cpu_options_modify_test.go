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

// ModifyInstanceCpuOptions (EC2 API reference): the instance must be stopped, and
// the values follow the launch rules of the type (validCores, validThreadsPerCore).
func TestModifyInstanceCpuOptionsOnAStoppedInstanceOnly(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 1})
	in := basicRun()
	in.InstanceType = types.InstanceTypeM5Large
	id := runOne(t, c, in)
	describeOne(t, c, id) // the instance is running after the first look
	_, err := c.ModifyInstanceCpuOptions(simtest.Ctx(t), &ec2.ModifyInstanceCpuOptionsInput{InstanceId: aws.String(id), CoreCount: aws.Int32(1), ThreadsPerCore: aws.Int32(1)})
	simtest.WantCode(t, err, "IncorrectInstanceState")

	if _, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{id}}); err != nil {
		t.Fatal(err)
	}
	describeOne(t, c, id)
	if r, _ := sim.Instance(id); r.State != StateStopped {
		t.Fatalf("instance is %s", r.State)
	}
	_, err = c.ModifyInstanceCpuOptions(simtest.Ctx(t), &ec2.ModifyInstanceCpuOptionsInput{InstanceId: aws.String(id), CoreCount: aws.Int32(4), ThreadsPerCore: aws.Int32(1)})
	simtest.WantCode(t, err, "InvalidParameterValue")
	out, err := c.ModifyInstanceCpuOptions(simtest.Ctx(t), &ec2.ModifyInstanceCpuOptionsInput{InstanceId: aws.String(id), CoreCount: aws.Int32(1), ThreadsPerCore: aws.Int32(1)})
	if err != nil || aws.ToInt32(out.CoreCount) != 1 || aws.ToInt32(out.ThreadsPerCore) != 1 {
		t.Fatalf("ModifyInstanceCpuOptions = %+v, %v", out, err)
	}
	got := describeOne(t, c, id)
	if got.CpuOptions == nil || aws.ToInt32(got.CpuOptions.CoreCount) != 1 || aws.ToInt32(got.CpuOptions.ThreadsPerCore) != 1 {
		t.Errorf("cpuOptions after the change: %+v", got.CpuOptions)
	}
}
