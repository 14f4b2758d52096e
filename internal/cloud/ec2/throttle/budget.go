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

package throttle

import (
	"math"
	"time"

	"golang.org/x/time/rate"
)

// The client's share of an API's budget adapts to EC2's answers the way TCP adapts
// to a congested network: it falls when EC2 throttles and grows back linearly while
// it does not. Each API adapts on its own, as EC2 throttles each on its own, so a
// throttled RunInstances does not slow the DescribeInstances that report launches
// Ready. (The SDK's adaptive retry mode keeps one rate for the whole client and cuts
// it on every throttled answer; under a steady share of throttled calls it falls to
// half a call per second for every API at once.)
//
// A learning budget (the default: the account's limits are not configured) also
// probes upward while calls wait for it, because AWS raises limits per account on
// request and nothing in EC2's API says by how much: the first RequestLimitExceeded
// above the documented rate says where the account's limit is. Until then the rate
// grows multiplicatively (slowStartGrowth), and the first throttle sets it from what
// EC2 took before its bucket ran dry (episodeRate); after it, the rate probes
// slowly, near the limit found.
const (
	// cutSpacing is the least time between two cuts of one bucket: the calls already
	// on their way when EC2 throttled one were sent at the old rate, and their
	// throttles say nothing new.
	cutSpacing = time.Second
	// floorShare is the least share of the documented refill rate a bucket is cut to,
	// so that a run of throttles never stops an API.
	floorShare = 0.1
	// regainShare is the share of the rate a bucket regains towards (the documented
	// one, or nine tenths of the rate EC2 last throttled) won back per second without
	// a throttle: a bucket cut to its floor is back in nine seconds.
	regainShare = 0.1
	// belowBaseCut is the cut of a bucket EC2 throttled at or below its documented
	// rate: other tools spend the account's budget too, so the share left is unknown
	// and the client halves its own.
	belowBaseCut = 0.5
	// learnedCut is the cut of a bucket EC2 throttled above its documented rate while
	// learning, once it knows roughly where the account's limit is: a rate a fifth
	// below keeps most of the throughput while EC2's bucket refills.
	learnedCut = 0.8
	// firstLearnedCut is the cut at the first throttle above the documented rate when
	// the bucket has no record of what it sent (episodeRate is zero): EC2's bucket
	// (larger, for an account with raised limits) absorbed the probe for a while, so
	// the rate reached is well past the limit. The rate after the cut is taken as the
	// limit until EC2 says otherwise.
	firstLearnedCut = 0.5
	// probeShare is how far above the documented rate a first throttle may come and
	// still say the documented rate is the account's, when the bucket has no record
	// of what it sent (see documentedMargin).
	probeShare = 3.0
	// slowStartGrowth is how fast a learning bucket's rate grows per second of
	// backlog before EC2 has ever throttled it: eightfold a second, as TCP's slow
	// start doubles its window every round trip. From RunInstances' documented two a
	// second it reaches a tenfold raised twenty in just over a second; the overshoot
	// when EC2's bucket runs dry is undone at once by the first throttle's estimate
	// (episodeRate), not by halving.
	slowStartGrowth = 2.0794415416798357 // ln 8
	// documentedMargin is how far above the documented rate the first throttle's
	// estimate of the account's rate may be and still mean the documented limit.
	documentedMargin = 1.25
	// ceilingProbeShare is how much of the rate EC2 last throttled a learning bucket
	// adds per second of backlog once it is above nine tenths of that rate: slowly,
	// so that a limit found is only tested again now and then.
	ceilingProbeShare = 0.02
	// ceilingShare is where regaining ends and slow probing begins: nine tenths of
	// the rate EC2 last throttled.
	ceilingShare = 0.9
	// documentedQuiet is how long a learning bucket does not probe after EC2 throttled
	// its first step above the documented rate: the account has the documented
	// limit, and testing it again at every backlog would cost a throttle each time.
	documentedQuiet = 10 * time.Minute
	// backlogWindow is how recently a call must have waited for a bucket for it to
	// have a backlog: without one, faster would not help, and probing would only
	// risk a throttle.
	backlogWindow = time.Second
)

