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
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// apiErr builds the error the SDK returns for an EC2 error response.
func apiErr(code string) error {
	return &smithy.OperationError{
		ServiceID: "EC2", OperationName: "RunInstances",
		Err: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 400}},
			Err:      &smithy.GenericAPIError{Code: code, Message: "message for " + code},
		},
	}
}

func TestClassifyMapsErrorCodesToKinds(t *testing.T) {
	tests := []struct {
		code string
		want Kind
	}{
		{"InvalidInstanceID.NotFound", KindNotFound},
		{"InvalidVolume.NotFound", KindNotFound},
		{"InvalidAssociationID.NotFound", KindNotFound},
		{"RequestLimitExceeded", KindThrottled},
		{"Throttling", KindThrottled},
		{"ThrottlingException", KindThrottled},
		{"RequestThrottled", KindThrottled},
		{"InternalError", KindThrottled},
		{"InternalFailure", KindThrottled},
		{"ServiceUnavailable", KindThrottled},
		{"Unavailable", KindThrottled},
		{"InvalidAMIID.Malformed", KindInvalidInput},
		{"InvalidAMIID.NotFound", KindInvalidInput},
		{"InvalidAMIID.Unavailable", KindInvalidInput},
		{"InvalidSubnetID.NotFound", KindInvalidInput},
		{"InvalidGroup.NotFound", KindInvalidInput},
		{"InvalidKeyPair.NotFound", KindInvalidInput},
		{"InvalidParameterValue", KindInvalidInput},
		{"InvalidParameterCombination", KindInvalidInput},
		{"InvalidParameter", KindInvalidInput},
		{"MissingParameter", KindInvalidInput},
		{"InvalidBlockDeviceMapping", KindInvalidInput},
		{"InvalidInstanceID.Malformed", KindInvalidInput},
		{"InvalidIAMInstanceProfile.NotFound", KindInvalidInput},
		{"Unsupported", KindInvalidInput},
		{"VPCIdNotSpecified", KindInvalidInput},
		{"InvalidSomethingNew.Malformed", KindInvalidInput},
		{"IdempotentParameterMismatch", KindIdempotencyConflict},
		{"IdempotentInstanceTerminated", KindIdempotencyConflict},
		{"AuthFailure", KindAuth},
		{"UnauthorizedOperation", KindAuth},
		{"InvalidClientTokenId", KindAuth},
		{"SignatureDoesNotMatch", KindAuth},
		{"ExpiredToken", KindAuth},
		{"RequestExpired", KindAuth},
		{"InsufficientInstanceCapacity", KindCapacity},
		{"InsufficientCapacity", KindCapacity},
		{"InsufficientHostCapacity", KindCapacity},
		{"InsufficientReservedInstanceCapacity", KindCapacity},
		{"SpotMaxPriceTooLow", KindCapacity},
		{"MaxSpotInstanceCountExceeded", KindCapacity},
		{"InstanceLimitExceeded", KindCapacity},
		{"IncorrectInstanceState", KindIncorrectState},
		{"IncorrectState", KindIncorrectState},
		{"OperationNotPermitted", KindTerminal},
		{"InvalidSpotInstanceRequestID.NotFound", KindNotFound},
		{"UnsupportedOperation", KindTerminal},
		{"SomethingEC2AddsNextYear", KindUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			err := Classify("RunInstances", apiErr(tt.code))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("classify returned %T", err)
			}
			if e.Kind != tt.want || e.Code != tt.code || e.Message != "message for "+tt.code || e.Operation != "RunInstances" {
				t.Errorf("got %+v, want kind %v", e, tt.want)
			}
		})
	}
}

func TestClassifyRecognisesFailuresWithoutAnErrorCode(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantKind Kind
		wantCode string
	}{
		{
			name: "a 5xx without code is a transient server error",
			err: &smithy.OperationError{OperationName: "DescribeInstances", Err: &smithyhttp.ResponseError{
				Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 502}}, Err: errors.New("bad gateway"),
			}},
			wantKind: KindThrottled, wantCode: CodeServerError,
		},
		{
			name:     "a refused connection is a transport error",
			err:      &smithy.OperationError{Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}},
			wantKind: KindThrottled, wantCode: CodeTransport,
		},
		{
			name:     "an expired deadline is a transport error",
			err:      fmt.Errorf("operation error: %w", context.DeadlineExceeded),
			wantKind: KindThrottled, wantCode: CodeTransport,
		},
		{
			name:     "an exhausted retry quota is throttling",
			err:      fmt.Errorf("failed to get rate limit token, %w", ratelimit.QuotaExceededError{Available: 1, Requested: 5}),
			wantKind: KindThrottled, wantCode: CodeRetryQuotaExceeded,
		},
		{
			name:     "a cancelled call is unknown, not a failure of EC2",
			err:      fmt.Errorf("operation error: %w", context.Canceled),
			wantKind: KindUnknown, wantCode: CodeCanceled,
		},
		{
			name:     "a failed credential lookup is an auth error",
			err:      fmt.Errorf("get identity: %w", errors.New("failed to refresh cached credentials, no EC2 IMDS role found")),
			wantKind: KindAuth, wantCode: CodeCredentials,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Classify("DescribeInstances", tt.err)
			if KindOf(err) != tt.wantKind || CodeOf(err) != tt.wantCode {
				t.Errorf("got kind %v code %q, want %v %q", KindOf(err), CodeOf(err), tt.wantKind, tt.wantCode)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("classified error does not wrap the original")
			}
		})
	}
}

func TestClassifyKeepsNilAndClassifiedErrors(t *testing.T) {
	if Classify("X", nil) != nil {
		t.Error("Classify(nil) is not nil")
	}
	orig := &Error{Kind: KindCapacity, Operation: "A", Code: "C"}
	if got := Classify("B", orig); got != error(orig) {
		t.Errorf("classify re-wrapped a classified error: %v", got)
	}
}

func TestRedactRemovesUserDataFromMessages(t *testing.T) {
	err := Redact(&Error{Kind: KindInvalidInput, Message: "bad user data: password=hunter2"}, "password=hunter2")
	var e *Error
	if !errors.As(err, &e) || e.Message != "bad user data: <redacted>" || errors.Unwrap(err).Error() != e.Message {
		t.Errorf("redact left %q", err)
	}
}

func TestRedactRemovesBase64UserDataEchoedByEC2(t *testing.T) {
	secret := "#!/bin/sh\nexport TOKEN=hunter2\n"
	echoed := "Value '" + base64.StdEncoding.EncodeToString([]byte(secret)) + "' at 'userData' failed to satisfy constraint"
	err := Redact(&Error{Kind: KindInvalidInput, Code: "ValidationError", Message: echoed}, secret)
	if strings.Contains(err.Error(), base64.StdEncoding.EncodeToString([]byte(secret))) || !strings.Contains(err.Error(), "<redacted>") {
		t.Errorf("redact left %q", err)
	}
}
