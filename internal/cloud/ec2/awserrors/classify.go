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
	"net"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Synthetic codes for failures that never reached an EC2 answer. They let metrics and
// conditions name the failure; EC2 itself never returns them.
const (
	// CodeTransport marks a connection failure or timeout talking to EC2.
	CodeTransport = "TransportError"
	// CodeCanceled marks a call abandoned because its context was cancelled.
	CodeCanceled = "RequestCanceled"
	// CodeCredentials marks a failure to obtain credentials before signing.
	CodeCredentials = "CredentialsError"
	// CodeRetryQuotaExceeded marks a call the SDK stopped retrying because its retry
	// token bucket ran dry after many failures.
	CodeRetryQuotaExceeded = "RetryQuotaExceeded"
	// CodeServerError marks a 5xx response that carried no error code.
	CodeServerError = "ServerError"
	// CodeUnknown marks, in call metrics, a failure with no code of any kind.
	CodeUnknown = "Unknown"
)

// CodeClientRateLimited marks a call the client did not send because the API's budget
// (see the EC2 client's pacer) would have made it wait longer than the caller should
// block. Nothing reached EC2; the error's RetryAfter says when the budget allows the
// call.
const CodeClientRateLimited = "ClientRateLimited"

// CodeUnknownRegion marks a region that is in no AWS partition the operator knows,
// refused before any call (and before a client is made for it).
const CodeUnknownRegion = "UnknownRegion"

// UnansweredAttemptError marks the error of a call one of whose attempts went
// unanswered (the EC2 client's call middleware wraps it); Classify turns it into
// Error.EarlierAttemptUnanswered.
type UnansweredAttemptError struct{ Err error }

func (e *UnansweredAttemptError) Error() string { return e.Err.Error() }
func (e *UnansweredAttemptError) Unwrap() error { return e.Err }

