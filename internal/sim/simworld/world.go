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

// Package simworld builds, in one call, the AWS world that tests of accounts run in:
// an STS emulator that knows the operator's key and the roles it may assume, an EC2
// emulator per account, and the router that sends each EC2 request to the account its
// key acts in, all served over loopback HTTP for the test's lifetime. It is imported
// by tests only.
//
// It is not part of package simtest because it imports the emulators, whose own
// in-package tests import simtest: one package could not serve both without a cycle.
package simworld

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim/accounts"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	"github.com/ec2-operator/ec2-operator/internal/sim/stssim"
)

// World is the running world.
type World struct {
	// Clock is the clock given with WithClock, or nil.
	Clock *simtest.Clock
	// STS is the STS emulator, served at STSURL.
	STS *stssim.Sim
	// Sims are the EC2 emulators by account ID.
	Sims map[string]*ec2sim.Sim
	// Router sends each EC2 request to the emulator of the account its key acts in;
	// it is served at EC2URL.
	Router *accounts.Router
	// STSURL and EC2URL are the loopback endpoints of STS and of the router.
	STSURL, EC2URL string
}

// Option configures New.
type Option func(*config)

type config struct {
	sts     stssim.Config
	clock   *simtest.Clock
	setup   []func(*stssim.Sim)
	ids     []string
	configs map[string]ec2sim.Config
	sims    map[string]*ec2sim.Sim
}

// STS sets the STS emulator's configuration (its seed; its clock unless WithClock).
func STS(cfg stssim.Config) Option {
	return func(c *config) { c.sts = cfg }
}

// WithClock makes clock the clock of STS and of every emulator New builds.
func WithClock(clock *simtest.Clock) Option {
	return func(c *config) { c.clock = clock }
}

// User adds a long-term key to STS: the identity of a user in account.
func User(account, keyID, secret string) Option {
	return func(c *config) {
		c.setup = append(c.setup, func(s *stssim.Sim) { s.AddUser(account, keyID, secret) })
	}
}

// Role adds a role to STS that the given keys may assume, guarded by externalID
// unless it is empty.
func Role(roleARN, externalID string, trusted ...string) Option {
	return func(c *config) {
		c.setup = append(c.setup, func(s *stssim.Sim) { s.AddRole(roleARN, trusted, externalID) })
	}
}

// Account adds an account whose EC2 emulator New builds from cfg, with cfg.AccountID
// set to id. Give each account its own seed: distinct seeds keep instance IDs distinct
// across accounts, so that an instance can only be found in the account that
// launched it.
func Account(id string, cfg ec2sim.Config) Option {
	return func(c *config) {
		c.ids = append(c.ids, id)
		cfg.AccountID = id
		c.configs[id] = cfg
	}
}

// AccountSim adds an account whose EC2 emulator the test built itself.
func AccountSim(id string, sim *ec2sim.Sim) Option {
	return func(c *config) {
		c.ids = append(c.ids, id)
		c.sims[id] = sim
	}
}

// New builds the world and serves STS and the router until the test ends.
func New(t testing.TB, opts ...Option) *World {
	t.Helper()
	c := &config{configs: map[string]ec2sim.Config{}, sims: map[string]*ec2sim.Sim{}}
	for _, o := range opts {
		o(c)
	}
	if c.clock != nil {
		c.sts.Now = c.clock.Now
	}
	w := &World{Clock: c.clock, STS: stssim.New(c.sts), Sims: map[string]*ec2sim.Sim{}}
	for _, f := range c.setup {
		f(w.STS)
	}
	for _, id := range c.ids {
		if sim, ok := c.sims[id]; ok {
			w.Sims[id] = sim
			continue
		}
		cfg := c.configs[id]
		if c.clock != nil {
			cfg.Now = c.clock.Now
		}
		w.Sims[id] = ec2sim.New(cfg)
	}
	w.Router = accounts.NewRouter(w.STS, w.Sims)
	w.STSURL = simtest.Serve(t, w.STS)
	w.EC2URL = simtest.Serve(t, w.Router)
	return w
}

// EC2Client returns a real SDK EC2 client that signs with creds and sends to the
// router, with fast retries.
func (w *World) EC2Client(creds aws.CredentialsProvider) *ec2.Client {
	cfg := simtest.SDKConfig(ec2sim.DefaultRegion, "", "")
	cfg.Credentials = creds
	return simtest.EC2Client(cfg, w.EC2URL)
}

// StaticClient returns an EC2 client that signs with fixed keys.
func (w *World) StaticClient(keyID, secret, token string) *ec2.Client {
	return w.EC2Client(credentials.NewStaticCredentialsProvider(keyID, secret, token))
}

// AssumedCredentials is what the operator builds for an AWSAccount: the SDK's
// AssumeRole provider, signing its STS calls with keyID and secret, passing
// externalID (none when empty) and naming the session, behind the SDK's cache.
func (w *World) AssumedCredentials(keyID, secret, roleARN, externalID, session string) *aws.CredentialsCache {
	stsClient := simtest.STSClient(simtest.SDKConfig(stssim.DefaultRegion, keyID, secret), w.STSURL)
	return aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(stsClient, roleARN, func(o *stscreds.AssumeRoleOptions) {
		if externalID != "" {
			o.ExternalID = aws.String(externalID)
		}
		o.RoleSessionName = session
	}))
}

// Requests returns the requests every account's emulator logged, account by account.
func (w *World) Requests() []ec2sim.Request {
	return Requests(w.all()...)
}

// ClientTokens counts the requests of operation op in every account by client token.
func (w *World) ClientTokens(op string) map[string]int {
	return ClientTokens(op, w.all()...)
}

// RequestsCarrying returns the requests, in any account, with a parameter of value.
func (w *World) RequestsCarrying(value string) []ec2sim.Request {
	return RequestsCarrying(value, w.all()...)
}

// all returns the emulators in the order of their account IDs, so that what is
// gathered from them comes in the same order in every run.
func (w *World) all() []*ec2sim.Sim {
	var out []*ec2sim.Sim
	for _, id := range simtest.SortedKeys(w.Sims) {
		out = append(out, w.Sims[id])
	}
	return out
}

// Requests returns the requests the emulators logged, one emulator after another.
func Requests(sims ...*ec2sim.Sim) []ec2sim.Request {
	var out []ec2sim.Request
	for _, s := range sims {
		out = append(out, s.Requests()...)
	}
	return out
}

// ClientTokens counts the logged requests of operation op by their ClientToken
// parameter: a token counted more than once was sent again (EC2 answers a repeat with
// what the first call made), and the number of tokens is the number of launches.
func ClientTokens(op string, sims ...*ec2sim.Sim) map[string]int {
	tokens := map[string]int{}
	for _, r := range Requests(sims...) {
		if r.Operation == op {
			tokens[r.Params.Get("ClientToken")]++
		}
	}
	return tokens
}

// RequestsCarrying returns the logged requests with a parameter whose value is value,
// to show that something (a namespace, a name) reached AWS or did not.
func RequestsCarrying(value string, sims ...*ec2sim.Sim) []ec2sim.Request {
	var out []ec2sim.Request
	for _, r := range Requests(sims...) {
		for _, values := range r.Params {
			if slices.Contains(values, value) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}
