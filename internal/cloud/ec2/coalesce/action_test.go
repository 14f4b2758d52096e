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

package coalesce

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// errBadID stands for an error one ID causes; errThrottled for one about the call.
var (
	errBadID     = errors.New("bad id")
	errThrottled = errors.New("throttled")
)

// recordingSend answers like EC2's TerminateInstances: the whole call fails when one
// of its IDs is bad (with throttled, every call fails), and it records each call's IDs.
type recordingSend struct {
	mu        sync.Mutex
	calls     [][]string
	bad       string
	throttled bool
}

func (s *recordingSend) send(_ context.Context, ids []string) map[string]Result[string] {
	s.mu.Lock()
	s.calls = append(s.calls, slices.Clone(ids))
	s.mu.Unlock()
	out := map[string]Result[string]{}
	for _, id := range ids {
		switch {
		case s.throttled:
			out[id] = Result[string]{Err: errThrottled}
		case slices.Contains(ids, s.bad):
			out[id] = Result[string]{Err: errBadID}
		default:
			out[id] = Result[string]{Value: "shutting-down"}
		}
	}
	return out
}

// doAll acts on every ID at once and returns each answer's error by ID.
func doAll(b *ActionBatcher[string], ids []string) map[string]error {
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := map[string]error{}
	for _, id := range ids {
		wg.Go(func() {
			_, err := b.Do(context.Background(), id)
			mu.Lock()
			errs[id] = err
			mu.Unlock()
		})
	}
	wg.Wait()
	return errs
}

func newTestActionBatcher(s *recordingSend) *ActionBatcher[string] {
	return NewActionBatcher(Action[string]{
		Operation: "TerminateInstances", Send: s.send,
		PerID:  func(err error) bool { return errors.Is(err, errBadID) },
		Window: 50 * time.Millisecond, MaxSize: 1000, Timeout: time.Second,
	})
}

func TestAnActionBatchOneIDFailedIsSentAgainOneIDAtATime(t *testing.T) {
	s := &recordingSend{bad: "i-bad"}
	errs := doAll(newTestActionBatcher(s), []string{"i-1", "i-2", "i-bad"})
	if errs["i-1"] != nil || errs["i-2"] != nil || !errors.Is(errs["i-bad"], errBadID) {
		t.Errorf("answers %v, want only i-bad refused", errs)
	}
	if len(s.calls) != 4 || len(s.calls[0]) != 3 {
		t.Errorf("calls %v, want the batch of 3, then one call per ID", s.calls)
	}
}

func TestAnActionBatchThatFailedAsAWholeIsNotSplit(t *testing.T) {
	s := &recordingSend{throttled: true}
	errs := doAll(newTestActionBatcher(s), []string{"i-1", "i-2", "i-3"})
	for id, err := range errs {
		if !errors.Is(err, errThrottled) {
			t.Errorf("%s answered %v, want the call's own error", id, err)
		}
	}
	if len(s.calls) != 1 {
		t.Errorf("calls %v: a failure of the whole call was split into one call per ID", s.calls)
	}
}