// codeKinds holds the EC2 error codes with a known meaning. Sources: the EC2 API
// reference "Error codes for the Amazon EC2 API" (common client errors, per-action
// client errors, server errors) and, for throttling and transient failures, the SDK's
// own tables (see throttlecodes.go), so that the classifier and the SDK's retryer never
// disagree about what clears up by waiting.
var codeKinds = withTransientCodes(map[string]Kind{
	// The subject of the call is gone.
	"InvalidInstanceID.NotFound":         KindNotFound,
	"InvalidVolume.NotFound":             KindNotFound,
	"InvalidAssociationID.NotFound":      KindNotFound,
	"InvalidVolumeModification.NotFound": KindNotFound,
	// A Spot Instance request that no longer exists (cancelled and aged out): there is
	// nothing left to cancel, which is what the caller wanted.
	"InvalidSpotInstanceRequestID.NotFound": KindNotFound,

	// EC2 failed on its side, or asked us to slow down in its own words (the SDK's
	// throttle and transient codes are added by withTransientCodes); all clear up by
	// waiting.
	//
	// EBS limits modifications per volume (four in 24 hours): retry later.
	"VolumeModificationRateExceeded": KindThrottled,
	"PriorRequestNotComplete":        KindThrottled,
	"InternalError":                  KindThrottled,
	"InternalFailure":                KindThrottled,
	"ServiceUnavailable":             KindThrottled,
	"Unavailable":                    KindThrottled,
	CodeTransport:                    KindThrottled,
	CodeRetryQuotaExceeded:           KindThrottled,
	CodeServerError:                  KindThrottled,

	// The request cannot succeed as written.
	"InvalidParameterValue":       KindInvalidInput,
	"InvalidParameterCombination": KindInvalidInput,
	"InvalidParameter":            KindInvalidInput,
	"InvalidParameterDependency":  KindInvalidInput,
	"MissingParameter":            KindInvalidInput,
	"UnknownParameter":            KindInvalidInput,
	"InvalidBlockDeviceMapping":   KindInvalidInput,
	"InvalidInstanceID.Malformed": KindInvalidInput,
	"InvalidInstanceType":         KindInvalidInput,
	"InvalidUserData.Malformed":   KindInvalidInput,
	"InvalidZone.NotFound":        KindInvalidInput,
	"InvalidSnapshot.NotFound":    KindInvalidInput,
	"Unsupported":                 KindInvalidInput,
	"VPCIdNotSpecified":           KindInvalidInput,
	"VPCResourceNotSpecified":     KindInvalidInput,
	"InvalidRequest":              KindInvalidInput,
	"ValidationError":             KindInvalidInput,
	"InvalidCharacter":            KindInvalidInput,
	"InvalidTagKey.Malformed":     KindInvalidInput,
	"TagLimitExceeded":            KindInvalidInput,
	"InvalidAction":               KindInvalidInput,
	"MalformedQueryString":        KindInvalidInput,
	"InvalidQueryParameter":       KindInvalidInput,

	// The client token was used before.
	"IdempotentParameterMismatch":  KindIdempotencyConflict,
	"IdempotentInstanceTerminated": KindIdempotencyConflict,

	// Credentials or permissions.
	"AuthFailure":                KindAuth,
	"UnauthorizedOperation":      KindAuth,
	"InvalidClientTokenId":       KindAuth,
	"SignatureDoesNotMatch":      KindAuth,
	"ExpiredToken":               KindAuth,
	"ExpiredTokenException":      KindAuth,
	"RequestExpired":             KindAuth,
	"MissingAuthenticationToken": KindAuth,
	"IncompleteSignature":        KindAuth,
	"InvalidAccessKeyId":         KindAuth,
	"AccessDenied":               KindAuth,
	"AccessDeniedException":      KindAuth,
	"OptInRequired":              KindAuth,
	"Blocked":                    KindAuth,
	"PendingVerification":        KindAuth,
	// STS answers for web identity (IRSA, OpenShift token-auth-aws): the role's trust
	// policy or the identity provider rejects the service account token.
	"InvalidIdentityToken":  KindAuth,
	"IDPRejectedClaim":      KindAuth,
	"IDPCommunicationError": KindAuth,
	CodeCredentials:         KindAuth,

	// No capacity or quota for the request right now.
	"InsufficientInstanceCapacity":         KindCapacity,
	"InsufficientCapacity":                 KindCapacity,
	"InsufficientHostCapacity":             KindCapacity,
	"InsufficientReservedInstanceCapacity": KindCapacity,
	"InsufficientFreeAddressesInSubnet":    KindCapacity,
	"SpotMaxPriceTooLow":                   KindCapacity,
	"MaxSpotInstanceCountExceeded":         KindCapacity,
	"InstanceLimitExceeded":                KindCapacity,
	"VcpuLimitExceeded":                    KindCapacity,
	"VolumeLimitExceeded":                  KindCapacity,
	// The account's Elastic IP quota for the region is used up.
	"AddressLimitExceeded": KindCapacity,
	// A targeted Capacity Reservation is full: capacity frees up as its instances stop.
	"ReservationCapacityExceeded": KindCapacity,

	// The resource is in the wrong state for the call.
	"IncorrectInstanceState":     KindIncorrectState,
	"IncorrectState":             KindIncorrectState,
	"IncorrectModificationState": KindIncorrectState,
	"VolumeInUse":                KindIncorrectState,

	// Will not change by retrying.
	"OperationNotPermitted":         KindTerminal,
	"UnsupportedOperation":          KindTerminal,
	"InvalidInstanceAttributeValue": KindTerminal,
	"DryRunOperation":               KindTerminal,
	// An Elastic IP associated elsewhere: taking it would break someone else's
	// association, so only the user can decide.
	"Resource.AlreadyAssociated": KindTerminal,
})

// codePrefixKinds classifies families of codes whose suffix varies
// (.NotFound, .Malformed, .Unavailable, .InUse, ...). They are checked in order.
var codePrefixKinds = []struct {
	prefix string
	kind   Kind
}{
	{"InvalidAMIID.", KindInvalidInput},
	{"InvalidSubnetID.", KindInvalidInput},
	{"InvalidSubnet", KindInvalidInput},
	{"InvalidGroup.", KindInvalidInput},
	{"InvalidGroupId.", KindInvalidInput},
	{"InvalidSecurityGroupID.", KindInvalidInput},
	{"InvalidKeyPair.", KindInvalidInput},
	{"InvalidIAMInstanceProfile", KindInvalidInput},
	{"InvalidNetworkInterface", KindInvalidInput},
	{"InvalidVolumeID.", KindInvalidInput},
	{"InvalidKMSKey.", KindInvalidInput},
	{"AuthFailure", KindAuth},
	{"Insufficient", KindCapacity},
	{"Unsupported", KindTerminal},
	// Every other Invalid* code names a bad request parameter.
	{"Invalid", KindInvalidInput},
}

