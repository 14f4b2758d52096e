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
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// Amazon SQS API Reference, DeleteMessageBatch: "The result of the action on
// each message is reported individually in the response", each entry as
// Successful (Id) or Failed (Id, SenderFault, Code, Message); a handle SQS
// never issued fails its entry with ReceiptHandleIsInvalid.
func TestDeleteMessageBatchReportsEachEntry(t *testing.T) {
	e := newEnv(t)
	e.sim.Send(e.url, "a")
	e.sim.Send(e.url, "b")
	got := e.receive(t, 10, 0, -1)
	if len(got) != 2 {
		t.Fatalf("received %d messages, want 2", len(got))
	}
	out, err := e.client.DeleteMessageBatch(ctx(t), &sqs.DeleteMessageBatchInput{
		QueueUrl: aws.String(e.url),
		Entries: []types.DeleteMessageBatchRequestEntry{
			{Id: aws.String("first"), ReceiptHandle: got[0].ReceiptHandle},
			{Id: aws.String("bogus"), ReceiptHandle: aws.String("not-a-handle")},
			{Id: aws.String("second"), ReceiptHandle: got[1].ReceiptHandle},
		},
	})
	if err != nil {
		t.Fatalf("DeleteMessageBatch: %v", err)
	}
	if len(out.Successful) != 2 || aws.ToString(out.Successful[0].Id) != "first" || aws.ToString(out.Successful[1].Id) != "second" {
		t.Fatalf("Successful = %+v, want first and second", out.Successful)
	}
	if len(out.Failed) != 1 {
		t.Fatalf("Failed = %+v, want one entry", out.Failed)
	}
	f := out.Failed[0]
	if aws.ToString(f.Id) != "bogus" || aws.ToString(f.Code) != "ReceiptHandleIsInvalid" || !f.SenderFault || aws.ToString(f.Message) == "" {
		t.Fatalf("Failed[0] = {%s %s %v %s}, want bogus/ReceiptHandleIsInvalid/sender", aws.ToString(f.Id), aws.ToString(f.Code), f.SenderFault, aws.ToString(f.Message))
	}
	if n := e.sim.Messages(e.url); n != 0 {
		t.Fatalf("Messages = %d after deleting both, want 0", n)
	}
}

// Amazon SQS API Reference, DeleteMessageBatch errors: an empty batch fails
// with AWS.SimpleQueueService.EmptyBatchRequest, repeated ids with
// AWS.SimpleQueueService.BatchEntryIdsNotDistinct.
func TestDeleteMessageBatchWholeCallErrors(t *testing.T) {
	e := newEnv(t)
	_, err := e.client.DeleteMessageBatch(ctx(t), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(e.url), Entries: []types.DeleteMessageBatchRequestEntry{}})
	var empty *types.EmptyBatchRequest
	if !errors.As(err, &empty) || simtest.ErrCode(err) != "AWS.SimpleQueueService.EmptyBatchRequest" {
		t.Fatalf("empty batch error = %v (code %q)", err, simtest.ErrCode(err))
	}
	dup := []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("x"), ReceiptHandle: aws.String("h1")},
		{Id: aws.String("x"), ReceiptHandle: aws.String("h2")},
	}
	_, err = e.client.DeleteMessageBatch(ctx(t), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(e.url), Entries: dup})
	var notDistinct *types.BatchEntryIdsNotDistinct
	if !errors.As(err, &notDistinct) {
		t.Fatalf("duplicate ids error = %v, want BatchEntryIdsNotDistinct", err)
	}
}

// Amazon SQS API Reference, DeleteMessage: the latest receipt handle deletes
// the message; an older handle of a message received again succeeds without
// deleting it (standard queues); a handle never issued fails with
// ReceiptHandleIsInvalid.
func TestDeleteMessageHandles(t *testing.T) {
	e := newEnv(t)
	e.sim.Send(e.url, "a")
	first := e.receive(t, 1, 0, 1)
	e.clock.Advance(2e9)
	second := e.receive(t, 1, 0, -1)
	if len(first) != 1 || len(second) != 1 {
		t.Fatalf("receives = %d, %d; want 1, 1", len(first), len(second))
	}
	if _, err := e.client.DeleteMessage(ctx(t), &sqs.DeleteMessageInput{QueueUrl: aws.String(e.url), ReceiptHandle: first[0].ReceiptHandle}); err != nil {
		t.Fatalf("DeleteMessage(stale handle): %v", err)
	}
	if n := e.sim.Messages(e.url); n != 1 {
		t.Fatalf("a stale handle deleted the message (Messages = %d)", n)
	}
	if _, err := e.client.DeleteMessage(ctx(t), &sqs.DeleteMessageInput{QueueUrl: aws.String(e.url), ReceiptHandle: second[0].ReceiptHandle}); err != nil {
		t.Fatalf("DeleteMessage(latest handle): %v", err)
	}
	if n := e.sim.Messages(e.url); n != 0 {
		t.Fatalf("Messages = %d after DeleteMessage, want 0", n)
	}
	_, err := e.client.DeleteMessage(ctx(t), &sqs.DeleteMessageInput{QueueUrl: aws.String(e.url), ReceiptHandle: aws.String("garbage")})
	var invalid *types.ReceiptHandleIsInvalid
	if !errors.As(err, &invalid) || simtest.ErrCode(err) != "ReceiptHandleIsInvalid" {
		t.Fatalf("DeleteMessage(garbage) error = %v (code %q), want ReceiptHandleIsInvalid", err, simtest.ErrCode(err))
	}
	if e.sim.Calls("DeleteMessage") != 3 {
		t.Fatalf("Calls(DeleteMessage) = %d, want 3", e.sim.Calls("DeleteMessage"))
	}
}
