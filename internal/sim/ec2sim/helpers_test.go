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
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// newFakeClock returns a manually advanced clock at simtest.Epoch for lifecycle tests.
func newFakeClock() *simtest.Clock { return simtest.NewClock(simtest.Epoch) }

// newClient starts sim behind an httptest server and returns a real SDK
// client pointed at it, with fast retries so throttling tests stay quick.
func newClient(t *testing.T, sim *Sim) *ec2.Client {
	t.Helper()
	return simtest.EC2Client(simtest.SDKConfig(DefaultRegion, "AKIDEXAMPLE", "secret"), simtest.Serve(t, sim))
}

// newEnv builds a Sim from cfg and a client for it.
func newEnv(t *testing.T, cfg Config) (*Sim, *ec2.Client) {
	t.Helper()
	sim := New(cfg)
	return sim, newClient(t, sim)
}

// basicRun is the smallest RunInstances input the operator would send.
func basicRun() *ec2.RunInstancesInput {
	return &ec2.RunInstancesInput{
		ImageId:      aws.String(DefaultImageID),
		InstanceType: types.InstanceTypeT3Micro,
		MinCount:     aws.Int32(1),
		MaxCount:     aws.Int32(1),
		SubnetId:     aws.String(DefaultSubnetIDs[0]),
	}
}

// runOne launches one instance and returns its id.
func runOne(t *testing.T, c *ec2.Client, in *ec2.RunInstancesInput) string {
	t.Helper()
	out, err := c.RunInstances(simtest.Ctx(t), in)
	if err != nil {
		t.Fatalf("RunInstances: %v", err)
	}
	if len(out.Instances) != 1 {
		t.Fatalf("RunInstances returned %d instances", len(out.Instances))
	}
	return aws.ToString(out.Instances[0].InstanceId)
}

// describeOne returns the single instance DescribeInstances reports for id.
func describeOne(t *testing.T, c *ec2.Client, id string) types.Instance {
	t.Helper()
	out, err := c.DescribeInstances(simtest.Ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
	if err != nil {
		t.Fatalf("DescribeInstances(%s): %v", id, err)
	}
	if len(out.Reservations) != 1 || len(out.Reservations[0].Instances) != 1 {
		t.Fatalf("DescribeInstances(%s) returned %+v", id, out.Reservations)
	}
	return out.Reservations[0].Instances[0]
}

// httpPost sends a raw query-protocol request, for cases the SDK cannot
// express (such as an unknown Action).
func httpPost(t *testing.T, sim *Sim, form url.Values) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	sim.ServeHTTP(rec, req)
	return rec
}
