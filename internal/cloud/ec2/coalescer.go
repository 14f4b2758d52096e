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
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// Codes DescribeInstances uses to reject a whole InstanceIds list because of one bad
// member.
const (
	codeInstanceNotFound  = "InvalidInstanceID.NotFound"
	codeInstanceMalformed = "InvalidInstanceID.Malformed"
)

// maxFilterValues bounds the instance-id filter values per request. EC2 documents no
// single limit for DescribeInstances filters, and several describe APIs cap filter
// values at 200, so the fallback query stays under that.
const maxFilterValues = 200

// lookupResult is the answer to one GetInstance caller.
type lookupResult struct {
	instance *Instance
	err      error
}

// pendingBatch collects the IDs asked for during one batch window.
type pendingBatch struct {
	waiters map[string][]chan lookupResult
	order   []string
}

// describeBatcher coalesces single-instance lookups into batched DescribeInstances
// calls, as Karpenter's DescribeInstances batcher does: the controller asks about many
// instances at once after a resync, and one request for 500 IDs costs EC2's API
// budget the same as one for a single ID.
type describeBatcher struct {
	api     awsec2.DescribeInstancesAPIClient
	window  time.Duration
	maxSize int
	timeout time.Duration
	// pageSize is the MaxResults of the filtered fallback query.
	pageSize int32

	// ahead, when not nil, answers repeated lookups from recent batches and widens
	// outgoing batches to the rest of the known fleet.
	ahead *readAhead

	mu         sync.Mutex
	batch      *pendingBatch
	generation uint64
	// running maps the IDs of batches in flight to their batch: a lookup for such an
	// ID waits for that answer instead of sending another request.
	running map[string]*pendingBatch
}

func newDescribeBatcher(api awsec2.DescribeInstancesAPIClient, window time.Duration, maxSize int, timeout time.Duration, pageSize int32) *describeBatcher {
	return &describeBatcher{api: api, window: window, maxSize: maxSize, timeout: timeout, pageSize: pageSize,
		running: map[string]*pendingBatch{}}
}

// get returns the instance with the given ID, waiting at most BatchWindow for other
// lookups to share the request. A caller whose context ends returns at once; the
// batch still runs for the others.
func (b *describeBatcher) get(ctx context.Context, id string) (*Instance, error) {
	if err := ctx.Err(); err != nil {
		return nil, awserrors.Classify("DescribeInstances", err)
	}
	if inst, ok := b.ahead.lookup(id); ok {
		return inst, nil
	}
	ch := make(chan lookupResult, 1)

	b.mu.Lock()
	if inFlight, ok := b.running[id]; ok {
		inFlight.waiters[id] = append(inFlight.waiters[id], ch)
		b.mu.Unlock()
		return b.wait(ctx, ch)
	}
	if b.batch == nil {
		b.batch = &pendingBatch{waiters: map[string][]chan lookupResult{}}
		b.generation++
		gen := b.generation
		time.AfterFunc(b.window, func() { b.flush(gen) })
	}
	batch := b.batch
	if _, dup := batch.waiters[id]; !dup {
		batch.order = append(batch.order, id)
	}
	batch.waiters[id] = append(batch.waiters[id], ch)
	full := len(batch.order) >= b.maxSize
	if full {
		// Send now; the window timer of this generation then finds nothing to do.
		b.batch = nil
	}
	b.mu.Unlock()

	if full {
		go b.run(batch)
	}
	return b.wait(ctx, ch)
}

// changing stops lookups of the given instances from joining batches already in
// flight: those were sent before the change and may answer with the old state.
func (b *describeBatcher) changing(ids []string) {
	b.mu.Lock()
	for _, id := range ids {
		delete(b.running, id)
	}
	b.mu.Unlock()
	b.ahead.invalidate(ids...)
}

// wait returns the answer on ch, or the caller's context error.
func (b *describeBatcher) wait(ctx context.Context, ch chan lookupResult) (*Instance, error) {
	select {
	case r := <-ch:
		return r.instance, r.err
	case <-ctx.Done():
		return nil, awserrors.Classify("DescribeInstances", ctx.Err())
	}
}

// flush sends the batch of the given generation when its window closes, unless it
// was already sent because it filled up.
func (b *describeBatcher) flush(gen uint64) {
	b.mu.Lock()
	batch := b.batch
	if batch == nil || b.generation != gen {
		b.mu.Unlock()
		return
	}
	b.batch = nil
	b.mu.Unlock()
	b.run(batch)
}

