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

// Package throttle keeps the EC2 client under EC2's documented API limits
// (internal/ec2limits) on the client side: a token bucket per API and per resource
// kind, refilled as EC2 refills its own, so that EC2 never has to refuse a call with
// RequestLimitExceeded; an order of turns for launches across tenants (launchqueue.go);
// and, when asked, learning limits AWS raised for the account (budget.go). The EC2
// client's call middleware asks it before every attempt (Wait) and tells it of every
// throttled answer (Throttled).
package throttle

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go/middleware"
	"golang.org/x/time/rate"

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
)

// DefaultMaxWait is how long a call may wait for its API's budget before it
// fails with awserrors.CodeClientRateLimited, so that a reconcile worker is not held while many
// others wait for the same scarce bucket (RunInstances refills two per second).
const DefaultMaxWait = time.Second

// Pacer keeps the client under EC2's per-API limits (internal/ec2limits): one token
// bucket per API, sized as EC2 sizes that API's bucket, plus the resource-token
// buckets of the instance lifecycle calls, and optionally one overall cap. EC2 would
// refuse calls over these buckets with RequestLimitExceeded; spending the same budget
// on the client side means those refusals do not happen, and one busy API (a burst of
// launches) never starves another (the describes that report them Ready). A learning
// Pacer also finds limits AWS raised for the account (see budget).
type Pacer struct {
	// limits are the per-API buckets; nil keeps only the overall cap.
	limits  *ec2limits.Limits
	overall *rate.Limiter
	maxWait time.Duration
	// Learn lets every bucket probe above its documented rate (see budget). Set it
	// before the first call.
	Learn bool
	// Report, when not nil, is told each bucket's refill rate when it changes. Set it
	// before the first call.
	Report func(key, bucket string, perSecond float64)

	mu       sync.Mutex
	request  map[string]*budget
	resource map[string]*budget
	// tickets are the launches admitted by LaunchTurn, by client token (launchqueue.go).
	tickets map[string]ticket
	// queue orders the launches waiting for their turn (launchqueue.go).
	queue launchQueue
	// cutNotice is closed (and replaced) when a throttle cuts a budget, which wakes
	// the calls waiting for their tokens to check whether their rate is gone (wait.go).
	cutNotice chan struct{}
}

// New returns a pacer for limits (nil: only the overall cap) and an overall rate of
// calls per second (0: none). A call that would wait longer than maxWait is refused
// with awserrors.CodeClientRateLimited instead.
func New(limits *ec2limits.Limits, overall float64, maxWait time.Duration) *Pacer {
	p := &Pacer{limits: limits, maxWait: maxWait, request: map[string]*budget{}, resource: map[string]*budget{},
		tickets: map[string]ticket{}, cutNotice: make(chan struct{})}
	if overall > 0 {
		p.overall = rate.NewLimiter(rate.Limit(overall), max(1, int(overall)))
	}
	return p
}

// RequestRate reports a request bucket's refill rate now and at its documented limit,
// in calls per second; ok is false for a bucket not used yet. A learning pacer's
// rate moves between a floor and above the limit (budget.go); a pinned one's only
// falls after throttling and regains the limit.
func (p *Pacer) RequestRate(key string) (current, full float64, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.request[key]
	if b == nil {
		return 0, 0, false
	}
	return b.current, b.full, true
}

// jitterAllowance is how much later than the client's clock says a call may reach
// EC2 (network delay varies call by call) without EC2 finding its bucket empty. The
// client refills exactly as fast as EC2 does, and keeps that much of each request
// bucket's refill below EC2's capacity instead: a call that arrives early by up to
// this much still finds a token. (A smaller refill rate would cost a tenth of every
// bulk create; the reserve costs one burst token.)
const jitterAllowance = 500 * time.Millisecond

// bucketReserve is how many tokens the client keeps in an EC2 bucket, below its
// capacity: the jitter allowance's worth, at most a fifth of the bucket, so that small
// configured buckets keep their burst. A small bucket then refills more slowly instead
// (smallBucketMargin), which allows a call right after a burst to arrive early by a
// ninth of a token's time: plenty at a slow refill, but a twentieth of a second at
// 2 a second, less than a loaded machine's scheduling alone. A small bucket that
// refills that fast keeps one token back instead, and so its burst is one smaller.
func bucketReserve(b ec2limits.Bucket) int {
	reserve := min(int(math.Ceil(b.RefillPerSecond*jitterAllowance.Seconds())), int(b.Capacity)/5)
	marginAllowance := (1/smallBucketMargin - 1) / b.RefillPerSecond
	if reserve == 0 && int(b.Capacity) >= 2 && marginAllowance < jitterAllowance.Seconds() {
		return 1
	}
	return reserve
}

// smallBucketMargin is the share of EC2's refill rate the client uses for a bucket too
// small to keep a token back: without a reserve, only a slower refill keeps the
// client's bucket behind EC2's.
const smallBucketMargin = 0.9

