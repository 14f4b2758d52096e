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

package awserrors

import (
	"errors"
	"fmt"
	"time"
)

// Kind says what the caller should do about a failed EC2 call.
type Kind int

const (
	// KindUnknown is an error the classifier has no rule for; callers retry it with
	// backoff.
	KindUnknown Kind = iota
	// KindNotFound means the resource does not exist (or is not visible yet).
	KindNotFound
	// KindThrottled means EC2 asked us to slow down, or failed transiently (5xx);
	// retry later.
	KindThrottled
	// KindInvalidInput means the request cannot succeed as it is: a malformed or
	// missing image, subnet, group, key, type or parameter. Retrying without a change
	// to the spec is pointless; the caller reports it and backs off.
	KindInvalidInput
	// KindIdempotencyConflict means the client token was used with other parameters
	// (IdempotentParameterMismatch) or belongs to a terminated instance
	// (IdempotentInstanceTerminated; TokenOfTerminatedInstance tells it apart).
	KindIdempotencyConflict
	// KindAuth means the credentials are missing, invalid, expired or not allowed to
	// make the call.
	KindAuth
	// KindCapacity means EC2 has no capacity for the request right now
	// (InsufficientInstanceCapacity and friends); retry later or elsewhere.
	KindCapacity
	// KindIncorrectState means the instance is not in a state that allows the call
	// (for example modifying the type of a running instance).
	KindIncorrectState
	// KindTerminal is any other error that will not go away by retrying, such as
	// OperationNotPermitted or UnsupportedOperation.
	KindTerminal
)

// Error is a classified EC2 error. It keeps AWS's code and message, which the
// controller shows to the user in conditions and events.
type Error struct {
	Kind Kind
	// Operation is the EC2 API operation, such as RunInstances.
	Operation string
	// Code is AWS's error code, such as InvalidAMIID.NotFound.
	Code string
	// Message is AWS's message.
	Message string
	// Err is the underlying error.
	Err error
	// RetryAfter, when set, is when the call may succeed: the client's own pacing
	// (CodeClientRateLimited) knows exactly.
	RetryAfter time.Duration
	// EarlierAttemptUnanswered is set when the SDK retried the call and an earlier
	// attempt ended without an answer that proves EC2 did nothing (a server error, a
	// lost connection, a timeout): the call may have taken effect, whatever the last
	// attempt was told.
	EarlierAttemptUnanswered bool
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Operation, e.Code, e.Message)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// NewError returns the error the client returns when EC2 answers operation with code
// and message, classified by the same rules (Classify.go). It exists for fakes of
// the client's interfaces, whose errors must satisfy the predicates of this package exactly
// as the real client's do; the client itself classifies the SDK's errors instead.
func NewError(operation, code, message string) *Error {
	return &Error{Kind: KindOfCode(code), Operation: operation, Code: code, Message: message,
		Err: errors.New(code + ": " + message)}
}

// RefusedOutright reports whether err proves that EC2 carried out nothing: every
// attempt of the call was answered, and the answer was a refusal (a bad parameter, a
// missing permission, no capacity), not the client's own pacing. A launch refused so
// launched nothing, and nothing needs to be looked for; any other failure leaves that
// open. An error is definitive only when its last attempt is and no earlier attempt
// went unanswered: a RunInstances whose answer was lost (HTTP 500 after the launch)
// and whose retry was refused (AuthFailure, after a key rotation) did launch.
func RefusedOutright(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.EarlierAttemptUnanswered || e.Code == CodeClientRateLimited {
		return false
	}
	switch e.Kind {
	case KindInvalidInput, KindAuth, KindCapacity:
		return true
	}
	return false
}

// IsTagLimitExceeded reports whether EC2 refused tags because the resource would carry
// more than 50.
func IsTagLimitExceeded(err error) bool { return CodeOf(err) == "TagLimitExceeded" }

// KindOf returns the kind of err, or KindUnknown when err is not a classified EC2 error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindUnknown
}

// RetryAfterOf returns when a call that failed with err may be tried again, or zero
// when the error does not say.
func RetryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// CodeOf returns AWS's error code of err, or "" when it has none.
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// IsNotFound reports whether err says the resource does not exist.
func IsNotFound(err error) bool { return KindOf(err) == KindNotFound }
