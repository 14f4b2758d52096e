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
	"encoding/json"
	"fmt"
	"net/http"
)

// apiError is an SQS error. In the JSON protocol SQS names the error shape in
// __type and, because SQS is "awsQueryCompatible", also sends the code the
// older query protocol used in x-amzn-query-error as "<code>;<Sender|Receiver>".
// The SDK picks the error type from __type and reports the query code from
// ErrorCode(), e.g. *types.QueueDoesNotExist with code
// AWS.SimpleQueueService.NonExistentQueue.
type apiError struct {
	// Type is the __type, e.g. "com.amazonaws.sqs#QueueDoesNotExist".
	Type string
	// QueryCode is the query-protocol code for x-amzn-query-error.
	QueryCode string
	// Sender is true for client faults and false for server faults.
	Sender  bool
	Message string
	Status  int
}

// writeError sends e as SQS does in the JSON protocol.
func writeError(w http.ResponseWriter, e *apiError) {
	fault := "Receiver"
	if e.Sender {
		fault = "Sender"
	}
	w.Header().Set("Content-Type", jsonContentType)
	w.Header().Set("x-amzn-query-error", e.QueryCode+";"+fault)
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": e.Type, "message": e.Message})
}

// errNoQueue is SQS's answer for a QueueUrl naming no queue.
func errNoQueue() *apiError {
	return &apiError{
		Type: "com.amazonaws.sqs#QueueDoesNotExist", QueryCode: "AWS.SimpleQueueService.NonExistentQueue",
		Sender: true, Status: http.StatusBadRequest, Message: "The specified queue does not exist.",
	}
}

// errUnavailable is the 503 SQS returns when it cannot serve the request;
// the SDK's retryer retries it.
func errUnavailable() *apiError {
	return &apiError{
		Type: "ServiceUnavailable", QueryCode: "ServiceUnavailable",
		Status: http.StatusServiceUnavailable, Message: "Service is unavailable. Try again later.",
	}
}

// invalidParameter is SQS's InvalidParameterValue, e.g. for
// MaxNumberOfMessages outside 1..10. The SDK has no modelled type for it, so
// it surfaces as a generic API error with code InvalidParameterValue.
func invalidParameter(format string, args ...any) *apiError {
	return &apiError{
		Type: "InvalidParameterValue", QueryCode: "InvalidParameterValue",
		Sender: true, Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...),
	}
}

// missingParameter reports a required parameter the request left out.
func missingParameter(name string) *apiError {
	return &apiError{
		Type: "MissingParameter", QueryCode: "MissingParameter",
		Sender: true, Status: http.StatusBadRequest,
		Message: fmt.Sprintf("The request must contain the parameter %s.", name),
	}
}

// invalidAction rejects an X-Amz-Target the simulator does not implement.
func invalidAction(name string) *apiError {
	return &apiError{
		Type: "InvalidAction", QueryCode: "InvalidAction",
		Sender: true, Status: http.StatusBadRequest,
		Message: fmt.Sprintf("The action %s is not valid for this endpoint.", name),
	}
}

// malformed rejects a body that is not the JSON the action expects.
func malformed(err error) *apiError {
	return &apiError{
		Type: "SerializationException", QueryCode: "MalformedInput",
		Sender: true, Status: http.StatusBadRequest, Message: err.Error(),
	}
}

// errReceiptHandle is SQS's ReceiptHandleIsInvalid for a handle it never issued.
func errReceiptHandle(handle string) *apiError {
	return &apiError{
		Type: "com.amazonaws.sqs#ReceiptHandleIsInvalid", QueryCode: "ReceiptHandleIsInvalid",
		Sender: true, Status: http.StatusBadRequest,
		Message: fmt.Sprintf("The input receipt handle \"%s\" is not a valid receipt handle.", handle),
	}
}
