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

package events

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/go-logr/logr"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	"github.com/ec2-operator/ec2-operator/internal/sim/sqssim"
)

// These tests run the consumer against the SQS emulator through the real SDK client.

func stateChange(id, state string) string {
	return fmt.Sprintf(`{"version":"0","id":"e-%s-%s","detail-type":"EC2 Instance State-change Notification","source":"aws.ec2",`+
		`"account":"123456789012","time":"2026-12-01T10:00:00Z","region":"us-east-1",`+
		`"resources":["arn:aws:ec2:us-east-1:123456789012:instance/%s"],"detail":{"instance-id":"%s","state":"%s"}}`, id, state, id, id, state)
}

// recorder collects handled events; instances named "i-mine..." are owned.
type recorder struct {
	mu   sync.Mutex
	seen []Event
}

func (r *recorder) handle(_ context.Context, e Event) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, e)
	return len(e.InstanceID) > 6 && e.InstanceID[:6] == "i-mine"
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

func newQueue(t *testing.T) (*sqssim.Sim, *sqs.Client, string) {
	t.Helper()
	q := sqssim.New(sqssim.Config{Seed: 1})
	cfg := simtest.SDKConfig("us-east-1", "AKIDEXAMPLE", "secret")
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) { o.MaxAttempts = 1 })
	}
	client := simtest.SQSClient(cfg, simtest.Serve(t, q))
	return q, client, q.CreateQueue("ec2-operator-events")
}

func startConsumer(t *testing.T, c *Consumer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// eventually waits up to 10 s for cond, checking every 20 ms.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	simtest.Eventually(t, 10*time.Second, 20*time.Millisecond, func() string {
		if cond() {
			return ""
		}
		return "waiting for " + what
	})
}

func TestEventsAreHandedOnAndDeletedInBatches(t *testing.T) {
	q, client, url := newQueue(t)
	rec := &recorder{}
	var received sync.Map
	startConsumer(t, &Consumer{QueueURL: url, SQS: client, Handle: rec.handle, Log: logr.Discard(), WaitTime: time.Second,
		Observe: Observer{Received: func(dt string, owned bool) { received.Store(fmt.Sprint(dt, owned), true) }}})

	for i := range 12 {
		q.Send(url, stateChange(fmt.Sprintf("i-mine%011d", i), "stopped"))
	}
	q.Send(url, stateChange("i-0other000000000", "running"))
	q.Send(url, `{"not":"an event"}`)
	eventually(t, "13 events handled and the queue emptied", func() bool { return rec.count() == 13 && q.Messages(url) == 0 })
	if n := q.Calls("DeleteMessageBatch"); n < 2 || n > 3 {
		t.Errorf("%d DeleteMessageBatch calls for 14 messages, want one per received batch of up to 10", n)
	}
	if n := q.Calls("DeleteMessage"); n != 0 {
		t.Errorf("%d single DeleteMessage calls, want batches only", n)
	}
	if _, ok := received.Load(fmt.Sprint(DetailStateChange, false)); !ok {
		t.Error("the event for an instance nobody owns was not counted as not owned")
	}
}

func TestAnUnreachableQueueIsReportedAndReadAgainLater(t *testing.T) {
	q, client, url := newQueue(t)
	rec := &recorder{}
	var mu sync.Mutex
	var readiness []bool
	c := &Consumer{QueueURL: url, SQS: client, Handle: rec.handle, Log: logr.Discard(), WaitTime: time.Second,
		MinBackoff: 20 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		Observe: Observer{QueueReady: func(ok bool) { mu.Lock(); readiness = append(readiness, ok); mu.Unlock() }}}
	q.SetUnavailable(true)
	startConsumer(t, c)
	eventually(t, "the consumer to report the queue unreachable", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(readiness) > 0 && !readiness[0] && !c.Healthy()
	})

	q.SetUnavailable(false)
	q.Send(url, stateChange("i-mine00000000001", "terminated"))
	eventually(t, "the event after the queue came back", func() bool { return rec.count() == 1 })
	if !c.Healthy() {
		t.Error("the consumer did not report the queue ready again")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(readiness) < 2 || readiness[0] || !readiness[len(readiness)-1] {
		t.Errorf("readiness reports %v, want false first and true last", readiness)
	}
}

func TestDuplicatesAreHandedOnAgainHarmlessly(t *testing.T) {
	q, client, url := newQueue(t)
	rec := &recorder{}
	startConsumer(t, &Consumer{QueueURL: url, SQS: client, Handle: rec.handle, Log: logr.Discard(), WaitTime: time.Second})
	ev := stateChange("i-mine00000000002", "stopped")
	q.Send(url, ev)
	q.Send(url, ev)
	eventually(t, "both copies handled", func() bool { return rec.count() == 2 && q.Messages(url) == 0 })
}

func TestParseReadsTheDocumentedEnvelopes(t *testing.T) {
	e, err := Parse(stateChange("i-0123456789abcdef0", "stopped"))
	if err != nil || e.DetailType != DetailStateChange || e.InstanceID != "i-0123456789abcdef0" || e.State != "stopped" || e.Time.IsZero() {
		t.Errorf("state change: %+v, %v", e, err)
	}
	spot := `{"version":"0","id":"1","detail-type":"EC2 Spot Instance Interruption Warning","source":"aws.ec2","account":"123456789012",` +
		`"time":"2026-12-01T10:00:00Z","region":"us-east-1","resources":["arn:aws:ec2:us-east-1b:instance/i-0123456789abcdef0"],` +
		`"detail":{"instance-id":"i-0123456789abcdef0","instance-action":"terminate"}}`
	if e, err := Parse(spot); err != nil || e.DetailType != DetailSpotInterruption || e.Action != "terminate" {
		t.Errorf("spot warning: %+v, %v", e, err)
	}
	if _, err := Parse(`{"source":"aws.s3","detail":{"instance-id":"i-1"}}`); err == nil {
		t.Error("an event of another source was accepted")
	}
}
