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
	"fmt"
	"net/http"
	"regexp"
)

// batchIDPattern is what SQS allows in a batch entry Id: up to 80
// alphanumerics, hyphens and underscores.
var batchIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)

// checkBatch applies the rules every SQS batch action shares, with the
// errors the API Reference lists for DeleteMessageBatch.
func checkBatch(n int, id func(int) string) *apiError {
	if n == 0 {
		return &apiError{Type: "com.amazonaws.sqs#EmptyBatchRequest", QueryCode: "AWS.SimpleQueueService.EmptyBatchRequest",
			Sender: true, Status: http.StatusBadRequest, Message: "There should be at least one DeleteMessageBatchRequestEntry in the request."}
	}
	if n > 10 {
		return &apiError{Type: "com.amazonaws.sqs#TooManyEntriesInBatchRequest", QueryCode: "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
			Sender: true, Status: http.StatusBadRequest, Message: fmt.Sprintf("Maximum number of entries per request are 10. You have sent %d.", n)}
	}
	seen := map[string]bool{}
	for i := range n {
		v := id(i)
		if !batchIDPattern.MatchString(v) {
			return &apiError{Type: "com.amazonaws.sqs#InvalidBatchEntryId", QueryCode: "AWS.SimpleQueueService.InvalidBatchEntryId",
				Sender: true, Status: http.StatusBadRequest, Message: "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long."}
		}
		if seen[v] {
			return &apiError{Type: "com.amazonaws.sqs#BatchEntryIdsNotDistinct", QueryCode: "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
				Sender: true, Status: http.StatusBadRequest, Message: fmt.Sprintf("Id %s repeated.", v)}
		}
		seen[v] = true
	}
	return nil
}