// budget is one of EC2's token buckets as the client spends it: the limiter, the
// documented (or configured) refill rate and the rate it currently refills at.
type budget struct {
	lim *rate.Limiter
	// full is the documented or configured refill rate.
	full    float64
	current float64
	// learn lets the rate probe above full while calls wait (see probe).
	learn bool
	// ceiling is the rate EC2 last throttled this bucket at, zero before it has.
	ceiling float64
	// quietUntil is when a learning bucket may probe again (see documentedQuiet).
	quietUntil time.Time
	// changed is when current was last cut or regained.
	changed time.Time
	// lastCut is when EC2 last throttled a call on this bucket.
	lastCut time.Time
	// cuts counts the cuts, so that a call waiting for this bucket can tell that the
	// rate it was admitted at is gone (Pacer.Wait).
	cuts uint64
	// waited is when a call last had to wait for this bucket: its backlog.
	waited time.Time
	// reserve is how many tokens the limiter keeps below EC2's bucket (see limiter).
	reserve int
	// report is told the rate whenever it changes (a metric), when not nil.
	report func(perSecond float64)
	// The tokens sent since the bucket was last idle long enough for EC2's bucket
	// to be full again (episodeStart), and how many of them EC2 throttled: what
	// episodeRate estimates the account's rate from.
	episodeStart              time.Time
	lastAdmit                 time.Time
	episodeSent, episodeThrot float64
}

// admitted records n tokens sent. An idle spell long enough for EC2's bucket to
// refill completely starts a new episode.
func (b *budget) admitted(now time.Time, n float64) {
	if b.episodeStart.IsZero() || now.Sub(b.lastAdmit).Seconds() >= b.capacity()/b.full {
		b.episodeStart, b.episodeSent, b.episodeThrot = now, 0, 0
	}
	b.lastAdmit = now
	b.episodeSent += n
}

// capacity is the size of EC2's bucket as documented (or configured): the client's
// burst and the tokens it keeps back.
func (b *budget) capacity() float64 { return float64(b.lim.Burst() + b.reserve) }

// episodeRate estimates the account's refill rate at the first throttle of an
// episode: EC2's bucket was full when it began and is empty now, so what EC2 took
// is its capacity plus its refill over the episode. AWS raises an account's bucket
// and its rate together, so the capacity is taken as the documented number of
// seconds of refill. It is zero without a record of the episode.
func (b *budget) episodeRate(now time.Time) float64 {
	if b.episodeStart.IsZero() || b.episodeSent <= 0 {
		return 0
	}
	taken := b.episodeSent - b.episodeThrot
	return taken / (now.Sub(b.episodeStart).Seconds() + b.capacity()/b.full)
}

