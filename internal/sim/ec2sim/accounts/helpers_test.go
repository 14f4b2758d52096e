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

package accounts_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	"github.com/ec2-operator/ec2-operator/internal/sim/simworld"
	"github.com/ec2-operator/ec2-operator/internal/sim/stssim"
)

// The world the tests run in: the operator's identity (a long-term key in
// operatorAccount) may assume one role in each of two workload accounts,
// each role guarded by its own external ID, as an AWSAccount resource per
// namespace would configure.
const (
	operatorAccount = "111111111111"
	operatorKey     = "AKIAOPERATOR0000001"
	operatorSecret  = "operator-secret"

	accountA = "222222222222"
	roleA    = "arn:aws:iam::222222222222:role/ec2-operator"
	extA     = "ns-a-7f3c"

	accountB = "333333333333"
	roleB    = "arn:aws:iam::333333333333:role/ec2-operator"
	extB     = "ns-b-91d2"
)

// newWorld builds the world: one STS endpoint and an EC2 endpoint per workload
// account behind the account router. The fake clock starts at the wall clock's
// current second: the SDK's credentials cache judges expiry by the wall
// clock, so issued credentials must look fresh to it too.
func newWorld(t *testing.T) *simworld.World {
	t.Helper()
	clock := simtest.NewClock(time.Now().UTC().Truncate(time.Second))
	// Distinct seeds keep instance ids distinct across accounts, so a
	// lookup by id can only succeed in the account that launched it.
	return simworld.New(t, simworld.WithClock(clock), simworld.STS(stssim.Config{Seed: 1}),
		simworld.User(operatorAccount, operatorKey, operatorSecret),
		simworld.Role(roleA, extA, operatorKey),
		simworld.Role(roleB, extB, operatorKey),
		simworld.Account(accountA, ec2sim.Config{Seed: 2}),
		simworld.Account(accountB, ec2sim.Config{Seed: 3}))
}

// assumedCredentials is what the operator would build for an AWSAccount:
// the SDK's AssumeRole provider, signing STS calls with the operator's own
// key and passing the account's external ID (none when empty).
func assumedCredentials(w *simworld.World, roleARN, externalID string) *aws.CredentialsCache {
	return w.AssumedCredentials(operatorKey, operatorSecret, roleARN, externalID, "ec2-operator")
}

// runOne launches one instance with the seeded defaults and returns it.
func runOne(t *testing.T, c *ec2.Client) types.Instance {
	t.Helper()
	out, err := c.RunInstances(simtest.Ctx(t), &ec2.RunInstancesInput{
		ImageId:      aws.String(ec2sim.DefaultImageID),
		InstanceType: types.InstanceTypeT3Micro,
		MinCount:     aws.Int32(1),
		MaxCount:     aws.Int32(1),
		SubnetId:     aws.String(ec2sim.DefaultSubnetIDs[0]),
	})
	if err != nil {
		t.Fatalf("RunInstances: %v", err)
	}
	if aws.ToString(out.OwnerId) == "" || len(out.Instances) != 1 {
		t.Fatalf("RunInstances returned owner %q and %d instances", aws.ToString(out.OwnerId), len(out.Instances))
	}
	return out.Instances[0]
}
