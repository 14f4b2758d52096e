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
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Amazon SQS API Reference, SendMessage (MD5OfMessageBody, which the SDK
// verifies) and GetQueueAttributes (ApproximateNumberOfMessages counts
// visible messages, ApproximateNumberOfMessagesNotVisible in-flight ones).
func TestSendMessageAndQueueAttributes(t *testing.T) {
	e := newEnv(t)
	out, err := e.client.SendMessage(ctx(t), &sqs.SendMessageInput{QueueUrl: aws.String(e.url), MessageBody: aws.String("one")})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if aws.ToString(out.MessageId) == "" {
		t.Fatal("SendMessage returned no MessageId")
	}
	e.sim.Send(e.url, "two")
	e.receive(t, 1, 0, -1)
	attrs, err := e.client.GetQueueAttributes(ctx(t), &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(e.url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll},
	})
	if err != nil {
		t.Fatalf("GetQueueAttributes: %v", err)
	}
	if v, nv := attrs.Attributes["ApproximateNumberOfMessages"], attrs.Attributes["ApproximateNumberOfMessagesNotVisible"]; v != "1" || nv != "1" {
		t.Fatalf("visible/not visible = %s/%s, want 1/1", v, nv)
	}
	if attrs.Attributes["VisibilityTimeout"] != "30" {
		t.Fatalf("VisibilityTimeout = %s, want 30", attrs.Attributes["VisibilityTimeout"])
	}
}
