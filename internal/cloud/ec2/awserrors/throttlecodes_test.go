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
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

// The classifier and the pacer know every code the SDK's retryer treats as a
// throttle or a transient failure, and EC2's own throttle codes besides.
func TestThrottleAndTransientCodesComeFromTheSDKsTables(t *testing.T) {
	for code := range retry.DefaultThrottleErrorCodes {
		if !IsThrottleCode(code) || KindOfCode(code) != KindThrottled {
			t.Errorf("SDK throttle code %s: IsThrottleCode %v, kind %v", code, IsThrottleCode(code), KindOfCode(code))
		}
	}
	for code := range retry.DefaultRetryableErrorCodes {
		if KindOfCode(code) != KindThrottled {
			t.Errorf("SDK transient code %s: kind %v, want throttled", code, KindOfCode(code))
		}
	}
	for _, code := range []string{"RequestLimitExceeded", "RequestThrottled", "EC2ThrottledException", "RequestResourceCountExceeded"} {
		if !IsThrottleCode(code) || KindOfCode(code) != KindThrottled {
			t.Errorf("EC2 throttle code %s: IsThrottleCode %v, kind %v", code, IsThrottleCode(code), KindOfCode(code))
		}
	}
	for _, code := range []string{"InternalError", "InvalidParameterValue", "InsufficientInstanceCapacity", ""} {
		if IsThrottleCode(code) {
			t.Errorf("%q is taken for a throttle", code)
		}
	}
}
