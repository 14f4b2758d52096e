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

package controller

import (
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ec2-operator/ec2-operator/internal/controller/requeue"
)

// failureBackoff is the workqueue's exponential per-object backoff after a failed
// reconcile, with up to a fifth of each delay added at random. Objects that failed
// together (one TerminateInstances batch, one throttled burst) would otherwise come
// back together, batch together and fail together again, in lockstep for ever.
type failureBackoff struct {
	workqueue.TypedRateLimiter[reconcile.Request]
}

func newFailureBackoff(minDelay, maxDelay time.Duration) failureBackoff {
	return failureBackoff{workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](minDelay, maxDelay)}
}

// When is the exponential delay for item, spread.
func (b failureBackoff) When(item reconcile.Request) time.Duration {
	d := b.TypedRateLimiter.When(item)
	return d + requeue.Jitter(d/5)
}
