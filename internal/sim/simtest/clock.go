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

// Package simtest holds what the tests of the emulators (ec2sim, sqssim, stssim) and
// of their clients share. It is imported by tests only.
package simtest

import (
	"sync"
	"time"
)

// Epoch is a fixed start for clocks of tests that do not need the wall clock, so
// that times in their answers are the same in every run.
var Epoch = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// Clock is a manually advanced clock, safe for concurrent use: emulators read it
// from their request handlers while the test advances it.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock that stands at start until advanced.
func NewClock(start time.Time) *Clock {
	return &Clock{t: start}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
