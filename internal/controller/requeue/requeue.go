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

// Package requeue says when the operator's reconcilers come back to an object: the
// bounds of the failure backoff, the short waits for credentials and for write
// conflicts, and the spread that keeps objects waiting for the same thing from coming
// back at once. The EC2Instance and AWSAccount reconcilers share it.
package requeue

import (
	"math/rand/v2"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
)

// The failure backoff: per object, exponential between these bounds.
const (
	DefaultMinBackoff = time.Second
	DefaultMaxBackoff = 5 * time.Minute
)

// CredentialsWait is how soon an object comes back while the AWS credentials are not
// there yet.
const CredentialsWait = 10 * time.Second

// ConflictRetry is how soon an object whose write met a newer version is reconciled
// again the first time; the EC2Instance reconciler doubles it for each further one.
const ConflictRetry = 100 * time.Millisecond

// After is the result that brings an object back after d, spread by up to a tenth
// when asked.
func After(d time.Duration, spread bool) ctrl.Result {
	if spread {
		d += Jitter(d / 10)
	}
	return ctrl.Result{RequeueAfter: d}
}

// Jitter returns a random duration up to d, so that objects waiting for the same
// budget do not all come back at once.
func Jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(d)))
}
