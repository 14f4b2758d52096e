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

import "github.com/aws/aws-sdk-go-v2/aws/retry"

// The codes that mean "slow down" or "try again" come from the SDK's own tables
// (retry.DefaultThrottleErrorCodes and retry.DefaultRetryableErrorCodes, shared by
// every AWS service), plus the few of EC2's own that those tables lack. The classifier
// (codeKinds), the pacer's throttle detection (IsThrottleCode) and the SDK's retryer
// (EC2Throttles) all read this one list, so a code the SDK learns in an upgrade is
// known everywhere at once.

// ec2ThrottleCodes are EC2's answers for "slow down" missing from the SDK's table.
// Source: the EC2 API reference, "Error codes for the Amazon EC2 API".
var ec2ThrottleCodes = map[string]struct{}{
	"RequestThrottled":             {},
	"EC2ThrottledException":        {},
	"RequestResourceCountExceeded": {},
}

// IsThrottleCode reports whether code is EC2 asking the client to slow down.
func IsThrottleCode(code string) bool {
	if _, ok := retry.DefaultThrottleErrorCodes[code]; ok {
		return true
	}
	_, ok := ec2ThrottleCodes[code]
	return ok
}

// EC2Throttles makes the SDK's retryer treat EC2's own throttle codes as it treats
// RequestLimitExceeded: retried, at a throttle's cost to the retry quota.
var (
	EC2Throttles  retry.IsErrorThrottle  = retry.ThrottleErrorCode{Codes: ec2ThrottleCodes}
	EC2Retryables retry.IsErrorRetryable = retry.RetryableErrorCode{Codes: ec2ThrottleCodes}
)

// withTransientCodes adds to kinds every throttle and transient code of the SDK's
// tables and EC2's own, as KindThrottled, unless kinds says otherwise.
func withTransientCodes(kinds map[string]Kind) map[string]Kind {
	for _, table := range []map[string]struct{}{retry.DefaultThrottleErrorCodes, retry.DefaultRetryableErrorCodes, ec2ThrottleCodes} {
		for code := range table {
			if _, ok := kinds[code]; !ok {
				kinds[code] = KindThrottled
			}
		}
	}
	return kinds
}
