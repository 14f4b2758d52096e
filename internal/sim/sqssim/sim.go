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

// Package sqssim is an in-process emulator of the Amazon SQS API.
//
// It speaks the AWS JSON 1.0 protocol the aws-sdk-go-v2 SQS client uses
// (POST with X-Amz-Target: AmazonSQS.<Action>, JSON bodies, JSON errors with
// __type plus the x-amzn-query-error header) and implements the actions an
// event consumer needs: ReceiveMessage with long polling and visibility
// timeouts, DeleteMessage, DeleteMessageBatch, SendMessage and
// GetQueueAttributes. Queues are standard queues that deliver in send order.
//
// Visibility timeouts follow Config.Now so tests can move a fake clock past
// them; long polls wait in real time because the client waits in real time.
package sqssim

import (
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// Defaults used when Config leaves a field empty.
const (
	// DefaultRegion is the region used when Config.Region is empty.
	DefaultRegion = "us-east-1"
	// DefaultAccountID owns every queue when Config.AccountID is empty.
	DefaultAccountID = "123456789012"
	// DefaultVisibilityTimeout is a new queue's VisibilityTimeout attribute,
	// 30 seconds as in SQS.
	DefaultVisibilityTimeout = 30 * time.Second
)

// Config tunes a Sim. The zero value is usable.
type Config struct {
	// Region appears in queue URLs and QueueArn; it defaults to DefaultRegion.
	Region string
	// AccountID is the second path element of every queue URL; it defaults
	// to DefaultAccountID.
	AccountID string
	// Now is the clock visibility timeouts run on; it defaults to time.Now.
	Now func() time.Time
	// Seed makes message ids and receipt handles reproducible.
	Seed int64
}

// Sim is an emulated SQS endpoint. It implements http.Handler and is safe
// for concurrent use.
type Sim struct {
	cfg Config

	// mu guards everything below.
	mu   sync.Mutex
	rand *rand.Rand
	// queues are keyed by "/<account>/<name>", the path of the queue URL, so
	// a queue answers whatever host the test server listens on.
	queues map[string]*queue
	// handles maps every receipt handle ever issued to its message, which
	// lets a stale handle be told apart from an invalid one.
	handles map[string]*message
	calls   map[string]int
	// unavailable makes every call fail with 503 ServiceUnavailable.
	unavailable bool
	// arrived is closed and replaced whenever a message is sent, waking long polls.
	arrived chan struct{}
}

// New returns an empty Sim.
func New(cfg Config) *Sim {
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}
	if cfg.AccountID == "" {
		cfg.AccountID = DefaultAccountID
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Sim{
		cfg:     cfg,
		rand:    rand.New(rand.NewPCG(uint64(cfg.Seed), 0x5a5)),
		queues:  map[string]*queue{},
		handles: map[string]*message{},
		calls:   map[string]int{},
		arrived: make(chan struct{}),
	}
}

// CreateQueue creates a standard queue (or returns the existing one's URL)
// and returns its URL, http://sqs.<region>.localhost/<account>/<name>. Any
// request whose QueueUrl has the same path reaches the queue, so callers
// may swap in their test server's host.
func (s *Sim) CreateQueue(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := "/" + s.cfg.AccountID + "/" + name
	if s.queues[path] == nil {
		s.queues[path] = &queue{name: name, visibility: DefaultVisibilityTimeout}
	}
	return "http://sqs." + s.cfg.Region + ".localhost" + path
}

// Send enqueues body on the queue as SendMessage would and returns the
// message id. It panics if the queue does not exist, a test bug.
func (s *Sim) Send(queueURL, body string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue(queueURL)
	if q == nil {
		panic("sqssim: Send to unknown queue " + queueURL)
	}
	return s.enqueue(q, body).id
}

// Messages reports how many messages the queue holds, visible or in flight.
// It is 0 for an unknown queue.
func (s *Sim) Messages(queueURL string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q := s.queue(queueURL); q != nil {
		return len(q.messages)
	}
	return 0
}

// Calls reports how many requests for action (e.g. "ReceiveMessage") have
// arrived, including failed ones.
func (s *Sim) Calls(action string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[action]
}

// SetUnavailable makes every call fail with HTTP 503 ServiceUnavailable
// while on is true, as if the SQS endpoint were unreachable.
func (s *Sim) SetUnavailable(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unavailable = on
}

// queue resolves a queue URL by its path, ignoring scheme and host. The
// caller holds s.mu.
func (s *Sim) queue(queueURL string) *queue {
	path := queueURL
	if i := strings.Index(path, "://"); i >= 0 {
		path = path[i+3:]
		if j := strings.Index(path, "/"); j >= 0 {
			path = path[j:]
		} else {
			path = ""
		}
	}
	return s.queues[strings.TrimSuffix(path, "/")]
}

// now reads the configured clock.
func (s *Sim) now() time.Time { return s.cfg.Now() }
