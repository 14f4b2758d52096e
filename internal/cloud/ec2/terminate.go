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
	"context"
	"sync"
	"time"

	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// Defaults of the termination batcher.
const (
	// DefaultTerminateWindow is how long a termination waits for others to share its
	// call. Deleting many objects at once (a namespace, a fleet) makes many
	// terminations due within a few milliseconds of each other.
	DefaultTerminateWindow = 50 * time.Millisecond
	// maxTerminateBatch is TerminateInstances' limit: "Up to 1000 instance IDs".
	maxTerminateBatch = 1000
)

// terminateResult is one instance's answer: its state after the call, or the error.
type terminateResult struct {
	state string
	err   error
}

// terminateBatcher sends the terminations that fall due within one window as a single
// TerminateInstances call. EC2 fails such a call as a whole when one instance cannot
// be terminated ("If you specify multiple instances and the request fails (for
// example, because of a single incorrect instance ID), none of the instances are
// terminated"), so a batch that fails for a reason tied to an instance is sent again
// one instance at a time, and each caller gets its own instance's answer.
type terminateBatcher struct {
	api     *awsec2.Client
	window  time.Duration
	timeout time.Duration

	mu      sync.Mutex
	waiters map[string][]chan terminateResult
	order   []string
}

func newTerminateBatcher(api *awsec2.Client, window, timeout time.Duration) *terminateBatcher {
	return &terminateBatcher{api: api, window: window, timeout: timeout, waiters: map[string][]chan terminateResult{}}
}

// terminate terminates one instance and returns its state after the call.
func (b *terminateBatcher) terminate(ctx context.Context, id string) (string, error) {
	ch := make(chan terminateResult, 1)
	b.mu.Lock()
	if len(b.order) == 0 {
		time.AfterFunc(b.window, b.flush)
	}
	if _, dup := b.waiters[id]; !dup {
		b.order = append(b.order, id)
	}
	b.waiters[id] = append(b.waiters[id], ch)
	full := len(b.order) >= maxTerminateBatch
	var ids []string
	var waiters map[string][]chan terminateResult
	if full {
		ids, waiters = b.take()
	}
	b.mu.Unlock()
	if full {
		go b.run(ids, waiters)
	}
	select {
	case r := <-ch:
		return r.state, r.err
	case <-ctx.Done():
		return "", awserrors.Classify("TerminateInstances", ctx.Err())
	}
}

// take empties the pending batch. Call with b.mu held.
func (b *terminateBatcher) take() ([]string, map[string][]chan terminateResult) {
	ids, waiters := b.order, b.waiters
	b.order, b.waiters = nil, map[string][]chan terminateResult{}
	return ids, waiters
}

// flush sends whatever is pending when the window closes.
func (b *terminateBatcher) flush() {
	b.mu.Lock()
	ids, waiters := b.take()
	b.mu.Unlock()
	if len(ids) > 0 {
		b.run(ids, waiters)
	}
}

// run terminates one batch and answers every caller. It uses its own context: it
// serves many callers, and one of them giving up must not fail the others.
func (b *terminateBatcher) run(ids []string, waiters map[string][]chan terminateResult) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	results := b.send(ctx, ids)
	if len(ids) > 1 {
		for _, id := range ids {
			if r := results[id]; r.err != nil && isPerInstance(r.err) {
				// The whole call failed because of some instance; find out which.
				for _, one := range ids {
					results[one] = b.send(ctx, []string{one})[one]
				}
				break
			}
		}
	}
	for id, chans := range waiters {
		for _, ch := range chans {
			ch <- results[id]
		}
	}
}

// send makes one TerminateInstances call and returns each instance's answer.
func (b *terminateBatcher) send(ctx context.Context, ids []string) map[string]terminateResult {
	out := make(map[string]terminateResult, len(ids))
	resp, err := b.api.TerminateInstances(ctx, &awsec2.TerminateInstancesInput{InstanceIds: ids})
	if err != nil {
		cerr := awserrors.Classify("TerminateInstances", err)
		for _, id := range ids {
			out[id] = terminateResult{err: cerr}
		}
		return out
	}
	for _, change := range resp.TerminatingInstances {
		if change.InstanceId != nil && change.CurrentState != nil {
			out[*change.InstanceId] = terminateResult{state: string(change.CurrentState.Name)}
		}
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			out[id] = terminateResult{err: &awserrors.Error{Kind: awserrors.KindUnknown, Operation: "TerminateInstances", Code: "UnexpectedResponse",
				Message: "TerminateInstances did not report instance " + id}}
		}
	}
	return out
}

// isPerInstance tells the errors that one instance of a batch can cause (a missing or
// malformed ID, termination protection, a state that forbids it, IAM denying that
// instance) from those that concern the whole call (throttling, credentials that do
// not work). IAM's UnauthorizedOperation may be about one resource: the policy allows
// terminating only instances with this cluster's tag, and IAM refuses the whole call
// for one instance whose tag was removed, so it is split like the others;
// AuthFailure (the credentials themselves) is not.
func isPerInstance(err error) bool {
	switch awserrors.KindOf(err) {
	case awserrors.KindNotFound, awserrors.KindIncorrectState, awserrors.KindTerminal, awserrors.KindInvalidInput:
		return true
	case awserrors.KindAuth:
		return awserrors.CodeOf(err) == "UnauthorizedOperation"
	}
	return false
}
