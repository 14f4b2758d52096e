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

package callmetrics

import (
	"sync"
	"time"
)

// MemoryRecorder is a CallRecorder that keeps counts in memory. It is meant for tests
// of this package and of its callers.
type MemoryRecorder struct {
	mu      sync.Mutex
	calls   map[string]map[string]int
	retries map[string]map[string]int
	latency map[string]time.Duration
}

// NewMemoryRecorder returns an empty MemoryRecorder.
func NewMemoryRecorder() *MemoryRecorder {
	return &MemoryRecorder{
		calls:   map[string]map[string]int{},
		retries: map[string]map[string]int{},
		latency: map[string]time.Duration{},
	}
}

// RecordCall counts one attempt of operation with code.
func (r *MemoryRecorder) RecordCall(operation, code string, latency time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	inc(r.calls, operation, code)
	r.latency[operation] += latency
}

// RecordRetry counts one retry of operation after code.
func (r *MemoryRecorder) RecordRetry(operation, code string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	inc(r.retries, operation, code)
}

// Calls returns how many attempts of operation ended with code ("" is success).
func (r *MemoryRecorder) Calls(operation, code string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[operation][code]
}

// Retries returns how many times operation was retried after code.
func (r *MemoryRecorder) Retries(operation, code string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.retries[operation][code]
}

// Latency returns the summed latency of all attempts of operation.
func (r *MemoryRecorder) Latency(operation string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.latency[operation]
}

func inc(m map[string]map[string]int, operation, code string) {
	if m[operation] == nil {
		m[operation] = map[string]int{}
	}
	m[operation][code]++
}
