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

package ec2limits

import "time"

// TokenBucket is a token bucket on a caller-supplied clock, as EC2 keeps one per API
// per account: it starts full, refills continuously, and a call that needs more
// tokens than it holds is refused (EC2 does not queue calls).
type TokenBucket struct {
	spec   Bucket
	tokens float64
	last   time.Time
}

// NewTokenBucket returns a full bucket.
func NewTokenBucket(spec Bucket, now time.Time) *TokenBucket {
	return &TokenBucket{spec: spec, tokens: spec.Capacity, last: now}
}

// Take removes n tokens at time now and reports true, or reports false and removes
// nothing when fewer than n are there.
func (b *TokenBucket) Take(n float64, now time.Time) bool {
	b.refill(now)
	if b.tokens < n {
		return false
	}
	b.tokens -= n
	return true
}

// Tokens returns the tokens in the bucket at time now.
func (b *TokenBucket) Tokens(now time.Time) float64 {
	b.refill(now)
	return b.tokens
}

func (b *TokenBucket) refill(now time.Time) {
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(b.spec.Capacity, b.tokens+elapsed.Seconds()*b.spec.RefillPerSecond)
		b.last = now
	}
}
