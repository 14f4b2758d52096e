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

// Package accounts routes EC2 query-protocol requests to one emulated EC2
// endpoint per AWS account, choosing the account from the request's
// credentials the way AWS does: an access key belongs to exactly one
// account, and temporary keys issued by sts:AssumeRole act in the account
// of the assumed role. Credentials of one account therefore never reach
// another account's resources.
package accounts

import (
	"fmt"
	"maps"
	"net/http"
	"sync/atomic"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/stssim"
)

// Router is an http.Handler that forwards each EC2 request to the Sim of
// the account its signing access key acts in.
type Router struct {
	sts  *stssim.Sim
	sims map[string]*ec2sim.Sim
	// reqSeq numbers the request ids of the errors the router answers
	// itself, so they are deterministic like the Sims' own ids.
	reqSeq atomic.Int64
	// unknownKeysAccount, when set, is where requests signed with a key STS has
	// no record of go (see AcceptUnknownKeysAs).
	unknownKeysAccount string
}

// NewRouter returns a handler that resolves every request's access key with
// sts and forwards the request to sims[account]. Each Sim should be built
// with ec2sim.Config.AccountID set to its key in sims, so owner ids and
// ARNs name the right account. The map is copied.
func NewRouter(sts *stssim.Sim, sims map[string]*ec2sim.Sim) *Router {
	return &Router{sts: sts, sims: maps.Clone(sims)}
}

// AcceptUnknownKeysAs sends requests signed with a long-term key STS has no record of
// to the Sim of accountID instead of answering AuthFailure. It is a convenience of the
// local sandbox, where the AWS CLI and the manager sign with any placeholder key as a
// single Sim accepts them; AWS itself refuses unknown keys, and a router without it
// does too. Temporary keys (with a session token) are never let through this way.
// Call it before serving requests.
func (rt *Router) AcceptUnknownKeysAs(accountID string) {
	rt.unknownKeysAccount = accountID
}

// ServeHTTP authenticates the request as EC2 does and forwards it. An
// unsigned request, an unknown key (or a temporary key without its own
// session token), an expired temporary key and an account
// without an EC2 endpoint each get EC2's error for that case, as an EC2
// error document, and never reach any Sim.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	keyID := stssim.AccessKeyFromRequest(r)
	if keyID == "" {
		rt.writeError(w, errMissingAuth)
		return
	}
	token := stssim.SessionTokenFromRequest(r)
	accountID, state := rt.sts.LookupCredentials(keyID, token)
	switch {
	case state == stssim.KeyUnknown && rt.unknownKeysAccount != "" && token == "":
		accountID = rt.unknownKeysAccount
	case state == stssim.KeyUnknown:
		rt.writeError(w, errAuthFailure)
		return
	case state == stssim.KeyExpired:
		rt.writeError(w, errRequestExpired)
		return
	}
	sim, ok := rt.sims[accountID]
	if !ok {
		rt.writeError(w, errOptInRequired)
		return
	}
	sim.ServeHTTP(w, r)
}

// writeError sends EC2's error document,
// Response/Errors/Error/{Code,Message} plus RequestID, which is what the
// SDK's ec2query error parser reads.
func (rt *Router) writeError(w http.ResponseWriter, e routeError) {
	reqID := fmt.Sprintf("acc0acc0-0000-4000-8000-%012x", rt.reqSeq.Add(1))
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.WriteHeader(e.status)
	_, _ = fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<Response><Errors><Error><Code>%s</Code><Message>%s</Message></Error></Errors><RequestID>%s</RequestID></Response>`,
		e.code, e.message, reqID)
}
