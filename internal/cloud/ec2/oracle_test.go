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
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/callmetrics"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/moto"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// An oracle answers EC2's API: our emulator, or moto's. The same scenarios run against
// both through this package's client, so the SDK, our requests and our reading of the
// answers are the same; only the answers differ. Each scenario states what EC2 does
// (from its API reference), so an oracle either agrees or has a listed difference.
type oracle struct {
	name   string
	client *AWSClient
	// image, subnet and group are resources the oracle has from its start.
	image, subnet, group string
	// differs lists the scenarios in which the oracle is known not to answer as EC2
	// does, and how. Our emulator has none: it is the oracle every other test trusts.
	differs map[string]string
	// callTimeout bounds each call, so that only a hung oracle fails on it: moto is a
	// Python process that answers in seconds on a loaded 2-core machine (its first
	// DescribeImages reads its whole image catalogue), the emulator in milliseconds.
	callTimeout time.Duration
}

// ctx is a context for one call to the oracle.
func (o oracle) ctx(t *testing.T) context.Context { return simtest.CtxWithin(t, o.callTimeout) }

// motoDifferences are moto 5.2.1's known departures from EC2 in these scenarios,
// found by this test. The test fails when one of them stops being true, so the list
// stays accurate across moto releases.
var motoDifferences = map[string]string{
	"a client token makes a launch idempotent": "moto ignores ClientToken: a second RunInstances makes a second instance",
	"instances are found by client token":      "moto has no client-token filter: DescribeInstances answers HTTP 500 (NotImplementedError)",
	"a malformed instance ID is malformed":     "moto answers InvalidInstanceID.NotFound where EC2 answers InvalidInstanceID.Malformed",
	"an unknown image is refused at launch":    "moto launches from any image ID, known or not",
	"the type changes only while stopped":      "moto changes the type of a running instance",
	"a terminated instance cannot start":       "moto starts a terminated instance again",
}

// oracleScenario runs against one oracle and returns nil when it answered as EC2
// does, or how it differed. A failure of the test itself (a call that cannot be made)
// ends the test instead.
type oracleScenario struct {
	name string
	run  func(t *testing.T, o oracle) error
}

func TestEmulatorAndMotoAnswerAsEC2Does(t *testing.T) {
	if testing.Short() {
		t.Skip("starts moto's server (a Python process): make test runs it, make test-unit (go test -short) does not")
	}
	oracles := []oracle{emulatorOracle(t), motoOracle(t)}
	for _, o := range oracles {
		for _, sc := range oracleScenarios() {
			t.Run(o.name+"/"+sc.name, func(t *testing.T) {
				err := sc.run(t, o)
				why, known := o.differs[sc.name]
				switch {
				case err != nil && !known:
					t.Errorf("%s answers unlike EC2: %v", o.name, err)
				case err != nil:
					t.Logf("known difference of %s: %v (%s)", o.name, err, why)
				case known:
					t.Errorf("%s now answers as EC2 does; remove %q from its known differences", o.name, sc.name)
				}
			})
		}
	}
}

func emulatorOracle(t *testing.T) oracle {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	return oracle{name: "ec2sim", client: e.client, image: ec2sim.DefaultImageID, callTimeout: simtest.CtxTimeout,
		subnet: ec2sim.DefaultSubnetIDs[0], group: ec2sim.DefaultSecurityGroupID}
}

