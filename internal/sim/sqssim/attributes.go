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
	"net/http"
	"slices"
	"strconv"
)

// sendInput is SendMessageInput as the SDK serializes it.
type sendInput struct {
	QueueUrl    string
	MessageBody *string
}

// sendOutput is SendMessageOutput; the SDK checks MD5OfMessageBody against
// the body it sent.
type sendOutput struct {
	MD5OfMessageBody string
	MessageId        string
}

// sendMessage implements SendMessage ("SendMessage", Amazon SQS API
// Reference) for plain bodies; delays and message attributes are ignored.
func (s *Sim) sendMessage(_ *http.Request, body []byte) (any, *apiError) {
	var in sendInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, apiErr := s.lookup(in.QueueUrl)
	if apiErr != nil {
		return nil, apiErr
	}
	if in.MessageBody == nil || *in.MessageBody == "" {
		return nil, missingParameter("MessageBody")
	}
	m := s.enqueue(q, *in.MessageBody)
	return sendOutput{MD5OfMessageBody: md5Hex(m.body), MessageId: m.id}, nil
}

// attributesInput is GetQueueAttributesInput as the SDK serializes it.
type attributesInput struct {
	QueueUrl       string
	AttributeNames []string
}

// attributesOutput is GetQueueAttributesOutput.
type attributesOutput struct {
	Attributes map[string]string `json:",omitempty"`
}

// getQueueAttributes implements GetQueueAttributes ("GetQueueAttributes",
// Amazon SQS API Reference) for the attributes the simulator models:
// ApproximateNumberOfMessages (visible), ApproximateNumberOfMessagesNotVisible
// (in flight), ApproximateNumberOfMessagesDelayed (always 0),
// VisibilityTimeout and QueueArn. "All" returns every one; other names are
// ignored rather than rejected.
func (s *Sim) getQueueAttributes(_ *http.Request, body []byte) (any, *apiError) {
	var in attributesInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, apiErr := s.lookup(in.QueueUrl)
	if apiErr != nil {
		return nil, apiErr
	}
	visible, inFlight := q.counts(s.now())
	known := map[string]string{
		"ApproximateNumberOfMessages":           strconv.Itoa(visible),
		"ApproximateNumberOfMessagesNotVisible": strconv.Itoa(inFlight),
		"ApproximateNumberOfMessagesDelayed":    "0",
		"VisibilityTimeout":                     strconv.Itoa(int(q.visibility.Seconds())),
		"QueueArn":                              "arn:aws:sqs:" + s.cfg.Region + ":" + s.cfg.AccountID + ":" + q.name,
	}
	out := attributesOutput{Attributes: map[string]string{}}
	all := slices.Contains(in.AttributeNames, "All")
	for k, v := range known {
		if all || slices.Contains(in.AttributeNames, k) {
			out.Attributes[k] = v
		}
	}
	return out, nil
}
