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
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"time"
)

// queue is one standard queue. Messages stay in send order; a received
// message stays in place but is invisible until its visibility timeout ends.
type queue struct {
	name string
	// visibility is the queue's VisibilityTimeout attribute.
	visibility time.Duration
	messages   []*message
}

// message is one message in a queue.
type message struct {
	id, body string
	sentAt   time.Time
	// firstReceivedAt is when the message was first received, or zero.
	firstReceivedAt time.Time
	// invisibleUntil hides an in-flight message; zero or past means visible.
	invisibleUntil time.Time
	receiveCount   int
	// handle is the receipt handle of the latest receive; only it deletes
	// the message, as SQS documents for standard queues.
	handle string
	// deleted is set once the message leaves its queue.
	deleted bool
	q       *queue
}

// enqueue appends a message and wakes long polls. The caller holds s.mu.
func (s *Sim) enqueue(q *queue, body string) *message {
	m := &message{id: s.uuid(), body: body, sentAt: s.now(), q: q}
	q.messages = append(q.messages, m)
	close(s.arrived)
	s.arrived = make(chan struct{})
	return m
}

// take receives up to max visible messages, hiding each for visibility and
// giving it a fresh receipt handle. The caller holds s.mu.
func (s *Sim) take(q *queue, max int, visibility time.Duration) []*message {
	now := s.now()
	var out []*message
	for _, m := range q.messages {
		if len(out) == max {
			break
		}
		if now.Before(m.invisibleUntil) {
			continue
		}
		m.receiveCount++
		if m.firstReceivedAt.IsZero() {
			m.firstReceivedAt = now
		}
		m.invisibleUntil = now.Add(visibility)
		m.handle = s.receiptHandle(m)
		s.handles[m.handle] = m
		out = append(out, m)
	}
	return out
}

// remove deletes m if handle is its latest receipt handle. A stale handle
// (the message was received again since) succeeds without deleting, which
// is what SQS does for standard queues. The caller holds s.mu.
func (s *Sim) remove(m *message, handle string) {
	if m.deleted || m.handle != handle {
		return
	}
	m.deleted = true
	m.q.messages = slices.DeleteFunc(m.q.messages, func(x *message) bool { return x == m })
}

// visibleCount and inFlightCount back the ApproximateNumberOfMessages and
// ApproximateNumberOfMessagesNotVisible attributes.
func (q *queue) counts(now time.Time) (visible, inFlight int) {
	for _, m := range q.messages {
		if now.Before(m.invisibleUntil) {
			inFlight++
		} else {
			visible++
		}
	}
	return visible, inFlight
}

// receiptHandle makes an opaque handle; like SQS's it is long, base64 and
// different on every receive. The caller holds s.mu.
func (s *Sim) receiptHandle(m *message) string {
	raw := make([]byte, 48)
	for i := range raw {
		raw[i] = byte(s.rand.IntN(256))
	}
	return base64.StdEncoding.EncodeToString(append([]byte(m.id+"#"), raw...))
}

// uuid draws a version 4 UUID, the form SQS message ids take. The caller
// holds s.mu.
func (s *Sim) uuid() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(s.rand.IntN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// md5Hex is the MD5OfBody / MD5OfMessageBody the SDK checks against the body.
func md5Hex(body string) string {
	sum := md5.Sum([]byte(body))
	return hex.EncodeToString(sum[:])
}
