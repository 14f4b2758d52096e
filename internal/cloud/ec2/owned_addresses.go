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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// addressLister lists the Elastic IPs tagged for a namespace, for the one question
// AllocateAddress leaves open: it takes no client token, so before allocating an
// address for an object the operator must know whether an earlier pass allocated one
// whose answer was lost. One DescribeAddresses per namespace answers every object
// created there within ttl, and the addresses this client allocates meanwhile join
// the answer, so a bulk create costs one call, not one per object.
type addressLister struct {
	describe func(ctx context.Context, filters []types.Filter) ([]Address, error)
	ttl      time.Duration

	mu      sync.Mutex
	entries map[string]*addressListing
}

// addressListing is one namespace's listing, in flight until done is closed.
type addressListing struct {
	done      chan struct{}
	fetchedAt time.Time
	addresses []Address
	err       error
	// allocated are the addresses this client allocated since the listing began.
	allocated []Address
}

func newAddressLister(describe func(ctx context.Context, filters []types.Filter) ([]Address, error), ttl time.Duration) *addressLister {
	return &addressLister{describe: describe, ttl: ttl, entries: map[string]*addressListing{}}
}

// list returns the Elastic IPs tagged for namespace.
func (l *addressLister) list(ctx context.Context, namespace string) ([]Address, error) {
	l.mu.Lock()
	e, ok := l.entries[namespace]
	if !ok || (isClosed(e.done) && (e.err != nil || time.Since(e.fetchedAt) >= l.ttl)) {
		e = &addressListing{done: make(chan struct{})}
		l.entries[namespace] = e
		go l.fetch(namespace, e)
	}
	l.mu.Unlock()
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, awserrors.Classify("DescribeAddresses", ctx.Err())
	}
	if e.err != nil {
		return nil, e.err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]Address(nil), e.addresses...)
	seen := map[string]bool{}
	for _, a := range out {
		seen[a.AllocationID] = true
	}
	for _, a := range e.allocated {
		if !seen[a.AllocationID] {
			out = append(out, a)
		}
	}
	return out, nil
}

// fetch runs one listing with its own context: it serves every caller of the
// namespace, and one giving up must not fail the others.
func (l *addressLister) fetch(namespace string, e *addressListing) {
	defer close(e.done)
	ctx, cancel := context.WithTimeout(context.Background(), DefaultBatchTimeout)
	defer cancel()
	addrs, err := l.describe(ctx, []types.Filter{{Name: aws.String("tag:" + TagOwnerNamespace), Values: []string{namespace}}})
	l.mu.Lock()
	defer l.mu.Unlock()
	e.addresses, e.err, e.fetchedAt = addrs, err, time.Now()
}

// allocated adds an address this client just allocated to its namespace's listing.
func (l *addressLister) allocated(namespace string, a Address) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.entries[namespace]; ok {
		e.allocated = append(e.allocated, a)
	}
}

// forget drops a namespace's listing: an allocation may have happened that the listing
// cannot show (its answer was lost), or an address was released.
func (l *addressLister) forget(namespace string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.entries[namespace]; ok && isClosed(e.done) {
		delete(l.entries, namespace)
	}
}

// OwnedAddresses lists the Elastic IPs tagged for a namespace; see
// Client.OwnedAddresses.
func (c *AWSClient) OwnedAddresses(ctx context.Context, namespace string) ([]Address, error) {
	return c.ownedAddresses.list(ctx, namespace)
}

// forgetAddress drops a released address from every listing, so that the objects
// sharing a listing from before the release do not release it again.
func (l *addressLister) forgetAddress(allocationID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.entries {
		if !isClosed(e.done) {
			continue
		}
		e.addresses = dropAddress(e.addresses, allocationID)
		e.allocated = dropAddress(e.allocated, allocationID)
	}
}

func dropAddress(in []Address, allocationID string) []Address {
	out := in[:0:0]
	for _, a := range in {
		if a.AllocationID != allocationID {
			out = append(out, a)
		}
	}
	return out
}
