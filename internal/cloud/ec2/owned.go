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
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// DefaultOwnedTTL is how long one listing of a namespace's instances answers every
// caller: the objects of a bulk create or delete share it.
const DefaultOwnedTTL = 5 * time.Second

// ownedLister lists the live instances that carry a namespace's ownership tag, for
// the checks that need to know every instance of the operator's there: an object
// re-created after it was deleted without its finalizer (a backup restore) finds the
// instance it had, and a deletion finds extra instances tagged for its object. One
// filtered, paginated DescribeInstances answers all callers for a namespace within
// ttl, so a thousand objects created at once cost a few calls, not one each.
type ownedLister struct {
	api      awsec2.DescribeInstancesAPIClient
	pageSize int32
	ttl      time.Duration

	mu      sync.Mutex
	entries map[string]*ownedListing
	// last holds each namespace's latest successful listing. It answers while the
	// next one is fetched, which takes seconds for thousands of instances: without
	// it, every reconcile that needed the listing stopped for that long once per ttl.
	last map[string]*ownedListing
	// recent holds the instances this client launched lately, per namespace. A listing
	// that started before a launch answers with it too.
	recent map[string][]recentLaunch
}

// recentLaunch is an instance this client launched, and when.
type recentLaunch struct {
	instance Instance
	at       time.Time
}

// recentLaunchTTL is how long a launched instance is remembered for listings that
// started before it; listings are shared for far less (DefaultOwnedTTL).
const recentLaunchTTL = 30 * time.Second

// ownedListing is one namespace's listing, in flight until done is closed.
type ownedListing struct {
	done chan struct{}
	// startedAt is when the listing was asked for; instances this client launched
	// after it are added to its answer.
	startedAt time.Time
	fetchedAt time.Time
	// byName holds the instances by the object name of their ownership tag. Every
	// caller asks about one object, and a namespace of 10,000 instances must not be
	// copied for each of them: that made a bulk delete quadratic in memory and CPU.
	byName map[string][]Instance
	// count is how many instances the listing holds, for callers that ask about all.
	count int
	err   error
}

func newOwnedLister(api awsec2.DescribeInstancesAPIClient, pageSize int32, ttl time.Duration) *ownedLister {
	return &ownedLister{api: api, pageSize: pageSize, ttl: ttl, entries: map[string]*ownedListing{},
		last: map[string]*ownedListing{}, recent: map[string][]recentLaunch{}}
}

// list returns the live instances tagged for namespace and, unless name is empty, for
// an object of that name.
func (l *ownedLister) list(ctx context.Context, namespace, name string) ([]Instance, error) {
	l.mu.Lock()
	e, ok := l.entries[namespace]
	fresh := ok && (!isClosed(e.done) || (e.err == nil && time.Since(e.fetchedAt) < l.ttl))
	if !fresh {
		e = &ownedListing{done: make(chan struct{}), startedAt: time.Now()}
		l.entries[namespace] = e
		go l.fetch(namespace, e)
	}
	// While a listing is fetched, the one before it answers: it is about ttl plus the
	// fetch's time old, as old as a listing waited for could be by the end of its
	// fetch. Launches since it started are added below, as for any listing, which
	// needs it to have started within recentLaunchTTL (after failed fetches it may not
	// have, and the caller waits).
	if prev := l.last[namespace]; prev != nil && !isClosed(e.done) && time.Since(prev.startedAt) < recentLaunchTTL {
		e = prev
	}
	l.mu.Unlock()
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, awserrors.Classify("DescribeInstances", ctx.Err())
	}
	if e.err != nil {
		return nil, e.err
	}
	var out []Instance
	listed := map[string]bool{}
	add := func(insts []Instance) {
		for i := range insts {
			out = append(out, *cloneInstance(&insts[i]))
			listed[insts[i].ID] = true
		}
	}
	if name != "" {
		add(e.byName[name])
	} else {
		out = make([]Instance, 0, e.count)
		for _, n := range slices.Sorted(maps.Keys(e.byName)) {
			add(e.byName[n])
		}
	}
	for _, r := range l.launchedSince(namespace, name, e.startedAt) {
		if !listed[r.ID] {
			out = append(out, r)
		}
	}
	return out, nil
}