// run describes one batch and answers every waiter. It uses its own context because
// it serves many callers; one caller giving up must not fail the others. While it
// runs, lookups of any ID it asks about (read-ahead extras included) join it.
func (b *describeBatcher) run(batch *pendingBatch) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()

	b.mu.Lock()
	extras := b.ahead.extra(batch.order, b.maxSize-len(batch.order), b.running)
	ids := append(batch.order, extras...)
	for _, id := range ids {
		b.running[id] = batch
	}
	b.mu.Unlock()

	sentAt := b.ahead.sentAt()
	found, err := b.describe(ctx, ids)
	if err == nil {
		b.ahead.store(ids, found, sentAt)
	} else {
		// An extra may be what failed the call (an ID EC2 no longer knows, when the
		// filtered fallback fails too); read-ahead relearns the live ones on their
		// next lookup.
		b.ahead.forget(extras)
	}

	b.mu.Lock()
	for _, id := range ids {
		// The entry may belong to a later batch, or be gone after a change.
		if b.running[id] == batch {
			delete(b.running, id)
		}
	}
	waiters := batch.waiters
	b.mu.Unlock()

	for id, chans := range waiters {
		var r lookupResult
		switch {
		case err != nil:
			r.err = err
		case found[id] != nil:
			r.instance = found[id]
		default:
			r.err = instanceNotFound(id)
		}
		for i, ch := range chans {
			res := r
			if res.instance != nil && i > 0 {
				// Each caller owns its copy; callers may modify what they get.
				res.instance = cloneInstance(res.instance)
			}
			ch <- res
		}
	}
}

// describe looks the IDs up. It asks by InstanceIds first: that is EC2's exact
// lookup, and it keeps working for instances in healthy zones when one Availability
// Zone is impaired, where an unscoped or filter-only query fails. EC2 rejects the
// whole list with InvalidInstanceID.NotFound (or .Malformed) when any member is
// unknown, so on those errors it asks again with the instance-id filter, which
// simply leaves unknown IDs out; the caller turns the missing ones into NotFound.
func (b *describeBatcher) describe(ctx context.Context, ids []string) (map[string]*Instance, error) {
	found := make(map[string]*Instance, len(ids))
	err := describeInto(ctx, b.api, &awsec2.DescribeInstancesInput{InstanceIds: ids}, found)
	if err == nil {
		return found, nil
	}
	if code := awserrors.CodeOf(err); code != codeInstanceNotFound && code != codeInstanceMalformed {
		return nil, err
	}
	for start := 0; start < len(ids); start += maxFilterValues {
		end := min(start+maxFilterValues, len(ids))
		in := &awsec2.DescribeInstancesInput{
			Filters:    []types.Filter{{Name: aws.String("instance-id"), Values: ids[start:end]}},
			MaxResults: aws.Int32(b.pageSize),
		}
		if err := describeInto(ctx, b.api, in, found); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// describeInto pages through DescribeInstances and stores every instance by ID.
func describeInto(ctx context.Context, api awsec2.DescribeInstancesAPIClient, in *awsec2.DescribeInstancesInput, into map[string]*Instance) error {
	p := awsec2.NewDescribeInstancesPaginator(api, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return awserrors.Classify("DescribeInstances", err)
		}
		for _, r := range page.Reservations {
			for _, i := range r.Instances {
				inst := fromSDKInstance(i)
				into[inst.ID] = &inst
			}
		}
	}
	return nil
}

// instanceNotFound is the error a caller gets for an ID EC2 does not know, worded as
// EC2 words it.
func instanceNotFound(id string) *awserrors.Error {
	msg := fmt.Sprintf("The instance ID '%s' does not exist", id)
	return &awserrors.Error{Kind: awserrors.KindNotFound, Operation: "DescribeInstances", Code: codeInstanceNotFound, Message: msg}
}

// cloneInstance deep-copies an Instance so that callers sharing a batch do not share
// maps and slices.
func cloneInstance(in *Instance) *Instance {
	out := *in
	out.SecurityGroupIDs = append([]string(nil), in.SecurityGroupIDs...)
	out.VolumeIDs = append([]string(nil), in.VolumeIDs...)
	out.Tags = make(map[string]string, len(in.Tags))
	for k, v := range in.Tags {
		out.Tags[k] = v
	}
	return &out
}