// cut lowers the refill rate, at most once per cutSpacing, down to the floor: by
// learnedCut when EC2 throttled a rate above the documented one (the account's
// limit is found), by half otherwise. After a cut the limiter also gives up its
// reserve again, which the calls over the limit spent on EC2's side. It reports
// whether it cut (a throttle within cutSpacing of the last cut does not).
func (b *budget) cut(now time.Time) bool {
	b.episodeThrot++
	if !b.lastCut.IsZero() && now.Sub(b.lastCut) < cutSpacing {
		return false
	}
	b.regain(now)
	throttledAt := b.current
	estimate := b.episodeRate(now)
	switch {
	case throttledAt <= b.full:
		b.current = max(b.full*floorShare, throttledAt*belowBaseCut)
	case b.ceiling == 0 && estimate > 0 && estimate <= b.full*documentedMargin,
		b.ceiling == 0 && estimate == 0 && throttledAt <= b.full*(1+probeShare):
		// What EC2 took while the rate grew is what the documented limit allows:
		// the account's limit is the documented one.
		b.current, b.ceiling, b.quietUntil = b.full, b.full, now.Add(documentedQuiet)
	case b.ceiling == 0 && estimate > 0:
		b.current = max(b.full, estimate*ceilingShare)
		b.ceiling = estimate
	case b.ceiling == 0:
		b.current = max(b.full, throttledAt*firstLearnedCut)
		b.ceiling = b.current
	default:
		b.current = max(b.full, throttledAt*learnedCut)
		b.ceiling = throttledAt
	}
	b.lastCut, b.changed = now, now
	b.cuts++
	b.lim.SetLimitAt(now, rate.Limit(b.current))
	if drain := max(float64(b.reserve), math.Floor(b.lim.TokensAt(now))); drain > 0 {
		// EC2's bucket is empty: the tokens the client still holds would only be
		// throttled too. It gives them up, and its reserve, which the calls over the
		// limit spent on EC2's side.
		b.lim.ReserveN(now, int(drain))
	}
	b.reportRate()
	return true
}

// regain adds back regainShare of its target for each second since the last change,
// up to the target: the documented rate, or nine tenths of the rate EC2 last
// throttled while learning. Past the target a learning bucket with a backlog probes.
func (b *budget) regain(now time.Time) {
	elapsed := now.Sub(b.changed)
	if elapsed < 100*time.Millisecond {
		return
	}
	target := b.full
	if b.learn {
		target = max(target, b.ceiling*ceilingShare)
	}
	before := b.current
	switch {
	case b.current < target:
		b.current = min(target, b.current+target*regainShare*elapsed.Seconds())
	case now.Sub(b.waited) < backlogWindow && b.canProbe(now) && b.ceiling == 0:
		b.current *= math.Exp(slowStartGrowth * min(elapsed, backlogWindow).Seconds())
	case now.Sub(b.waited) < backlogWindow && b.canProbe(now):
		b.current += b.probeStep() * min(elapsed, backlogWindow).Seconds()
	}
	b.changed = now
	if b.current != before {
		b.lim.SetLimitAt(now, rate.Limit(b.current))
		b.reportRate()
	}
}

// probeStep is the rate a learning bucket adds per second of backlog once EC2 has
// throttled it above the documented rate: slowly, near the rate it throttled.
func (b *budget) probeStep() float64 {
	return max(b.ceiling, b.full) * ceilingProbeShare
}

// canProbe reports whether a learning bucket may probe above its rate now: not
// within a second of a throttle, nor while the documented limit holds (quietUntil).
func (b *budget) canProbe(now time.Time) bool {
	return b.learn && now.Sub(b.lastCut) >= cutSpacing && !now.Before(b.quietUntil)
}

// timeFor is how long the bucket takes to hold n more tokens than it has now: at its
// current rate, or while it may probe, at a rate growing by its probe step each
// second (the optimistic answer: a throttle only makes it later, and a launch told
// to come back too early asks again).
func (b *budget) timeFor(now time.Time, n float64) time.Duration {
	need := n - b.lim.TokensAt(now)
	if need <= 0 || b.current <= 0 {
		return 0
	}
	seconds := need / b.current
	switch {
	case b.canProbe(now) && b.ceiling == 0:
		// The rate grows as e^(kt): the tokens by t are current/k (e^(kt) - 1).
		seconds = math.Log1p(need*slowStartGrowth/b.current) / slowStartGrowth
	case b.canProbe(now):
		step := b.probeStep()
		seconds = (math.Sqrt(b.current*b.current+2*step*need) - b.current) / step
	}
	return time.Duration(seconds * float64(time.Second))
}

// backlogged records that a call waited for this bucket.
func (b *budget) backlogged(now time.Time) { b.waited = now }

func (b *budget) reportRate() {
	if b.report != nil {
		b.report(b.current)
	}
}
