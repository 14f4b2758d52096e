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

// Package callmetrics records every AWS call the operator makes: each attempt with its
// operation, answer code and latency (CallRecorder), the retries, and, for the EC2
// client, hands each attempt to the pacer (internal/cloud/ec2/throttle) before it is
// sent and tells it of every throttled answer. The STS clients of accounts record
// through the same middlewares without a pacer.
package callmetrics

import (
	"context"
	"errors"
	"time"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/throttle"
)

// CallRecorder receives one record per HTTP attempt the SDK makes to EC2. The metrics
// package implements it with Prometheus collectors; tests use MemoryRecorder.
// Implementations must be safe for concurrent use and must not block.
type CallRecorder interface {
	// RecordCall records one attempt of operation. code is "" on success, AWS's error
	// code on an EC2 error, or one of the synthetic Code* constants when no EC2 answer
	// arrived. latency covers the wire round trip only, not client-side rate limiting
	// or retry backoff.
	RecordCall(operation, code string, latency time.Duration)
	// RecordRetry records that the SDK is about to retry operation because the
	// previous attempt failed with code. A throttle code here (see awserrors.IsThrottleCode)
	// means EC2 pushed back.
	RecordRetry(operation, code string)
}

// BudgetRecorder is a CallRecorder that is also told the refill rate the client
// keeps to for each EC2 bucket, whenever it changes: the documented or configured
// rate, lower after EC2 throttled, higher once a learning client found a raised limit.
type BudgetRecorder interface {
	// RecordBudget records the rate of one bucket in a region: a request bucket by
	// its request key (the action, or the action with ":unfiltered") or an action's
	// resource-token bucket; bucket is "request" or "resource".
	RecordBudget(region, key, bucket string, perSecond float64)
}

// NopRecorder is a CallRecorder that records nothing.
type NopRecorder struct{}

// RecordCall does nothing.
func (NopRecorder) RecordCall(string, string, time.Duration) {}

// RecordRetry does nothing.
func (NopRecorder) RecordRetry(string, string) {}

// attemptCounter follows one operation across its retry attempts. The retry
// middleware runs attempts one after the other, so it needs no lock.
type attemptCounter struct {
	attempts int
	lastCode string
	// unanswered is set once an attempt ended without an answer that proves EC2 did
	// nothing (see answeredRefusal).
	unanswered bool
}

// answeredRefusal reports whether an attempt's error is EC2's answer that it did
// nothing: an error response below HTTP 500, or throttling (EC2 throttles before it
// acts). A server error, a lost connection or a timeout does not say.
func answeredRefusal(err error) bool {
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() == "" {
		return false
	}
	if awserrors.IsThrottleCode(apiErr.ErrorCode()) {
		return true
	}
	var respErr *smithyhttp.ResponseError
	return errors.As(err, &respErr) && respErr.HTTPStatusCode() < 500
}

type attemptCounterKey struct{}

// callStartMiddleware sits before the SDK's retry middleware: it runs once per
// operation and gives the attempts a shared counter.
type callStartMiddleware struct{}

func (callStartMiddleware) ID() string { return "ec2-operator/CallStart" }

func (callStartMiddleware) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	middleware.FinalizeOutput, middleware.Metadata, error,
) {
	counter := &attemptCounter{}
	out, md, err := next.HandleFinalize(context.WithValue(ctx, attemptCounterKey{}, counter), in)
	if err != nil && counter.unanswered {
		err = &awserrors.UnansweredAttemptError{Err: err}
	}
	return out, md, err
}

// attemptMiddleware sits after the SDK's retry middleware: it runs once per HTTP
// attempt, so retries also wait for the client-side budget (the pacer) and every
// request EC2 sees is recorded.
type attemptMiddleware struct {
	recorder CallRecorder
	pacer    *throttle.Pacer
}

func (*attemptMiddleware) ID() string { return "ec2-operator/Attempt" }

func (m *attemptMiddleware) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	out middleware.FinalizeOutput, md middleware.Metadata, err error,
) {
	op := middleware.GetOperationName(ctx)
	counter, _ := ctx.Value(attemptCounterKey{}).(*attemptCounter)
	if counter == nil {
		counter = &attemptCounter{}
	}
	counter.attempts++
	if counter.attempts > 1 {
		m.recorder.RecordRetry(op, counter.lastCode)
	}
	cost := throttle.CostFrom(ctx, op)
	if m.pacer != nil {
		if err := m.pacer.Wait(ctx, cost); err != nil {
			return out, md, err
		}
	}
	start := time.Now()
	out, md, err = next.HandleFinalize(ctx, in)
	code, _ := awserrors.ErrorCode(err)
	if err != nil && code == "" {
		// A failure the classifier has no code for must not be counted as a success.
		code = awserrors.CodeUnknown
	}
	if m.pacer != nil && awserrors.IsThrottleCode(code) {
		m.pacer.Throttled(cost, code)
	}
	counter.lastCode = code
	if err != nil && !answeredRefusal(err) {
		counter.unanswered = true
	}
	m.recorder.RecordCall(op, code, time.Since(start))
	return out, md, err
}

// Middlewares returns the APIOptions hook that installs the recording and
// pacing middlewares around the SDK's retry middleware; a nil pacer only records (the
// STS clients of accounts).
func Middlewares(recorder CallRecorder, p *throttle.Pacer) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		if err := stack.Initialize.Add(throttle.CostMiddleware{}, middleware.After); err != nil {
			return err
		}
		if err := stack.Finalize.Insert(callStartMiddleware{}, "Retry", middleware.Before); err != nil {
			return err
		}
		return stack.Finalize.Insert(&attemptMiddleware{recorder: recorder, pacer: p}, "Retry", middleware.After)
	}
}
