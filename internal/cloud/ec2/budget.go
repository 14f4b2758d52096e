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

package ec2

import (
	"time"

	"golang.org/x/time/rate"
)

// The client's share of an API's budget adapts to EC2's answers the way TCP adapts
// to a congested network: it halves when EC2 throttles and grows back linearly while
// it does not. Each API adapts on its own, as EC2 throttles each on its own, so a
// throttled RunInstances does not slow the DescribeInstances that report launches
// Ready. (The SDK's adaptive retry mode keeps one rate for the whole client and cuts
// it on every throttled answer; under a steady share of throttled calls it falls to
// half a call per second for every API at once.)
const (
	// cutSpacing is the least time between two cuts of one bucket: the calls already
	// on their way when EC2 throttled one were sent at the old rate, and their
	// throttles say nothing new.
	cutSpacing = time.Second
	// floorShare is the least share of the documented refill rate a bucket is cut to,
	// so that a run of throttles never stops an API.
	floorShare = 0.1
	// regainShare is the share of the documented refill rate won back per second
	// without a throttle: a bucket cut to its floor is full again in nine seconds.
	regainShare = 0.1
)

// budget is one of EC2's token buckets as the client spends it: the limiter, the
// documented refill rate (full) and the rate it currently refills at.
type budget struct {
	lim     *rate.Limiter
	full    float64
	current float64
	// changed is when current was last cut or regained.
	changed time.Time
	// lastCut is when EC2 last throttled a call on this bucket.
	lastCut time.Time
}

// cut halves the refill rate, at most once per cutSpacing, down to the floor.
func (b *budget) cut(now time.Time) {
	if !b.lastCut.IsZero() && now.Sub(b.lastCut) < cutSpacing {
		return
	}
	b.regain(now)
	b.current = max(b.full*floorShare, b.current/2)
	b.lastCut, b.changed = now, now
	b.lim.SetLimitAt(now, rate.Limit(b.current))
}

// regain adds back regainShare of the documented rate for each second since the
// last change, up to the documented rate.
func (b *budget) regain(now time.Time) {
	if b.current >= b.full {
		return
	}
	elapsed := now.Sub(b.changed)
	if elapsed < 100*time.Millisecond {
		return
	}
	b.current = min(b.full, b.current+b.full*regainShare*elapsed.Seconds())
	b.changed = now
	b.lim.SetLimitAt(now, rate.Limit(b.current))
}
