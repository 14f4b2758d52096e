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
	"time"
)

// repollInterval bounds how long a long poll sleeps between looks at the
// queue. Sends wake it at once; the periodic look catches messages whose
// visibility timeout ended on the (possibly fake) clock.
const repollInterval = 20 * time.Millisecond

// receiveInput is ReceiveMessageInput as the SDK serializes it.
type receiveInput struct {
	QueueUrl                    string
	MaxNumberOfMessages         *int
	VisibilityTimeout           *int
	WaitTimeSeconds             *int
	AttributeNames              []string
	MessageSystemAttributeNames []string
}

// wireMessage is types.Message as the SDK deserializes it.
type wireMessage struct {
	MessageId     string
	ReceiptHandle string
	MD5OfBody     string
	Body          string
	Attributes    map[string]string `json:",omitempty"`
}

// receiveOutput is ReceiveMessageOutput; SQS omits Messages when there are none.
type receiveOutput struct {
	Messages []wireMessage `json:",omitempty"`
}

// receiveMessage implements ReceiveMessage ("ReceiveMessage", Amazon SQS API
// Reference): MaxNumberOfMessages 1..10 (default 1), WaitTimeSeconds 0..20
// (default 0, a short poll), VisibilityTimeout 0..43200 (default the
// queue's). A long poll returns as soon as a message is available, or empty
// when the wait ends or the request is cancelled.
func (s *Sim) receiveMessage(r *http.Request, body []byte) (any, *apiError) {
	var in receiveInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	max, wait := 1, 0
	if in.MaxNumberOfMessages != nil {
		max = *in.MaxNumberOfMessages
		if max < 1 || max > 10 {
			return nil, invalidParameter("Value %d for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.", max)
		}
	}
	if in.WaitTimeSeconds != nil {
		wait = *in.WaitTimeSeconds
		if wait < 0 || wait > 20 {
			return nil, invalidParameter("Value %d for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.", wait)
		}
	}
	if in.VisibilityTimeout != nil && (*in.VisibilityTimeout < 0 || *in.VisibilityTimeout > 43200) {
		return nil, invalidParameter("Value %d for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200, if provided.", *in.VisibilityTimeout)
	}
	attrs := slices.Concat(in.AttributeNames, in.MessageSystemAttributeNames)
	deadline := time.Now().Add(time.Duration(wait) * time.Second)
	for {
		s.mu.Lock()
		q, apiErr := s.lookup(in.QueueUrl)
		if apiErr != nil {
			s.mu.Unlock()
			return nil, apiErr
		}
		visibility := q.visibility
		if in.VisibilityTimeout != nil {
			visibility = time.Duration(*in.VisibilityTimeout) * time.Second
		}
		// Render under the lock: another receive may change the messages next.
		got := render(s.take(q, max, visibility), attrs)
		arrived := s.arrived
		s.mu.Unlock()
		if len(got.Messages) > 0 {
			return got, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return receiveOutput{}, nil
		}
		t := time.NewTimer(min(left, repollInterval))
		select {
		case <-arrived:
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			// The client has gone; what we answer no longer matters.
			return receiveOutput{}, nil
		}
		t.Stop()
	}
}

// render turns received messages into the response, with the system
// attributes the request asked for ("All" or by name), as SQS returns only
// requested attributes. The caller holds s.mu.
func render(ms []*message, names []string) receiveOutput {
	all := slices.Contains(names, "All")
	want := func(n string) bool { return all || slices.Contains(names, n) }
	var out receiveOutput
	for _, m := range ms {
		w := wireMessage{MessageId: m.id, ReceiptHandle: m.handle, MD5OfBody: md5Hex(m.body), Body: m.body}
		a := map[string]string{}
		if want("ApproximateReceiveCount") {
			a["ApproximateReceiveCount"] = strconv.Itoa(m.receiveCount)
		}
		if want("SentTimestamp") {
			a["SentTimestamp"] = strconv.FormatInt(m.sentAt.UnixMilli(), 10)
		}
		if want("ApproximateFirstReceiveTimestamp") {
			a["ApproximateFirstReceiveTimestamp"] = strconv.FormatInt(m.firstReceivedAt.UnixMilli(), 10)
		}
		if len(a) > 0 {
			w.Attributes = a
		}
		out.Messages = append(out.Messages, w)
	}
	return out
}
