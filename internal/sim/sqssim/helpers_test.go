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

package sqssim

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// env is a Sim behind an httptest server with a real SDK client.
type env struct {
	sim    *Sim
	clock  *simtest.Clock
	client *sqs.Client
	url    string // the test queue's URL
}

// newEnv starts a Sim with a fake clock and one queue named "events", and a
// client with fast retries so the 503 test stays quick.
func newEnv(t *testing.T) *env {
	t.Helper()
	clock := simtest.NewClock(simtest.Epoch)
	sim := New(Config{Now: clock.Now, Seed: 1})
	client := simtest.SQSClient(simtest.SDKConfig(DefaultRegion, "AKIDEXAMPLE", "secret"), simtest.Serve(t, sim))
	return &env{sim: sim, clock: clock, client: client, url: sim.CreateQueue("events")}
}

// ctx returns a test-scoped context with a deadline past the longest long poll.
func ctx(t *testing.T) context.Context { return simtest.CtxWithin(t, 30*time.Second) }

// receive calls ReceiveMessage asking for every system attribute.
func (e *env) receive(t *testing.T, max, wait, visibility int32) []types.Message {
	t.Helper()
	in := &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(e.url),
		MaxNumberOfMessages:         max,
		WaitTimeSeconds:             wait,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
	}
	if visibility >= 0 {
		in.VisibilityTimeout = visibility
	}
	out, err := e.client.ReceiveMessage(ctx(t), in)
	if err != nil {
		t.Fatalf("ReceiveMessage: %v", err)
	}
	return out.Messages
}
