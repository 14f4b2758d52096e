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

package guardrail

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/callmetrics"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// emulated is what a guarded client stands in front of in these tests: the EC2
// layer's own client against an in-process emulator over HTTP. What reaches the
// emulator is what would have left the operator for EC2, so "refused before it was
// sent" is checked on the wire, not on a fake's bookkeeping.
type emulated struct {
	sim    *ec2sim.Sim
	client *ec2.AWSClient
	// mark is how many requests the emulator had logged when the test last looked.
	mark int
}

// newEmulated starts an emulator and an unpaced client for it that tries each call
// once: a refusal must show as no request at all, not as a retried one.
func newEmulated(t *testing.T) *emulated {
	t.Helper()
	sim := ec2sim.New(ec2sim.Config{Seed: 1})
	cfg := aws.Config{Region: ec2sim.DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", strings.Repeat("s", 40), "")}
	client := ec2.NewFromConfig(cfg, ec2.Options{Endpoint: simtest.Serve(t, sim), NoPacing: true, MaxAttempts: 1,
		MaxBackoff: 10 * time.Millisecond, Recorder: callmetrics.NewMemoryRecorder()})
	return &emulated{sim: sim, client: client}
}

// sent returns the EC2 operations that reached the emulator since the last call.
func (e *emulated) sent() []string {
	all := e.sim.Requests()
	var ops []string
	for _, r := range all[e.mark:] {
		ops = append(ops, r.Operation)
	}
	e.mark = len(all)
	return ops
}

// changes are the operations among ops that change something in EC2: every EC2 read
// is a Describe or a Get.
func changes(ops []string) []string {
	var out []string
	for _, op := range ops {
		if !strings.HasPrefix(op, "Describe") && !strings.HasPrefix(op, "Get") {
			out = append(out, op)
		}
	}
	return out
}

// count is how many of ops are op.
func count(ops []string, op string) int {
	n := 0
	for _, o := range ops {
		if o == op {
			n++
		}
	}
	return n
}
