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

package events

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/go-logr/logr"
)

// SQSAPI is the part of the SQS client the consumer uses.
type SQSAPI interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
}

// Handler receives the events about instances; it reports whether the instance is
// one the operator manages (others' events are deleted and otherwise ignored).
type Handler func(ctx context.Context, e Event) (owned bool)

// Observer receives the consumer's health and counts; nil fields are skipped.
type Observer struct {
	// QueueReady is called with true after a successful receive and false after a
	// failed one.
	QueueReady func(bool)
	// Received counts events by detail type and whether the operator owns the
	// instance.
	Received func(detailType string, owned bool)
}

// Consumer long-polls an SQS queue of EC2 events and hands each to Handle.
type Consumer struct {
	// QueueURL is the queue EventBridge sends the events to.
	QueueURL string
	// SQS is the client for the queue's region.
	SQS SQSAPI
	// Handle is called once per event.
	Handle Handler
	// Log receives one line per change of the queue's health, never per message.
	Log logr.Logger
	// Observe receives health and counts.
	Observe Observer
	// WaitTime is the long poll (SQS allows up to 20 s); zero means 20 s.
	WaitTime time.Duration
	// MinBackoff and MaxBackoff bound the wait after a failed receive; zero means 1 s
	// and 1 min.
	MinBackoff, MaxBackoff time.Duration

	healthy atomic.Bool
}

// maxMessages is the most messages one ReceiveMessage returns (SQS's limit).
const maxMessages = 10

// Start runs until ctx ends; it never fails: while the queue cannot be read it logs
// once, reports the queue as not ready and tries again with backoff, and the
// operator's periodic resync keeps finding changes meanwhile. It implements
// controller-runtime's manager.Runnable.
func (c *Consumer) Start(ctx context.Context) error {
	wait, minBackoff, maxBackoff := c.WaitTime, c.MinBackoff, c.MaxBackoff
	if wait <= 0 {
		wait = 20 * time.Second
	}
	if minBackoff <= 0 {
		minBackoff = time.Second
	}
	if maxBackoff <= 0 {
		maxBackoff = time.Minute
	}
	backoff := minBackoff
	c.healthy.Store(true)
	for ctx.Err() == nil {
		out, err := c.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:            aws.String(c.QueueURL),
			MaxNumberOfMessages: maxMessages,
			WaitTimeSeconds:     int32(wait / time.Second),
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			c.setHealthy(false, err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		backoff = minBackoff
		c.setHealthy(true, nil)
		c.handle(ctx, out.Messages)
	}
	return nil
}

// handle passes each message's event on and deletes the batch: handled messages,
// and messages that are not EC2 instance events (they would come back forever).
// A message whose deletion fails comes back after its visibility timeout and is
// handled again, which is harmless.
func (c *Consumer) handle(ctx context.Context, msgs []sqstypes.Message) {
	if len(msgs) == 0 {
		return
	}
	var done []sqstypes.DeleteMessageBatchRequestEntry
	for i, m := range msgs {
		if e, err := Parse(aws.ToString(m.Body)); err == nil {
			owned := c.Handle(ctx, e)
			if c.Observe.Received != nil {
				c.Observe.Received(e.DetailType, owned)
			}
		} else {
			c.Log.V(1).Info("deleting a message that is not an EC2 instance event", "messageId", aws.ToString(m.MessageId), "reason", err.Error())
		}
		done = append(done, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
	}
	out, err := c.SQS.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(c.QueueURL), Entries: done})
	switch {
	case err != nil:
		c.Log.V(1).Info("could not delete handled event messages; they will be handled again", "error", err.Error())
	case len(out.Failed) > 0:
		c.Log.V(1).Info("some handled event messages were not deleted; they will be handled again", "failed", len(out.Failed))
	}
}

// setHealthy reports the queue's health, logging only changes.
func (c *Consumer) setHealthy(ok bool, err error) {
	if c.Observe.QueueReady != nil {
		c.Observe.QueueReady(ok)
	}
	if c.healthy.Swap(ok) == ok {
		return
	}
	if ok {
		c.Log.Info("reading EC2 events again", "queue", c.QueueURL)
	} else {
		c.Log.Info("cannot read EC2 events; changes outside Kubernetes are found by the resync until the queue answers again",
			"queue", c.QueueURL, "error", err.Error())
	}
}

// Healthy reports whether the last receive succeeded.
func (c *Consumer) Healthy() bool { return c.healthy.Load() }