// launched adds an instance this client just launched to its namespace's listings,
// so that a bulk create keeps sharing one listing instead of listing again after
// every launch.
func (l *ownedLister) launched(namespace string, inst *Instance) {
	if namespace == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recent[namespace] = append(l.recent[namespace], recentLaunch{instance: *cloneInstance(inst), at: time.Now()})
}

// launchedSince returns copies of a namespace's launches after since (for objects
// named name, unless it is empty), and drops those older than recentLaunchTTL. A
// listing that started after a launch shows what EC2 says of it (terminated since, for
// example), so only later launches are added.
func (l *ownedLister) launchedSince(namespace, name string, since time.Time) []Instance {
	l.mu.Lock()
	defer l.mu.Unlock()
	var keep []recentLaunch
	var out []Instance
	for _, r := range l.recent[namespace] {
		if time.Since(r.at) >= recentLaunchTTL {
			continue
		}
		keep = append(keep, r)
		if r.at.After(since) && (name == "" || OwnerTag(r.instance.Tags, TagOwnerName) == name) {
			out = append(out, *cloneInstance(&r.instance))
		}
	}
	if len(keep) == 0 {
		delete(l.recent, namespace)
	} else {
		l.recent[namespace] = keep
	}
	return out
}

// fetch runs one listing with its own context: it serves every caller of the
// namespace, and one giving up must not fail the others.
func (l *ownedLister) fetch(namespace string, e *ownedListing) {
	defer close(e.done)
	ctx, cancel := context.WithTimeout(context.Background(), DefaultBatchTimeout)
	defer cancel()
	found := map[string]*Instance{}
	in := &awsec2.DescribeInstancesInput{
		Filters: append(ownerTagFilters(map[string]string{TagOwnerNamespace: namespace}),
			types.Filter{Name: aws.String("instance-state-name"), Values: []string{StatePending, StateRunning, StateStopping, StateStopped}}),
		MaxResults: aws.Int32(l.pageSize),
	}
	if err := describeInto(ctx, l.api, in, found); err != nil {
		e.err = err
		return
	}
	defer l.succeeded(namespace, e)
	e.fetchedAt = time.Now()
	e.byName = map[string][]Instance{}
	for _, id := range slices.Sorted(maps.Keys(instanceIDs(found))) {
		// The filters find a superset (see ownerTagFilters): keep the namespace's own.
		if OwnerTag(found[id].Tags, TagOwnerNamespace) == namespace {
			name := OwnerTag(found[id].Tags, TagOwnerName)
			e.byName[name] = append(e.byName[name], *found[id])
			e.count++
		}
	}
}

// succeeded makes a finished listing the one that answers while the next is fetched,
// unless the namespace's listings were dropped (forget) while it ran.
func (l *ownedLister) succeeded(namespace string, e *ownedListing) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.entries[namespace] == e {
		l.last[namespace] = e
	}
}

func instanceIDs(m map[string]*Instance) map[string]string {
	out := make(map[string]string, len(m))
	for id := range m {
		out[id] = id
	}
	return out
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// forget drops a namespace's listing: this client just tagged an instance for it
// (took it over), which a listing from before shows with the old tags.
func (l *ownedLister) forget(namespace string) {
	if namespace == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.last, namespace)
	if e, ok := l.entries[namespace]; ok && isClosed(e.done) {
		delete(l.entries, namespace)
	}
}

// OwnedInstances lists the live instances tagged for a namespace and object name; see
// Client.OwnedInstances.
func (c *AWSClient) OwnedInstances(ctx context.Context, namespace, name string) ([]Instance, error) {
	return c.owned.list(ctx, namespace, name)
}
