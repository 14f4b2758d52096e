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
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/callmetrics"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// simEnv is a client wired to an emulator served over HTTP, as in production but
// with static credentials and short backoffs.
type simEnv struct {
	client   *AWSClient
	sim      *ec2sim.Sim
	recorder *callmetrics.MemoryRecorder
	url      string
}

// newSimEnv starts an emulator and a client for it. opts may override the test
// defaults (no client-side pacing unless opts.Limits is set, 5 attempts, 10ms max
// backoff).
func newSimEnv(t testing.TB, cfg ec2sim.Config, opts Options) *simEnv {
	t.Helper()
	return newSimEnvBehind(t, cfg, opts, nil)
}

// newSimEnvBehind is newSimEnv with the emulator served behind wrap (when not nil),
// for tests that need EC2 to answer slowly or to see the requests.
func newSimEnvBehind(t testing.TB, cfg ec2sim.Config, opts Options, wrap func(http.Handler) http.Handler) *simEnv {
	t.Helper()
	sim := ec2sim.New(cfg)
	var h http.Handler = sim
	if wrap != nil {
		h = wrap(sim)
	}
	url := simtest.Serve(t, h)
	rec := callmetrics.NewMemoryRecorder()
	if opts.Recorder == nil {
		opts.Recorder = rec
	}
	if opts.MaxBackoff == 0 {
		opts.MaxBackoff = 10 * time.Millisecond
	}
	if opts.Limits == nil {
		// Tests of pacing say what limits they pace to; the rest go unpaced.
		opts.NoPacing = true
	}
	opts.Endpoint = url
	awsCfg := aws.Config{
		Region:      ec2sim.DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
	}
	return &simEnv{client: NewFromConfig(awsCfg, opts), sim: sim, recorder: rec, url: url}
}

// basicLaunch is a valid launch request against the emulator's seeded resources.
func basicLaunch(token string) LaunchRequest {
	return LaunchRequest{
		ClientToken:      token,
		ImageID:          ec2sim.DefaultImageID,
		InstanceType:     "t3.micro",
		SubnetID:         ec2sim.DefaultSubnetIDs[0],
		SecurityGroupIDs: []string{ec2sim.DefaultSecurityGroupID},
		Tags:             DesiredTags(nil, "default", "web", "uid-"+token, "cluster-1"),
	}
}

// launch runs basicLaunch(token) and fails the test on error.
func (e *simEnv) launch(t testing.TB, token string) *Instance {
	t.Helper()
	inst, err := e.client.RunInstance(context.Background(), basicLaunch(token))
	if err != nil {
		t.Fatalf("RunInstance(%s): %v", token, err)
	}
	return inst
}

// waitState polls until the instance reaches state.
func (e *simEnv) waitState(t testing.TB, id, state string) *Instance {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		inst, err := e.client.GetInstance(context.Background(), id)
		if err == nil && inst.State == state {
			return inst
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance %s did not reach %s (last: %+v, %v)", id, state, inst, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
