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
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Fault makes matching calls fail and/or answer slowly.
type Fault struct {
	// Operation is the Action to affect; "" affects every operation.
	Operation string
	// Code is the EC2 error code to return, e.g. "RequestLimitExceeded" or
	// "InsufficientInstanceCapacity". An empty Code with a 5xx HTTPStatus
	// returns InternalError; an empty Code with no HTTPStatus injects only Latency.
	Code string
	// Message is the error message; a generic one is used when empty.
	Message string
	// HTTPStatus is the status to send; when zero it is chosen from Code the
	// way EC2 does (503 for RequestLimitExceeded and Unavailable, 500 for
	// InsufficientInstanceCapacity and InternalError, otherwise 400).
	HTTPStatus int
	// Times is how many matching calls fail before the fault disarms; 0 means
	// until removed.
	Times int
	// Probability in (0,1) makes only that fraction of matching calls fail,
	// using a generator seeded from Config.Seed; 0 or 1 means every call.
	Probability float64
	// Latency is added before answering, with or without an error.
	Latency time.Duration
	// Jitter adds a random extra delay of up to this much, from the seeded generator.
	Jitter time.Duration
	// InstanceID, when set, makes the fault apply only to calls whose parameters name
	// this instance (InstanceId, InstanceId.N): IAM refuses a whole call when it
	// denies any one resource of it, so an instance IAM denies (its owner tag removed)
	// fails every batch it is in.
	InstanceID string
	// AfterEffect lets the call take effect and then answers with the error, as a
	// request that EC2 carried out but whose answer was lost looks to a client (an
	// HTTP 500 after the instance was launched). Without it the error comes first and
	// nothing changes.
	AfterEffect bool
}

// faultEntry is an armed Fault with its remaining budget.
type faultEntry struct {
	Fault
	fired int
}

// firedFault is what a request picks up from the armed faults.
type firedFault struct {
	err     *apiError
	latency time.Duration
	// afterEffect sends err after the call took effect.
	afterEffect bool
}

// InjectFault arms f and returns a function that disarms it. Faults are
// checked in the order they were injected; the first that fires decides the
// error, and only it counts against its Times (a later error fault waits for a later
// call), while the latencies of all firing faults add up.
func (s *Sim) InjectFault(f Fault) (remove func()) {
	e := &faultEntry{Fault: f}
	s.mu.Lock()
	s.faults = append(s.faults, e)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, cur := range s.faults {
			if cur == e {
				s.faults = append(s.faults[:i], s.faults[i+1:]...)
				return
			}
		}
	}
}

// namesInstance reports whether the call's parameters name the instance.
func namesInstance(form url.Values, id string) bool {
	for k, vs := range form {
		if k == "InstanceId" || strings.HasPrefix(k, "InstanceId.") {
			if slices.Contains(vs, id) {
				return true
			}
		}
	}
	return false
}

// matchFault consumes the faults that apply to one call of op with form.
func (s *Sim) matchFault(op string, form url.Values) firedFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out firedFault
	for _, f := range s.faults {
		if f.Operation != "" && f.Operation != op {
			continue
		}
		if f.Times > 0 && f.fired >= f.Times {
			continue
		}
		if f.InstanceID != "" && !namesInstance(form, f.InstanceID) {
			continue
		}
		apiErr := f.apiError()
		if apiErr != nil && out.err != nil {
			// An earlier fault decided this call's error: this one waits for a later
			// call, so that faults limited to a number of calls apply one call after
			// another, in the order they were injected.
			continue
		}
		if f.Probability > 0 && f.Probability < 1 && s.faultRand.Float64() >= f.Probability {
			continue
		}
		f.fired++
		out.latency += f.Latency
		if f.Jitter > 0 {
			out.latency += time.Duration(s.faultRand.Int64N(int64(f.Jitter)))
		}
		if apiErr != nil {
			out.err = apiErr
			out.afterEffect = f.AfterEffect
		}
	}
	return out
}

// apiError converts the fault into the error to send, or nil for latency-only faults.
func (f *Fault) apiError() *apiError {
	code, status := f.Code, f.HTTPStatus
	if code == "" && status == 0 {
		return nil
	}
	if code == "" {
		code = "InternalError"
	}
	if status == 0 {
		switch code {
		case "RequestLimitExceeded", "Unavailable", "ServiceUnavailable":
			status = http.StatusServiceUnavailable
		case "InternalError", "InsufficientInstanceCapacity", "InsufficientAddressCapacity":
			status = http.StatusInternalServerError
		default:
			status = http.StatusBadRequest
		}
	}
	msg := f.Message
	if msg == "" {
		switch code {
		case "RequestLimitExceeded":
			msg = "Request limit exceeded."
		case "InternalError":
			msg = "An internal error has occurred"
		case "InsufficientInstanceCapacity":
			msg = "We currently do not have sufficient capacity in the Availability Zone you requested."
		default:
			msg = "Injected fault."
		}
	}
	return &apiError{Code: code, Message: msg, Status: status}
}

// Gate holds calls of one operation until Release is called.
type Gate struct {
	arrivedOnce sync.Once
	arrived     chan struct{}
	releaseOnce sync.Once
	released    chan struct{}
	unregister  func()
}

// newGate returns a gate that unregisters itself on Release.
func newGate(unregister func()) *Gate {
	return &Gate{arrived: make(chan struct{}), released: make(chan struct{}), unregister: unregister}
}

// Block makes calls of op wait, unprocessed, until the returned gate is
// released; it replaces any earlier Block gate for op.
func (s *Sim) Block(op string) *Gate {
	s.mu.Lock()
	defer s.mu.Unlock()
	var g *Gate
	g = newGate(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.gates[op] == g {
			delete(s.gates, op)
		}
	})
	s.gates[op] = g
	return g
}

// BlockResponse lets calls of op take effect immediately but withholds
// their responses until the returned gate is released. If the client gives
// up first, the response is dropped: this simulates "RunInstances
// succeeded but the client timed out".
func (s *Sim) BlockResponse(op string) *Gate {
	s.mu.Lock()
	defer s.mu.Unlock()
	var g *Gate
	g = newGate(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.respGate[op] == g {
			delete(s.respGate, op)
		}
	})
	s.respGate[op] = g
	return g
}

// Arrived is closed when the first call reaches the gate.
func (g *Gate) Arrived() <-chan struct{} { return g.arrived }

// Release lets waiting and future calls through. It is idempotent.
func (g *Gate) Release() {
	g.releaseOnce.Do(func() {
		g.unregister()
		close(g.released)
	})
}

// wait blocks until release or until ctx ends; it reports whether the call
// should continue.
func (g *Gate) wait(ctx context.Context) bool {
	g.arrivedOnce.Do(func() { close(g.arrived) })
	select {
	case <-g.released:
		return true
	case <-ctx.Done():
		return false
	}
}

// sleepCtx sleeps for d unless ctx ends first; it reports whether it slept fully.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
