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
	"net/http"
	"strings"
)

// KeyState is what the Sim knows about an access key id.
type KeyState int

const (
	// KeyUnknown means no user owns the key and AssumeRole never issued it.
	KeyUnknown KeyState = iota
	// KeyValid means the key is a base key or an unexpired temporary key.
	KeyValid
	// KeyExpired means AssumeRole issued the key and its Expiration has passed.
	KeyExpired
)

// String names the state for test failure messages.
func (k KeyState) String() string {
	switch k {
	case KeyValid:
		return "valid"
	case KeyExpired:
		return "expired"
	default:
		return "unknown"
	}
}

// LookupAccessKey reports which account accessKeyID acts in and whether it
// is still usable. Services answer differently for an unknown key and for
// an expired one, so both are reported; accountID is set for valid and
// expired keys alike.
func (s *Sim) LookupAccessKey(accessKeyID string) (accountID string, state KeyState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.keys[accessKeyID]
	if !ok {
		return "", KeyUnknown
	}
	if s.expired(k) {
		return k.accountID, KeyExpired
	}
	return k.accountID, KeyValid
}

// LookupCredentials is LookupAccessKey for a whole credential set: a
// temporary key is only known together with the session token AssumeRole
// issued with it, and a long-term key is used without one, so a mismatched
// or missing token makes the credentials unknown (AWS answers such
// requests as it does an unknown key).
func (s *Sim) LookupCredentials(accessKeyID, sessionToken string) (accountID string, state KeyState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.keys[accessKeyID]
	if !ok || k.sessionToken != sessionToken {
		return "", KeyUnknown
	}
	if s.expired(k) {
		return k.accountID, KeyExpired
	}
	return k.accountID, KeyValid
}

// AccountOfAccessKey returns the account a usable access key acts in: a
// base key's account, or the account of the role a temporary key was issued
// for. An expired temporary key is not usable and reports ok false, like an
// unknown one; use LookupAccessKey to tell the two apart.
func (s *Sim) AccountOfAccessKey(accessKeyID string) (accountID string, ok bool) {
	accountID, state := s.LookupAccessKey(accessKeyID)
	if state != KeyValid {
		return "", false
	}
	return accountID, true
}

// expired reports whether a temporary key's Expiration has been reached.
// The caller holds s.mu.
func (s *Sim) expired(k *accessKey) bool {
	return k.temporary && !s.now().Before(k.expires)
}

// AccessKeyFromRequest returns the access key id a SigV4-signed request
// names: the first component of the Authorization header's
// "Credential=<AccessKeyId>/<date>/<region>/<service>/aws4_request", or of
// the X-Amz-Credential query parameter of a presigned URL. It returns ""
// when the request is not signed. The signature itself is not checked.
func AccessKeyFromRequest(r *http.Request) string {
	if auth := r.Header.Get("Authorization"); auth != "" {
		_, rest, ok := strings.Cut(auth, "Credential=")
		if !ok {
			return ""
		}
		if i := strings.IndexAny(rest, ", "); i >= 0 {
			rest = rest[:i]
		}
		id, _, _ := strings.Cut(rest, "/")
		return id
	}
	id, _, _ := strings.Cut(r.URL.Query().Get("X-Amz-Credential"), "/")
	return id
}

// SessionTokenFromRequest returns the session token a request carries with
// temporary credentials, in the X-Amz-Security-Token header or, for a
// presigned URL, query parameter; "" when there is none.
func SessionTokenFromRequest(r *http.Request) string {
	if t := r.Header.Get("X-Amz-Security-Token"); t != "" {
		return t
	}
	return r.URL.Query().Get("X-Amz-Security-Token")
}
