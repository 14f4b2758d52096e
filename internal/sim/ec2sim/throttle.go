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

package ec2sim

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/ec2-operator/ec2-operator/internal/ec2limits"
)

// throttle enforces EC2's per-account API limits (Config.Throttle): each API has its
// own request bucket, and the instance lifecycle calls draw one resource token per
// instance from a second bucket. A call that finds either empty fails with
// RequestLimitExceeded and changes nothing, as EC2 does.
type throttle struct {
	limits   ec2limits.Limits
	request  map[string]*ec2limits.TokenBucket
	resource map[string]*ec2limits.TokenBucket
	// refused counts the calls refused, by operation.
	refused map[string]int
}

func newThrottle(l ec2limits.Limits) *throttle {
	return &throttle{limits: l, request: map[string]*ec2limits.TokenBucket{},
		resource: map[string]*ec2limits.TokenBucket{}, refused: map[string]int{}}
}

// admit takes the tokens a call needs, or returns the error EC2 sends when the
// account is over its limit. Call with s.mu held.
func (s *Sim) admit(op string, form url.Values) *apiError {
	t := s.throttle
	if t == nil {
		return nil
	}
	now := s.now()
	key := ec2limits.RequestKey(op, filteredOrPaginated(form))
	req, ok := t.request[key]
	if !ok {
		req = ec2limits.NewTokenBucket(t.limits.Request(key), now)
		t.request[key] = req
	}
	var res *ec2limits.TokenBucket
	n := float64(resourceCount(op, form))
	if spec, ok := t.limits.Resource(op); ok && n > 0 {
		if res, ok = t.resource[op]; !ok {
			res = ec2limits.NewTokenBucket(spec, now)
			t.resource[op] = res
		}
	}
	if req.Tokens(now) < 1 || (res != nil && res.Tokens(now) < n) {
		t.refused[op]++
		return &apiError{Status: 503, Code: "RequestLimitExceeded", Message: "Request limit exceeded."}
	}
	req.Take(1, now)
	if res != nil {
		res.Take(n, now)
	}
	return nil
}

// filteredOrPaginated tells a filtered or paginated describe (the larger bucket) from
// an unfiltered, unpaginated one.
func filteredOrPaginated(form url.Values) bool {
	for k := range form {
		if strings.HasPrefix(k, "Filter.") || k == "MaxResults" || k == "NextToken" {
			return true
		}
	}
	return false
}

// resourceCount is the number of instances a lifecycle call affects: the instances
// RunInstances may launch (MaxCount), or the instance IDs of the others.
func resourceCount(op string, form url.Values) int {
	if op == "RunInstances" {
		n, _ := strconv.Atoi(form.Get("MaxCount"))
		return n
	}
	n := 0
	for k := range form {
		if strings.HasPrefix(k, "InstanceId.") {
			n++
		}
	}
	return n
}

// ThrottledCalls returns how many calls of each operation the emulated account limits
// refused.
func (s *Sim) ThrottledCalls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	if s.throttle != nil {
		for op, n := range s.throttle.refused {
			out[op] = n
		}
	}
	return out
}
