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
)

// deleteInput is DeleteMessageInput as the SDK serializes it.
type deleteInput struct {
	QueueUrl      string
	ReceiptHandle string
}

// deleteMessage implements DeleteMessage ("DeleteMessage", Amazon SQS API
// Reference). The latest receipt handle deletes the message; an older one
// for the same message, or one for a message already deleted, succeeds
// without effect, as the reference describes for standard queues. A handle
// SQS never issued fails with ReceiptHandleIsInvalid.
func (s *Sim) deleteMessage(_ *http.Request, body []byte) (any, *apiError) {
	var in deleteInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, apiErr := s.lookup(in.QueueUrl)
	if apiErr != nil {
		return nil, apiErr
	}
	if in.ReceiptHandle == "" {
		return nil, missingParameter("ReceiptHandle")
	}
	if apiErr := s.deleteOne(q, in.ReceiptHandle); apiErr != nil {
		return nil, apiErr
	}
	return struct{}{}, nil
}

// deleteOne deletes the message behind handle from q. The caller holds s.mu.
func (s *Sim) deleteOne(q *queue, handle string) *apiError {
	m := s.handles[handle]
	if m == nil || m.q != q {
		return errReceiptHandle(handle)
	}
	s.remove(m, handle)
	return nil
}

// batchDeleteInput is DeleteMessageBatchInput as the SDK serializes it.
type batchDeleteInput struct {
	QueueUrl string
	Entries  []struct {
		Id            string
		ReceiptHandle string
	}
}

// batchResultError is types.BatchResultErrorEntry.
type batchResultError struct {
	Id          string
	SenderFault bool
	Code        string
	Message     string
}

// batchDeleteOutput is DeleteMessageBatchOutput. SQS always sends both
// lists, which the SDK models as required members.
type batchDeleteOutput struct {
	Successful []batchResultOK
	Failed     []batchResultError
}

// batchResultOK is types.DeleteMessageBatchResultEntry.
type batchResultOK struct {
	Id string
}

// deleteMessageBatch implements DeleteMessageBatch ("DeleteMessageBatch",
// Amazon SQS API Reference): up to ten entries, each with a distinct Id;
// the call succeeds as a whole and reports each entry as Successful or
// Failed (with the entry's error code, e.g. ReceiptHandleIsInvalid). An
// empty batch, more than ten entries, duplicate or malformed ids fail the
// whole call.
func (s *Sim) deleteMessageBatch(_ *http.Request, body []byte) (any, *apiError) {
	var in batchDeleteInput
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, apiErr := s.lookup(in.QueueUrl)
	if apiErr != nil {
		return nil, apiErr
	}
	if apiErr := checkBatch(len(in.Entries), func(i int) string { return in.Entries[i].Id }); apiErr != nil {
		return nil, apiErr
	}
	out := batchDeleteOutput{Successful: []batchResultOK{}, Failed: []batchResultError{}}
	for _, e := range in.Entries {
		if err := s.deleteOne(q, e.ReceiptHandle); err != nil {
			out.Failed = append(out.Failed, batchResultError{Id: e.Id, SenderFault: err.Sender, Code: err.QueryCode, Message: err.Message})
			continue
		}
		out.Successful = append(out.Successful, batchResultOK{Id: e.Id})
	}
	return out, nil
}