// motoOracle starts moto and finds what it seeds: an image owned by Amazon, the
// default subnet of the first zone and the default VPC's security group.
func motoOracle(t *testing.T) oracle {
	url := moto.Start(t)
	// A real secret's length: SigV4's HMAC key must be long enough for FIPS mode.
	secret := strings.Repeat("s", 40)
	cfg := simtest.SDKConfig(ec2sim.DefaultRegion, "AKIDEXAMPLE", secret)
	sdk := simtest.EC2Client(cfg, url)
	o := oracle{name: "moto", differs: motoDifferences, callTimeout: 2 * time.Minute}
	ctx := o.ctx(t)
	images, err := sdk.DescribeImages(ctx, &sdkec2.DescribeImagesInput{Owners: []string{"amazon"}})
	if err != nil || len(images.Images) == 0 {
		t.Fatalf("moto's images: %v", err)
	}
	o.image = aws.ToString(images.Images[0].ImageId)
	subnets, err := sdk.DescribeSubnets(ctx, &sdkec2.DescribeSubnetsInput{Filters: []types.Filter{
		{Name: aws.String("default-for-az"), Values: []string{"true"}},
		{Name: aws.String("availability-zone"), Values: []string{ec2sim.DefaultRegion + "a"}},
	}})
	if err != nil || len(subnets.Subnets) == 0 {
		t.Fatalf("moto's default subnet: %v", err)
	}
	o.subnet = aws.ToString(subnets.Subnets[0].SubnetId)
	groups, err := sdk.DescribeSecurityGroups(ctx, &sdkec2.DescribeSecurityGroupsInput{Filters: []types.Filter{
		{Name: aws.String("group-name"), Values: []string{"default"}},
	}})
	if err != nil || len(groups.SecurityGroups) == 0 {
		t.Fatalf("moto's default security group: %v", err)
	}
	o.group = aws.ToString(groups.SecurityGroups[0].GroupId)
	awsCfg := aws.Config{Region: ec2sim.DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", secret, "")}
	// Two attempts: an answer moto cannot give (HTTP 500) must not be retried for long.
	o.client = NewFromConfig(awsCfg, Options{Endpoint: url, NoPacing: true, MaxAttempts: 2,
		MaxBackoff: 10 * time.Millisecond, Recorder: callmetrics.NewMemoryRecorder()})
	return o
}

// launchRequest is a launch in the oracle's own resources, tagged as the controller
// tags its instances.
func (o oracle) launchRequest(token string) LaunchRequest {
	return LaunchRequest{ClientToken: token, ImageID: o.image, InstanceType: "t3.micro",
		SubnetID: o.subnet, SecurityGroupIDs: []string{o.group},
		Tags: DesiredTags(map[string]string{"team": "blue"}, "default", token, "uid-"+token, "cluster-1")}
}

// launch launches and ends the test when the oracle refuses: every scenario but the
// refusals starts from a launched instance.
func (o oracle) launch(t *testing.T, token string) *Instance {
	t.Helper()
	inst, err := o.client.RunInstance(o.ctx(t), o.launchRequest(token))
	if err != nil {
		t.Fatalf("RunInstance: %v", err)
	}
	return inst
}

// waitState polls the instance until it is in state, or returns how it was instead
// after 20 s or the oracle's call timeout, whichever is longer.
func (o oracle) waitState(ctx context.Context, id, state string) error {
	wait := max(20*time.Second, o.callTimeout)
	deadline := time.Now().Add(wait)
	for {
		o.client.ChangedElsewhere(id)
		inst, err := o.client.GetInstance(ctx, id)
		if err == nil && inst.State == state {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("waiting for %s: %w", state, err)
			}
			return fmt.Errorf("still %s, not %s, after %v", inst.State, state, wait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fresh describes the instance again, past the client's lookup cache.
func (o oracle) fresh(ctx context.Context, id string) (*Instance, error) {
	o.client.ChangedElsewhere(id)
	return o.client.GetInstance(ctx, id)
}

// wantError returns nil when err has EC2's kind and code for the case, or how it
// differs.
func wantError(err error, kind awserrors.Kind, code string) error {
	switch {
	case err == nil:
		return fmt.Errorf("succeeded; EC2 answers %s", code)
	case awserrors.KindOf(err) != kind || awserrors.CodeOf(err) != code:
		return fmt.Errorf("answered %s (kind %v); EC2 answers %s (kind %v): %v", awserrors.CodeOf(err), awserrors.KindOf(err), code, kind, err)
	}
	return nil
}
