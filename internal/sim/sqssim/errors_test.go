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
	"errors"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// Amazon SQS API Reference, ReceiveMessage errors: QueueDoesNotExist
// ("Ensure that the QueueUrl is correct"). SQS sends __type
// com.amazonaws.sqs#QueueDoesNotExist with x-amzn-query-error
// AWS.SimpleQueueService.NonExistentQueue;Sender, so the v1.53 client
// returns *types.QueueDoesNotExist whose ErrorCode is the query code.
func TestUnknownQueue(t *testing.T) {
	e := newEnv(t)
	_, err := e.client.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: aws.String("http://elsewhere/123456789012/missing")})
	var qdne *types.QueueDoesNotExist
	if !errors.As(err, &qdne) {
		t.Fatalf("error = %v (%T), want *types.QueueDoesNotExist", err, err)
	}
	if got := simtest.ErrCode(err); got != "AWS.SimpleQueueService.NonExistentQueue" {
		t.Fatalf("ErrorCode = %q, want AWS.SimpleQueueService.NonExistentQueue", got)
	}
	_, err = e.client.DeleteMessage(ctx(t), &sqs.DeleteMessageInput{QueueUrl: aws.String("http://elsewhere/123456789012/missing"), ReceiptHandle: aws.String("h")})
	if !errors.As(err, &qdne) {
		t.Fatalf("DeleteMessage error = %v, want *types.QueueDoesNotExist", err)
	}
}

// AWS SDKs and Tools Reference Guide, "Retry behavior": 503 responses are
// transient and retried (three attempts in standard mode). SQS answers
// ServiceUnavailable with 503 when it cannot serve a request.
func TestUnavailableQueueIsRetriedThenRecovers(t *testing.T) {
	e := newEnv(t)
	e.sim.SetUnavailable(true)
	_, err := e.client.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: aws.String(e.url)})
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusServiceUnavailable {
		t.Fatalf("error = %v, want an HTTP 503", err)
	}
	if got := simtest.ErrCode(err); got != "ServiceUnavailable" {
		t.Fatalf("ErrorCode = %q, want ServiceUnavailable", got)
	}
	if n := e.sim.Calls("ReceiveMessage"); n != 3 {
		t.Fatalf("Calls(ReceiveMessage) = %d, want the standard retryer's 3 attempts", n)
	}
	e.sim.SetUnavailable(false)
	e.sim.Send(e.url, "after")
	if got := e.receive(t, 1, 0, -1); len(got) != 1 {
		t.Fatalf("after recovery got %d messages, want 1", len(got))
	}
}
