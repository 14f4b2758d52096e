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
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// Amazon SQS API Reference, ReceiveMessage (WaitTimeSeconds): "If a message
// is available, the call returns sooner than WaitTimeSeconds."
func TestLongPollReturnsWhenMessageArrives(t *testing.T) {
	e := newEnv(t)
	go func() {
		time.Sleep(200 * time.Millisecond)
		e.sim.Send(e.url, "hello")
	}()
	start := time.Now()
	got := e.receive(t, 1, 10, -1)
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Fatalf("long poll took %v, want an early return", elapsed)
	}
	if len(got) != 1 || aws.ToString(got[0].Body) != "hello" {
		t.Fatalf("got %+v, want the message sent during the poll", got)
	}
}

// Amazon SQS API Reference, ReceiveMessage (WaitTimeSeconds): "If no messages
// are available and the wait time expires, the call does not return a
// message list."
func TestLongPollEndsAfterWaitTime(t *testing.T) {
	e := newEnv(t)
	start := time.Now()
	got := e.receive(t, 1, 1, -1)
	elapsed := time.Since(start)
	if len(got) != 0 {
		t.Fatalf("got %d messages from an empty queue", len(got))
	}
	if elapsed < 900*time.Millisecond || elapsed > 3*time.Second {
		t.Fatalf("a 1 s long poll took %v", elapsed)
	}
}

// A long poll whose client goes away must not keep the handler busy for
// the rest of WaitTimeSeconds (Go's http.Request.Context contract).
func TestLongPollHonoursCancellation(t *testing.T) {
	e := newEnv(t)
	c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	body := fmt.Sprintf(`{"QueueUrl":%q,"WaitTimeSeconds":20}`, e.url)
	req := httptest.NewRequestWithContext(c, http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "AmazonSQS.ReceiveMessage")
	req.Header.Set("Content-Type", jsonContentType)
	start := time.Now()
	e.sim.ServeHTTP(httptest.NewRecorder(), req)
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("cancelled long poll held the handler for %v", elapsed)
	}
}

// Amazon SQS API Reference, ReceiveMessage (MaxNumberOfMessages): "Amazon SQS
// never returns more messages than this value ... Valid values: 1 to 10."
func TestReceiveAtMostTenMessages(t *testing.T) {
	e := newEnv(t)
	for i := range 15 {
		e.sim.Send(e.url, fmt.Sprintf("m%d", i))
	}
	if got := e.receive(t, 10, 0, -1); len(got) != 10 {
		t.Fatalf("first receive got %d messages, want 10", len(got))
	}
	if got := e.receive(t, 10, 0, -1); len(got) != 5 {
		t.Fatalf("second receive got %d messages, want the other 5", len(got))
	}
	if got := e.receive(t, 1, 0, -1); len(got) != 0 {
		t.Fatalf("third receive got %d messages, want none while all are in flight", len(got))
	}
	if n := e.sim.Messages(e.url); n != 15 {
		t.Fatalf("Messages = %d, want 15 (visible + in flight)", n)
	}
}

// Amazon SQS API Reference, ReceiveMessage: MaxNumberOfMessages outside 1..10
// fails with InvalidParameterValue ("Value 11 for parameter
// MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if
// provided."), as does WaitTimeSeconds outside 0..20.
func TestReceiveRejectsOutOfRangeParameters(t *testing.T) {
	e := newEnv(t)
	for _, in := range []*sqs.ReceiveMessageInput{
		{QueueUrl: aws.String(e.url), MaxNumberOfMessages: 11},
		{QueueUrl: aws.String(e.url), MaxNumberOfMessages: -1},
		{QueueUrl: aws.String(e.url), WaitTimeSeconds: 21},
	} {
		_, err := e.client.ReceiveMessage(ctx(t), in)
		if got := simtest.ErrCode(err); got != "InvalidParameterValue" {
			t.Errorf("ReceiveMessage(max %d, wait %d) error = %v (code %q), want InvalidParameterValue", in.MaxNumberOfMessages, in.WaitTimeSeconds, err, got)
		}
	}
	_, err := e.client.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: aws.String(e.url), MaxNumberOfMessages: 11})
	if !strings.Contains(err.Error(), "Must be between 1 and 10") {
		t.Errorf("message = %v, want SQS's wording", err)
	}
}

// Amazon SQS Developer Guide, "Amazon SQS visibility timeout": a received
// message is hidden for the visibility timeout (the queue's, 30 s by
// default, or the request's VisibilityTimeout) and, if not deleted, becomes
// visible again; ApproximateReceiveCount counts the receives and every
// receive returns a new receipt handle. The SDK checks MD5OfBody itself.
func TestVisibilityTimeoutReshowsUndeletedMessage(t *testing.T) {
	e := newEnv(t)
	id := e.sim.Send(e.url, `{"detail":{}}`)
	first := e.receive(t, 1, 0, 60)
	if len(first) != 1 || aws.ToString(first[0].MessageId) != id {
		t.Fatalf("first receive = %+v, want message %s", first, id)
	}
	if c := first[0].Attributes["ApproximateReceiveCount"]; c != "1" {
		t.Fatalf("first ApproximateReceiveCount = %q, want 1", c)
	}
	if got := aws.ToString(first[0].MD5OfBody); got != md5Hex(`{"detail":{}}`) {
		t.Fatalf("MD5OfBody = %s", got)
	}
	e.clock.Advance(59 * time.Second)
	if got := e.receive(t, 1, 0, -1); len(got) != 0 {
		t.Fatalf("message visible %d s into a 60 s timeout", 59)
	}
	e.clock.Advance(2 * time.Second)
	second := e.receive(t, 1, 0, -1)
	if len(second) != 1 || aws.ToString(second[0].MessageId) != id {
		t.Fatalf("after the timeout got %+v, want message %s again", second, id)
	}
	if c := second[0].Attributes["ApproximateReceiveCount"]; c != "2" {
		t.Fatalf("second ApproximateReceiveCount = %q, want 2", c)
	}
	if aws.ToString(second[0].ReceiptHandle) == aws.ToString(first[0].ReceiptHandle) {
		t.Fatal("the second receive reused the first receipt handle")
	}
	// The second receive used the queue's default of 30 seconds.
	e.clock.Advance(29 * time.Second)
	if got := e.receive(t, 1, 0, -1); len(got) != 0 {
		t.Fatal("message visible before the default 30 s timeout ended")
	}
	e.clock.Advance(2 * time.Second)
	if got := e.receive(t, 1, 0, -1); len(got) != 1 {
		t.Fatal("message not visible after the default 30 s timeout")
	}
}

// Amazon SQS API Reference, ReceiveMessage: system attributes are returned
// only when requested (MessageSystemAttributeNames).
func TestReceiveReturnsOnlyRequestedAttributes(t *testing.T) {
	e := newEnv(t)
	e.sim.Send(e.url, "x")
	out, err := e.client.ReceiveMessage(ctx(t), &sqs.ReceiveMessageInput{QueueUrl: aws.String(e.url)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) != 1 || len(out.Messages[0].Attributes) != 0 {
		t.Fatalf("got %+v, want one message without attributes", out.Messages)
	}
}
