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
