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

package stssim

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// apiVersion is the only STS API version; the SDK always sends it.
const apiVersion = "2011-06-15"

// xmlNamespace is the namespace STS puts on every response and error root.
const xmlNamespace = "https://sts.amazonaws.com/doc/" + apiVersion + "/"

// handler processes one STS action with the lock held, on behalf of the
// already authenticated caller. It writes the children of the
// <Action>Result element into x or returns the error to send instead.
type handler func(s *Sim, caller *accessKey, form url.Values, x *xmlBuilder) *apiError

// handlers maps Action names to their implementations.
var handlers = map[string]handler{
	"AssumeRole":        (*Sim).assumeRole,
	"GetCallerIdentity": (*Sim).getCallerIdentity,
}

// ServeHTTP answers STS query-protocol requests (POST form bodies or GET
// query strings) at any path. The caller is identified by the access key in
// the SigV4 credential scope; signatures are not checked.
func (s *Sim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parseErr := r.ParseForm()
	op := r.Form.Get("Action")

	s.mu.Lock()
	s.calls[op]++
	reqID := s.newRequestID()
	x := &xmlBuilder{}
	var apiErr *apiError
	if parseErr != nil {
		apiErr = senderErr(http.StatusBadRequest, "MalformedQueryString", "%v", parseErr)
	} else {
		apiErr = s.dispatch(op, AccessKeyFromRequest(r), SessionTokenFromRequest(r), r.Form, x)
	}
	s.mu.Unlock()

	if apiErr != nil {
		writeError(w, reqID, apiErr)
		return
	}
	var out xmlBuilder
	out.b.WriteString("<" + op + "Response xmlns=\"" + xmlNamespace + "\">")
	out.open(op + "Result")
	out.b.WriteString(x.b.String())
	out.close(op + "Result")
	out.open("ResponseMetadata")
	out.leaf("RequestId", reqID)
	out.close("ResponseMetadata")
	out.close(op + "Response")
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("X-Amzn-Requestid", reqID)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(out.b.String()))
}

// dispatch validates the action, authenticates the caller and runs the
// handler. The caller holds s.mu.
func (s *Sim) dispatch(op, keyID, token string, form url.Values, x *xmlBuilder) *apiError {
	if op == "" {
		return senderErr(http.StatusBadRequest, "MissingAction", "Missing Action")
	}
	h, ok := handlers[op]
	if !ok {
		return senderErr(http.StatusBadRequest, "InvalidAction", "Could not find operation %s for version %s", op, apiVersion)
	}
	caller, apiErr := s.authenticate(keyID, token)
	if apiErr != nil {
		return apiErr
	}
	return h(s, caller, form, x)
}

// authenticate resolves the signing access key to its identity, answering
// as STS does for unsigned requests, unknown keys, a session token that does
// not belong to the key, and expired temporary credentials. The caller
// holds s.mu.
func (s *Sim) authenticate(keyID, token string) (*accessKey, *apiError) {
	if keyID == "" {
		return nil, missingAuthToken()
	}
	k, ok := s.keys[keyID]
	if !ok || k.sessionToken != token {
		return nil, invalidClientToken()
	}
	if s.expired(k) {
		return nil, expiredToken()
	}
	return k, nil
}

// writeError sends STS's error document,
// ErrorResponse/Error/{Type,Code,Message} plus RequestId; the SDK's
// awsquery protocol reads Code and Message from the Error element.
func writeError(w http.ResponseWriter, reqID string, e *apiError) {
	var x xmlBuilder
	x.b.WriteString("<ErrorResponse xmlns=\"" + xmlNamespace + "\">")
	x.open("Error")
	x.leaf("Type", e.Type)
	x.leaf("Code", e.Code)
	x.leaf("Message", e.Message)
	x.close("Error")
	x.leaf("RequestId", reqID)
	x.close("ErrorResponse")
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("X-Amzn-Requestid", reqID)
	w.WriteHeader(e.Status)
	_, _ = w.Write([]byte(x.b.String()))
}

// xmlBuilder writes STS-style XML: plain element trees without attributes,
// so a small builder keeps each element name visible at its call site.
type xmlBuilder struct {
	b strings.Builder
}

// open starts an element.
func (x *xmlBuilder) open(name string) { x.b.WriteString("<" + name + ">") }

// close ends an element.
func (x *xmlBuilder) close(name string) { x.b.WriteString("</" + name + ">") }

// leaf writes an element holding escaped text.
func (x *xmlBuilder) leaf(name, value string) {
	x.b.WriteString("<" + name + ">" + html.EscapeString(value) + "</" + name + ">")
}

// timeLeaf writes an ISO 8601 timestamp in whole seconds, as STS renders
// Credentials.Expiration (e.g. 2025-06-01T13:00:00Z).
func (x *xmlBuilder) timeLeaf(name string, t time.Time) {
	x.leaf(name, t.UTC().Format("2006-01-02T15:04:05Z"))
}
