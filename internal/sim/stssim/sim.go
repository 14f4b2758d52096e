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

// Package stssim is an in-process emulator of the AWS Security Token
// Service (STS) query API.
//
// It speaks STS's wire protocol (form-encoded requests answered with XML in
// the 2011-06-15 namespace) so that code using the real aws-sdk-go-v2 STS
// client, including stscreds.AssumeRoleProvider, can be tested without
// reaching AWS. It implements AssumeRole and GetCallerIdentity with the
// documented parameter constraints, trust checks (trusted caller keys and
// the sts:ExternalId condition) and error codes.
//
// The simulator models IAM only as far as role assumption needs: accounts,
// base identities (IAM users with long-term access keys) and roles with a
// trust policy. Like ec2sim it does not verify signatures; the caller is
// whoever the SigV4 Credential scope names. Every issued key, secret and
// session token derives from Config.Seed, and expiry follows Config.Now, so
// a test can expire credentials by advancing a fake clock.
package stssim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// DefaultRegion is the region used when Config.Region is empty.
const DefaultRegion = "us-east-1"

// defaultMaxSession is the MaxSessionDuration IAM gives a role that does not
// set one: one hour.
const defaultMaxSession = time.Hour

// Config tunes a Sim. The zero value is usable.
type Config struct {
	// Seed makes issued access keys, secrets, session tokens and unique ids
	// reproducible.
	Seed int64
	// Region is the region the endpoint claims to serve; it defaults to
	// DefaultRegion. STS credentials are global, so it only labels the endpoint.
	Region string
	// Now is the clock; it defaults to time.Now. Tests may pass a fake clock
	// to expire temporary credentials without waiting.
	Now func() time.Time
}

// Sim is an emulated STS endpoint. It implements http.Handler and is safe
// for concurrent use.
type Sim struct {
	cfg Config

	// mu guards everything below; one lock keeps every request atomic.
	mu sync.Mutex

	idRand   *rand.Rand // keys, secrets, tokens and unique ids
	reqSeq   int        // request ids are numbered, so they are deterministic too
	accounts map[string]bool
	roles    map[string]*role      // by role ARN
	keys     map[string]*accessKey // base and temporary keys, by access key id
	calls    map[string]int
}

// role is an IAM role and the parts of its trust policy the simulator models.
type role struct {
	arn        string
	accountID  string
	name       string // the last path segment of the ARN, used in assumed-role ARNs
	id         string // the AROA... unique id
	trusted    map[string]bool
	externalID string
	maxSession time.Duration
}

// accessKey is one access key id and the identity it signs as. Base keys
// (IAM users) never expire; temporary keys issued by AssumeRole carry the
// session token and the expiry the response announced.
type accessKey struct {
	id        string
	secret    string
	accountID string
	arn       string // the caller ARN GetCallerIdentity reports
	userID    string // the UserId GetCallerIdentity reports

	temporary    bool
	sessionToken string
	expires      time.Time
}

// New returns an empty Sim: it knows no accounts, users or roles until the
// Add methods create them.
func New(cfg Config) *Sim {
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Sim{
		cfg:      cfg,
		idRand:   rand.New(rand.NewPCG(uint64(cfg.Seed), 0x575)),
		accounts: map[string]bool{},
		roles:    map[string]*role{},
		keys:     map[string]*accessKey{},
		calls:    map[string]int{},
	}
}

// now reads the configured clock in UTC, the zone STS reports times in.
func (s *Sim) now() time.Time { return s.cfg.Now().UTC() }

// AddAccount makes an AWS account exist. Accounts are also created
// implicitly by AddUser and AddRole.
func (s *Sim) AddAccount(accountID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accounts[accountID] = true
}

// AddUser creates a base identity: an IAM user of accountID, named
// "ec2-operator", whose long-term access key is accessKeyID. It models the
// operator's own identity, the one that calls AssumeRole.
func (s *Sim) AddUser(accountID, accessKeyID, secretKey string) {
	s.AddNamedUser(accountID, "ec2-operator", accessKeyID, secretKey)
}

// AddNamedUser is AddUser with an explicit IAM user name, which appears in
// the caller's ARN (arn:aws:iam::<account>:user/<name>).
func (s *Sim) AddNamedUser(accountID, userName, accessKeyID, secretKey string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accounts[accountID] = true
	s.keys[accessKeyID] = &accessKey{
		id: accessKeyID, secret: secretKey, accountID: accountID,
		arn:    "arn:aws:iam::" + accountID + ":user/" + userName,
		userID: s.uniqueID("AIDA"),
	}
}

// AddRole creates the IAM role roleARN (arn:aws:iam::<account>:role/[path/]name)
// in the account its ARN names. Its trust policy lets exactly the callers
// signing with trustedAccessKeyIDs assume it, and, when externalID is not
// empty, only with a matching ExternalId (the sts:ExternalId condition).
// The role's maximum session duration is one hour, IAM's default. AddRole
// panics on an ARN that is not an IAM role ARN, since that is a mistake in
// the test's setup rather than a request to answer.
func (s *Sim) AddRole(roleARN string, trustedAccessKeyIDs []string, externalID string) {
	accountID, name, ok := parseRoleARN(roleARN)
	if !ok {
		panic(fmt.Sprintf("stssim: %q is not an IAM role ARN", roleARN))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	trusted := map[string]bool{}
	for _, k := range trustedAccessKeyIDs {
		trusted[k] = true
	}
	s.accounts[accountID] = true
	s.roles[roleARN] = &role{
		arn: roleARN, accountID: accountID, name: name, id: s.uniqueID("AROA"),
		trusted: trusted, externalID: externalID, maxSession: defaultMaxSession,
	}
}

// SetRoleMaxSessionDuration changes a role's MaxSessionDuration, which IAM
// allows between one and twelve hours. It reports false when the role does
// not exist or d is outside that range.
func (s *Sim) SetRoleMaxSessionDuration(roleARN string, d time.Duration) bool {
	if d < time.Hour || d > 12*time.Hour {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.roles[roleARN]
	if ok {
		r.maxSession = d
	}
	return ok
}

// Calls reports how many requests named action, successful or not, the Sim
// has received.
func (s *Sim) Calls(action string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[action]
}

// parseRoleARN splits arn:aws:iam::<12-digit account>:role/[path/]name.
func parseRoleARN(arn string) (accountID, name string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[1] == "" || parts[2] != "iam" || parts[3] != "" {
		return "", "", false
	}
	accountID, resource := parts[4], parts[5]
	if !isAccountID(accountID) {
		return "", "", false
	}
	rest, ok := strings.CutPrefix(resource, "role/")
	if !ok || rest == "" || strings.HasSuffix(rest, "/") {
		return "", "", false
	}
	if i := strings.LastIndexByte(rest, '/'); i >= 0 {
		rest = rest[i+1:]
	}
	return accountID, rest, true
}

// isAccountID reports whether id is twelve decimal digits.
func isAccountID(id string) bool {
	if len(id) != 12 {
		return false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
