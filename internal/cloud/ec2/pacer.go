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

package ec2

import (
	"context"
	"fmt"
	"sync"
	"time"

	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go/middleware"
	"golang.org/x/time/rate"

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
)

// CodeClientRateLimited marks a call the client did not send because the API's budget
// (see pacer) would have made it wait longer than the caller should block. Nothing
// reached EC2; the error's RetryAfter says when the budget allows the call.
const CodeClientRateLimited = "ClientRateLimited"

// DefaultMaxPacingWait is how long a call may wait for its API's budget before it
// fails with CodeClientRateLimited, so that a reconcile worker is not held while many
// others wait for the same scarce bucket (RunInstances refills two per second).
const DefaultMaxPacingWait = time.Second

// pacer keeps the client under EC2's per-API limits (internal/ec2limits): one token
// bucket per API, sized as EC2 sizes that API's bucket, plus the resource-token
// buckets of the instance lifecycle calls, and optionally one overall cap. EC2 would
// refuse calls over these buckets with RequestLimitExceeded; spending the same budget
// on the client side means those refusals do not happen, and one busy API (a burst of
// launches) never starves another (the describes that report them Ready).
type pacer struct {
	// limits are the per-API buckets; nil keeps only the overall cap.
	limits  *ec2limits.Limits
	overall *rate.Limiter
	maxWait time.Duration

	mu       sync.Mutex
	request  map[string]*budget
	resource map[string]*budget
}

func newPacer(limits *ec2limits.Limits, overall float64, maxWait time.Duration) *pacer {
	p := &pacer{limits: limits, maxWait: maxWait, request: map[string]*budget{}, resource: map[string]*budget{}}
	if overall > 0 {
		p.overall = rate.NewLimiter(rate.Limit(overall), max(1, int(overall)))
	}
	return p
}

// refillMargin is the share of EC2's refill rate the client uses. The client cannot
// see EC2's bucket: its clock and EC2's differ by each call's network delay, so
// refilling exactly as fast would now and then send a call a few milliseconds before
// EC2 has its token. A tenth less keeps the client behind EC2's bucket, and leaves a
// little of the account's budget to the other tools that share it.
const refillMargin = 0.9

// limiter returns the bucket for a key, creating it full, with the refill rate it has
// regained since EC2 last throttled it.
func limiter(m map[string]*budget, key string, b ec2limits.Bucket, now time.Time) *rate.Limiter {
	bu, ok := m[key]
	if !ok {
		full := b.RefillPerSecond * refillMargin
		bu = &budget{lim: rate.NewLimiter(rate.Limit(full), int(b.Capacity)), full: full, current: full}
		m[key] = bu
	}
	bu.regain(now)
	return bu.lim
}

// throttled lowers the refill rate of the bucket EC2 throttled the call on: the
// resource-token bucket for RequestResourceCountExceeded, the API's request bucket
// otherwise. It is how the client learns that its share of the account's budget is
// smaller than the documented one (other tools in the account spend it too).
func (p *pacer) throttled(call callCost, code string) {
	if p.limits == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var bu *budget
	if code == "RequestResourceCountExceeded" {
		bu = p.resource[call.operation]
	} else {
		bu = p.request[ec2limits.RequestKey(call.operation, call.filtered)]
	}
	if bu != nil {
		bu.cut(time.Now())
	}
}

// reservations takes the tokens one call needs from every bucket that applies.
func (p *pacer) reservations(now time.Time, call callCost) ([]*rate.Reservation, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var rs []*rate.Reservation
	add := func(l *rate.Limiter, n int, what string) error {
		r := l.ReserveN(now, n)
		if !r.OK() {
			return fmt.Errorf("%s needs %d tokens, more than its bucket of %d holds", what, n, l.Burst())
		}
		rs = append(rs, r)
		return nil
	}
	if p.limits != nil {
		key := ec2limits.RequestKey(call.operation, call.filtered)
		if err := add(limiter(p.request, key, p.limits.Request(key), now), 1, call.operation); err != nil {
			return nil, err
		}
		if b, ok := p.limits.Resource(call.operation); ok && call.resources > 0 {
			if err := add(limiter(p.resource, call.operation, b, now), call.resources, call.operation+" resources"); err != nil {
				cancelAll(now, rs)
				return nil, err
			}
		}
	}
	if p.overall != nil {
		if err := add(p.overall, 1, "the overall rate limit"); err != nil {
			cancelAll(now, rs)
			return nil, err
		}
	}
	return rs, nil
}

