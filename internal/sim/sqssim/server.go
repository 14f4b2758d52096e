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
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// targetPrefix prefixes the X-Amz-Target header of every SQS JSON request.
const targetPrefix = "AmazonSQS."

// jsonContentType is the AWS JSON 1.0 media type for requests and responses.
const jsonContentType = "application/x-amz-json-1.0"

// action runs one SQS action with the lock released; it decodes body itself
// and returns the response document or an error.
type action func(s *Sim, r *http.Request, body []byte) (any, *apiError)

// actions maps X-Amz-Target action names to implementations.
var actions = map[string]action{
	"ReceiveMessage":     (*Sim).receiveMessage,
	"DeleteMessage":      (*Sim).deleteMessage,
	"DeleteMessageBatch": (*Sim).deleteMessageBatch,
	"SendMessage":        (*Sim).sendMessage,
	"GetQueueAttributes": (*Sim).getQueueAttributes,
}

// ServeHTTP answers AWS JSON 1.0 SQS requests at any path. Signatures are
// not checked.
func (s *Sim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, _ := strings.CutPrefix(r.Header.Get("X-Amz-Target"), targetPrefix)
	s.mu.Lock()
	s.calls[name]++
	unavailable := s.unavailable
	s.mu.Unlock()
	if unavailable {
		writeError(w, errUnavailable())
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, invalidAction(name))
		return
	}
	act, ok := actions[name]
	if !ok {
		writeError(w, invalidAction(name))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, malformed(err))
		return
	}
	out, apiErr := act(s, r, body)
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	w.Header().Set("Content-Type", jsonContentType)
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(out)
}

// decode unmarshals a request body; an empty body is an empty object.
func decode(body []byte, v any) *apiError {
	if len(body) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return malformed(err)
	}
	return nil
}

// lookup resolves a request's QueueUrl, failing as SQS does for a queue
// that does not exist. The caller holds s.mu.
func (s *Sim) lookup(queueURL string) (*queue, *apiError) {
	if queueURL == "" {
		return nil, missingParameter("QueueUrl")
	}
	q := s.queue(queueURL)
	if q == nil {
		return nil, errNoQueue()
	}
	return q, nil
}
