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

package ec2sim

import (
	"fmt"
	"net/http"
	"strings"
)

// apiError is an EC2 error response: a code, a message and the HTTP status
// EC2 sends it with (400 for client errors, 5xx for server errors).
type apiError struct {
	Code    string
	Message string
	Status  int
}

// Error makes apiError usable as a Go error inside handlers.
func (e *apiError) Error() string { return e.Code + ": " + e.Message }

// clientErr builds a 400 error with a formatted message.
func clientErr(code, format string, args ...any) *apiError {
	return &apiError{Code: code, Message: fmt.Sprintf(format, args...), Status: http.StatusBadRequest}
}

// missingParam is EC2's answer when a required parameter is absent.
func missingParam(name string) *apiError {
	return clientErr("MissingParameter", "The request must contain the parameter %s", name)
}

// invalidValue is EC2's generic InvalidParameterValue wording.
func invalidValue(format string, args ...any) *apiError {
	return clientErr("InvalidParameterValue", format, args...)
}

// malformedID is the "<Kind>.Malformed" error EC2 returns for ids of the wrong shape.
func malformedID(code, id, prefix string) *apiError {
	return clientErr(code, "Invalid id: %q (expecting %q)", id, prefix+"-...")
}

// instancesNotFound names every missing id, singular or plural, as EC2 does.
func instancesNotFound(ids []string) *apiError {
	if len(ids) == 1 {
		return clientErr("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", ids[0])
	}
	return clientErr("InvalidInstanceID.NotFound", "The instance IDs '%s' do not exist", strings.Join(ids, ", "))
}

// groupsNotFound reports unknown security groups the way RunInstances does.
func groupsNotFound(ids []string) *apiError {
	if len(ids) == 1 {
		return clientErr("InvalidGroup.NotFound", "The security group '%s' does not exist", ids[0])
	}
	return clientErr("InvalidGroup.NotFound", "The security groups '%s' do not exist", strings.Join(ids, ", "))
}

// incorrectState is IncorrectInstanceState with EC2's "not in a state from
// which it can be <verb>" wording.
func incorrectState(id, verb string) *apiError {
	return clientErr("IncorrectInstanceState", "This instance '%s' is not in a state from which it can be %s.", id, verb)
}