func cancelAll(now time.Time, rs []*rate.Reservation) {
	for _, r := range rs {
		r.CancelAt(now)
	}
}

// wait blocks until the call's buckets allow it, or fails at once with
// CodeClientRateLimited (and when the call may go) if that is more than maxWait away.
func (p *pacer) wait(ctx context.Context, call callCost) error {
	now := time.Now()
	rs, err := p.reservations(now, call)
	if err != nil {
		return &Error{Kind: KindInvalidInput, Operation: call.operation, Code: CodeClientRateLimited, Message: err.Error()}
	}
	var delay time.Duration
	for _, r := range rs {
		delay = max(delay, r.DelayFrom(now))
	}
	if delay > p.maxWait {
		cancelAll(now, rs)
		return &Error{Kind: KindThrottled, Operation: call.operation, Code: CodeClientRateLimited, RetryAfter: delay,
			Message: fmt.Sprintf("the %s budget allows this call in %s; not waiting that long", call.operation, delay.Round(time.Millisecond))}
	}
	if delay == 0 {
		return nil
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		cancelAll(time.Now(), rs)
		return classify(call.operation, ctx.Err())
	}
}

// delay says how long a call would wait now, without taking anything.
func (p *pacer) delay(call callCost) time.Duration {
	now := time.Now()
	rs, err := p.reservations(now, call)
	if err != nil {
		return 0
	}
	var d time.Duration
	for _, r := range rs {
		d = max(d, r.DelayFrom(now))
	}
	cancelAll(now, rs)
	return d
}

// callCost is what one call draws from the buckets.
type callCost struct {
	operation string
	// filtered marks a describe with a filter or pagination, which draws from the
	// larger non-mutating bucket.
	filtered bool
	// resources is the number of instances a lifecycle call affects.
	resources int
}

type callCostKey struct{}

// costOf reads the cost of a call from its typed input.
func costOf(operation string, input any) callCost {
	c := callCost{operation: operation}
	switch in := input.(type) {
	case *awsec2.DescribeInstancesInput:
		c.filtered = len(in.Filters) > 0 || in.MaxResults != nil || in.NextToken != nil
	case *awsec2.DescribeVolumesInput:
		c.filtered = len(in.Filters) > 0 || in.MaxResults != nil || in.NextToken != nil
	case *awsec2.DescribeSecurityGroupsInput:
		c.filtered = len(in.Filters) > 0 || in.MaxResults != nil || in.NextToken != nil
	case *awsec2.RunInstancesInput:
		if in.MaxCount != nil {
			c.resources = int(*in.MaxCount)
		}
	case *awsec2.TerminateInstancesInput:
		c.resources = len(in.InstanceIds)
	case *awsec2.StartInstancesInput:
		c.resources = len(in.InstanceIds)
	case *awsec2.StopInstancesInput:
		c.resources = len(in.InstanceIds)
	}
	return c
}

// costMiddleware records the call's cost from its typed input, which the later steps
// (where the pacer waits, once per attempt) no longer see.
type costMiddleware struct{}

func (costMiddleware) ID() string { return "ec2-operator/CallCost" }

func (costMiddleware) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error,
) {
	cost := costOf(middleware.GetOperationName(ctx), in.Parameters)
	return next.HandleInitialize(context.WithValue(ctx, callCostKey{}, cost), in)
}

// costFrom returns the cost costMiddleware recorded, or one plain request.
func costFrom(ctx context.Context) callCost {
	if c, ok := ctx.Value(callCostKey{}).(callCost); ok {
		return c
	}
	return callCost{operation: middleware.GetOperationName(ctx)}
}