// Classify turns an SDK error into a *Error that keeps AWS's code and message. It
// returns nil for nil and returns an already classified error unchanged.
func Classify(operation string, err error) error {
	if err == nil {
		return nil
	}
	var done *Error
	if errors.As(err, &done) {
		return err
	}
	if operation == "" {
		var opErr *smithy.OperationError
		if errors.As(err, &opErr) {
			operation = opErr.OperationName
		}
	}
	code, message := ErrorCode(err)
	var unanswered *UnansweredAttemptError
	return &Error{Kind: KindOfCode(code), Operation: operation, Code: code, Message: message, Err: err,
		EarlierAttemptUnanswered: errors.As(err, &unanswered)}
}

// KindOfCode maps an AWS (or synthetic) error code to a Kind.
func KindOfCode(code string) Kind {
	if k, ok := codeKinds[code]; ok {
		return k
	}
	if code == CodeCanceled || code == "" {
		return KindUnknown
	}
	for _, p := range codePrefixKinds {
		if strings.HasPrefix(code, p.prefix) {
			return p.kind
		}
	}
	return KindUnknown
}

// ErrorCode extracts AWS's error code and message from err, or a synthetic code for
// failures without an EC2 answer. It returns "" for nil.
func ErrorCode(err error) (code, message string) {
	if err == nil {
		return "", ""
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode() != "" {
		return apiErr.ErrorCode(), apiErr.ErrorMessage()
	}
	var quota ratelimit.QuotaExceededError
	if errors.As(err, &quota) {
		return CodeRetryQuotaExceeded, err.Error()
	}
	if errors.Is(err, context.Canceled) {
		return CodeCanceled, err.Error()
	}
	if IsCredentialError(err) {
		return CodeCredentials, err.Error()
	}
	var respErr *smithyhttp.ResponseError
	if errors.As(err, &respErr) && respErr.HTTPStatusCode() >= 500 {
		return CodeServerError, err.Error()
	}
	if IsTransportError(err) {
		return CodeTransport, err.Error()
	}
	var canceled *aws.RequestCanceledError
	if errors.As(err, &canceled) {
		return CodeCanceled, err.Error()
	}
	return "", err.Error()
}

// IsTransportError reports connection failures and timeouts, including a deadline
// that expired while waiting for EC2.
func IsTransportError(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	if (retry.RetryableConnectionError{}).IsErrorRetryable(err) == aws.TrueTernary {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr)
}

// IsCredentialError reports a failure to resolve credentials. The SDK does not type
// these errors; it wraps the provider's error as "get identity: ..." (auth scheme
// middleware) or "failed to retrieve credentials: ..." (SigV4 signer), so the
// message is the only signal. A test pins this against the SDK version in go.mod.
func IsCredentialError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "get identity:") ||
		strings.Contains(msg, "failed to retrieve credentials") ||
		strings.Contains(msg, "failed to refresh cached credentials")
}

// Redact removes secret from the message of a classified error. EC2 messages do not
// normally echo request values, but user data may hold secrets and must never end
// up in a condition, event or log line.
func Redact(err error, secret string) error {
	if err == nil || len(secret) < 4 {
		return err
	}
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	// EC2's validation messages may echo the value as sent, which is base64.
	msg := e.Message
	for _, form := range []string{secret, base64.StdEncoding.EncodeToString([]byte(secret))} {
		msg = strings.ReplaceAll(msg, form, "<redacted>")
	}
	if msg == e.Message {
		return err
	}
	cp := *e
	cp.Message = msg
	cp.Err = errors.New(cp.Message)
	return &cp
}

// TokenOfTerminatedInstance reports whether RunInstances refused the client token
// because the instance launched with it was terminated (IdempotentInstanceTerminated):
// a new token launches anew. The other idempotency conflict, the token used with other
// parameters, needs a look for the earlier instance instead.
func TokenOfTerminatedInstance(err error) bool {
	return CodeOf(err) == "IdempotentInstanceTerminated"
}

// AddressNotFound reports whether EC2 does not know the Elastic IP allocation
// (InvalidAllocationID.NotFound): it was released.
func AddressNotFound(err error) bool { return CodeOf(err) == "InvalidAllocationID.NotFound" }

// AddressAssociatedElsewhere reports whether AssociateAddress refused an address that
// is associated with another instance or interface (Resource.AlreadyAssociated).
func AddressAssociatedElsewhere(err error) bool { return CodeOf(err) == "Resource.AlreadyAssociated" }

// TerminationProtected reports whether TerminateInstances refused an instance because
// its termination protection is on (OperationNotPermitted).
func TerminationProtected(err error) bool { return CodeOf(err) == "OperationNotPermitted" }
