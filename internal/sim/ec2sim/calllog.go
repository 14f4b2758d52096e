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

package ec2sim

import (
	"maps"
	"net/url"
	"time"
)

// Request is one logged EC2 call.
type Request struct {
	// Time is when the call finished, on the Sim's clock.
	Time time.Time `json:"time"`
	// Operation is the Action parameter.
	Operation string `json:"operation"`
	// Params are the decoded form parameters, with user data redacted: users put
	// bootstrap secrets there, and the log is served on the debug endpoint.
	Params url.Values `json:"params"`
	// ErrorCode is the EC2 error code returned, or "" on success.
	// "RequestCanceled" means the client went away while the call was held.
	ErrorCode string `json:"errorCode,omitempty"`
	// HTTPStatus is the status sent, or 0 when no response was written.
	HTTPStatus int `json:"httpStatus"`
}

// maxLoggedRequests bounds the request log, so that a long-running emulator (the
// sandbox) does not grow without limit; the oldest entries go first.
const maxLoggedRequests = 10000

// redactedParams are form parameters whose values are never logged.
var redactedParams = []string{"UserData", "UserData.Value"}

// logRequest appends a finished call to the log.
func (s *Sim) logRequest(op string, form url.Values, code string, status int) {
	params := cloneValues(form)
	for _, k := range redactedParams {
		if params.Has(k) {
			params.Set(k, "(redacted)")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) >= maxLoggedRequests {
		s.requests = append(s.requests[:0], s.requests[len(s.requests)-maxLoggedRequests+1:]...)
	}
	s.requests = append(s.requests, Request{
		Time: s.now(), Operation: op, Params: params, ErrorCode: code, HTTPStatus: status,
	})
}

// Calls returns how many calls of op (successful or failed, including
// retries) have been received since the last ResetCalls.
func (s *Sim) Calls(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

// CallCounts returns a copy of the per-operation call counts.
func (s *Sim) CallCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.calls)
}

// Requests returns a copy of the request log, oldest first.
func (s *Sim) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		r.Params = cloneValues(r.Params)
		out[i] = r
	}
	return out
}

// ResetCalls clears the call counts and the request log, so a test can
// assert on the calls made by one step only.
func (s *Sim) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = map[string]int{}
	s.requests = nil
}

// cloneValues deep-copies form values so callers cannot alias the log.
func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