// limiter returns the budget for a key, creating it full, with the refill rate it has
// regained (or learned) since EC2 last throttled it.
func (p *Pacer) limiter(m map[string]*budget, kind, key string, b ec2limits.Bucket, now time.Time) *budget {
	reserve := bucketReserve(b)
	bu, ok := m[key]
	if !ok {
		refill := b.RefillPerSecond
		if reserve == 0 {
			refill *= smallBucketMargin
		}
		bu = &budget{lim: rate.NewLimiter(rate.Limit(refill), int(b.Capacity)-reserve), full: refill,
			current: refill, learn: p.Learn, reserve: reserve, changed: now}
		if p.Report != nil {
			bu.report = func(perSecond float64) { p.Report(key, kind, perSecond) }
			bu.reportRate()
		}
		m[key] = bu
	}
	bu.regain(now)
	return bu
}

// throttled lowers the refill rate of the bucket EC2 throttled the call on: the
// resource-token bucket for RequestResourceCountExceeded, the API's request bucket
// otherwise. It is how the client learns that its share of the account's budget is
// smaller than the documented one (other tools in the account spend it too).
func (p *Pacer) Throttled(call Cost, code string) { p.throttledAt(time.Now(), call, code) }

// throttledAt is throttled at a given time.
func (p *Pacer) throttledAt(now time.Time, call Cost, code string) {
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
		if call.operation == "RunInstances" {
			p.cancelTickets(now)
		}
		if bu.cut(now) {
			close(p.cutNotice)
			p.cutNotice = make(chan struct{})
		}
	}
}

// budgetsOf returns the request and (when the call has one) resource budgets of a
// call; p.mu is held.
func (p *Pacer) budgetsOf(now time.Time, call Cost) []*budget {
	if p.limits == nil {
		return nil
	}
	key := ec2limits.RequestKey(call.operation, call.filtered)
	b := p.limits.Request(key)
	out := []*budget{p.limiter(p.request, "request", key, b, now)}
	if rb, ok := p.limits.Resource(call.operation); ok && call.resources > 0 {
		out = append(out, p.limiter(p.resource, "resource", call.operation, rb, now))
	}
	return out
}

// reserveLocked takes the tokens one call needs from every bucket that applies, and
// returns them with the call's budgets (budgetsOf); p.mu is held.
func (p *Pacer) reserveLocked(now time.Time, call Cost) ([]*rate.Reservation, []*budget, error) {
	var rs []*rate.Reservation
	add := func(l *rate.Limiter, n int, what string) error {
		r := l.ReserveN(now, n)
		if !r.OK() {
			return fmt.Errorf("%s needs %d tokens, more than its bucket of %d holds", what, n, l.Burst())
		}
		rs = append(rs, r)
		return nil
	}
	budgets := p.budgetsOf(now, call)
	for i, bu := range budgets {
		n, what := 1, call.operation
		if i > 0 {
			n, what = call.resources, call.operation+" resources"
			if n <= bu.lim.Burst()+bu.reserve {
				// A batch that needs the reserve too (a thousand terminations at
				// once) waits for a full bucket: EC2's holds it all then.
				n = min(n, bu.lim.Burst())
			}
		}
		if err := add(bu.lim, n, what); err != nil {
			cancelAll(now, rs)
			return nil, nil, err
		}
	}
	if p.overall != nil {
		if err := add(p.overall, 1, "the overall rate limit"); err != nil {
			cancelAll(now, rs)
			return nil, nil, err
		}
	}
	return rs, budgets, nil
}

func cancelAll(now time.Time, rs []*rate.Reservation) {
	for _, r := range rs {
		r.CancelAt(now)
	}
}

// Cost is what one call draws from the buckets.
type Cost struct {
	operation string
	// filtered marks a describe with a filter or pagination, which draws from the
	// larger non-mutating bucket.
	filtered bool
	// resources is the number of instances a lifecycle call affects.
	resources int
	// clientToken is a launch's idempotency token, which names its ticket.
	clientToken string
}

type costKey struct{}

// costOf reads the cost of a call from its typed input.
func costOf(operation string, input any) Cost {
	c := Cost{operation: operation}
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
		c.clientToken = aws.ToString(in.ClientToken)
	case *awsec2.TerminateInstancesInput:
		c.resources = len(in.InstanceIds)
	case *awsec2.StartInstancesInput:
		c.resources = len(in.InstanceIds)
	case *awsec2.StopInstancesInput:
		c.resources = len(in.InstanceIds)
	}
	return c
}

// CostMiddleware records the call's cost from its typed input, which the later steps
// (where the Pacer waits, once per attempt) no longer see.
type CostMiddleware struct{}

func (CostMiddleware) ID() string { return "ec2-operator/CallCost" }

func (CostMiddleware) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error,
) {
	cost := costOf(middleware.GetOperationName(ctx), in.Parameters)
	return next.HandleInitialize(context.WithValue(ctx, costKey{}, cost), in)
}

// CostFrom returns the cost CostMiddleware recorded for the call, or one plain
// request; operation names the call when the cost does not.
func CostFrom(ctx context.Context, operation string) Cost {
	c, ok := ctx.Value(costKey{}).(Cost)
	if !ok {
		c = Cost{operation: middleware.GetOperationName(ctx)}
	}
	if c.operation == "" {
		c.operation = operation
	}
	return c
}
