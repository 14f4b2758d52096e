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

package bench

import (
	"bufio"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// reconcileHistogram is controller-runtime's histogram of the EC2Instance
// controller's reconcile durations as the manager's /metrics shows it: the
// cumulative count per upper bound.
type reconcileHistogram map[float64]float64

// reconcileSeries is the bucket series the histogram is read from.
const reconcileSeries = `controller_runtime_reconcile_time_seconds_bucket{controller="ec2instance",`

// scrapeReconcileHistogram reads the histogram from the manager's plain-HTTP
// metrics endpoint; nil when it cannot (the phase then reports no latencies).
func scrapeReconcileHistogram(metricsURL string) reconcileHistogram {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(metricsURL)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	h := reconcileHistogram{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, reconcileSeries) {
			continue
		}
		_, rest, ok := strings.Cut(line, `le="`)
		if !ok {
			continue
		}
		bound, rest, ok := strings.Cut(rest, `"`)
		if !ok {
			continue
		}
		le, err1 := strconv.ParseFloat(bound, 64)
		count, err2 := strconv.ParseFloat(strings.TrimSpace(rest[strings.LastIndex(rest, " ")+1:]), 64)
		if err1 == nil && err2 == nil {
			h[le] = count
		}
	}
	return h
}

// since is the histogram of what happened after before (the same manager's earlier
// scrape; nil for none).
func (h reconcileHistogram) since(before reconcileHistogram) reconcileHistogram {
	out := reconcileHistogram{}
	for le, n := range h {
		out[le] = n - before[le]
	}
	return out
}

// quantile estimates the q-quantile as Prometheus's histogram_quantile does: linear
// within the bucket the rank falls in; the highest finite bound when it falls in
// +Inf; NaN without observations.
func (h reconcileHistogram) quantile(q float64) float64 {
	bounds := make([]float64, 0, len(h))
	for le := range h {
		bounds = append(bounds, le)
	}
	slices.Sort(bounds)
	if len(bounds) == 0 || h[bounds[len(bounds)-1]] == 0 {
		return math.NaN()
	}
	rank := q * h[bounds[len(bounds)-1]]
	lower, below := 0.0, 0.0
	for _, le := range bounds {
		n := h[le]
		if n >= rank {
			if math.IsInf(le, 1) {
				return lower
			}
			if n == below {
				return le
			}
			return lower + (le-lower)*(rank-below)/(n-below)
		}
		lower, below = le, n
	}
	return lower
}

// count is the number of observations.
func (h reconcileHistogram) count() float64 { return h[math.Inf(1)] }

// summary says how many reconciles the phase ran and their p50, p90 and p99.
func (h reconcileHistogram) summary() string {
	if h == nil || h.count() == 0 {
		return "-"
	}
	ms := func(q float64) string {
		v := h.quantile(q)
		if v >= 1 {
			return fmt.Sprintf("%.1f s", v)
		}
		return fmt.Sprintf("%.0f ms", v*1000)
	}
	return fmt.Sprintf("%.0f: p50 %s, p90 %s, p99 %s", h.count(), ms(0.5), ms(0.9), ms(0.99))
}
