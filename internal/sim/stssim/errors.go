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

package stssim

import (
	"fmt"
	"net/http"
	"strings"
)

// apiError is an STS error response: the code, the message, the HTTP
// status STS sends it with, and whether the fault is the caller's
// ("Sender") or the service's ("Receiver"), which STS reports as Type.
type apiError struct {
	Code    string
	Message string
	Status  int
	Type    string
}

// Error makes apiError usable as a Go error.
func (e *apiError) Error() string { return e.Code + ": " + e.Message }

// senderErr builds a caller-side error with a formatted message.
func senderErr(status int, code, format string, args ...any) *apiError {
	return &apiError{Code: code, Message: fmt.Sprintf(format, args...), Status: status, Type: "Sender"}
}

// invalidClientToken is STS's answer for an access key it has no record of.
func invalidClientToken() *apiError {
	return senderErr(http.StatusForbidden, "InvalidClientTokenId", "The security token included in the request is invalid.")
}

// expiredToken is STS's answer for temporary credentials past their Expiration.
func expiredToken() *apiError {
	return senderErr(http.StatusBadRequest, "ExpiredToken", "The security token included in the request is expired")
}

// missingAuthToken is the answer for an unsigned request.
func missingAuthToken() *apiError {
	return senderErr(http.StatusForbidden, "MissingAuthenticationToken", "Request is missing Authentication Token")
}

// accessDenied is the documented AssumeRole denial: it names the caller and
// the role but, deliberately, not which part of the trust policy failed, so
// that a wrong external ID is indistinguishable from an untrusted caller or
// a role that does not exist.
func accessDenied(callerARN, action, resource string) *apiError {
	return senderErr(http.StatusForbidden, "AccessDenied", "User: %s is not authorized to perform: %s on resource: %s", callerARN, action, resource)
}

// validationError is STS's answer to parameters outside their constraints.
func validationError(format string, args ...any) *apiError {
	return senderErr(http.StatusBadRequest, "ValidationError", format, args...)
}

// constraintErrors joins per-member constraint violations into the single
// message AWS sends: "N validation error(s) detected: A; B".
func constraintErrors(violations []string) *apiError {
	noun := "error"
	if len(violations) > 1 {
		noun = "errors"
	}
	return validationError("%d validation %s detected: %s", len(violations), noun, strings.Join(violations, "; "))
}

// fmtRequestID renders a request number as a UUID-shaped id.
func fmtRequestID(n int) string {
	return fmt.Sprintf("c0ffee00-0000-4000-8000-%012x", n)
}
