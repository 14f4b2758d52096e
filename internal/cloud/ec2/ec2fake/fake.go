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

// Package ec2fake is an in-memory ec2.Client for millisecond table tests of the
// controller's rules. It keeps instances (with states, tags and attributes), volumes,
// Elastic IPs, subnets, security groups, images and instance types in maps, answers
// like EC2 where the controller's rules depend on the answer (client-token
// idempotency, termination protection, calls refused in the wrong state, releases of
// what is already gone), and returns errors built by awserrors.NewError, so that awserrors.IsNotFound,
// awserrors.TokenOfTerminatedInstance, awserrors.TerminationProtected, awserrors.AddressNotFound and the
// other predicates see them exactly as they see the real client's.
//
// Nothing happens by itself: there are no goroutines, no timers and no HTTP. An instance
// stays pending, stopping or shutting-down until the test calls SetState or Advance,
// and IDs, addresses and launch times follow counters, so that a test sees the same
// values on every run. Every call is logged (Calls, Count) and a test can make the next
// call of an operation fail (FailNext).
package ec2fake

import (
	"fmt"
	"sync"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// Call is one call made to the fake: Op is the ec2.Client method's name (RunInstance,
// GetInstance, CreateTags, ExpectLookups, ...) and ID the first resource it names (an
// instance, volume, allocation or association ID, a token, a namespace), if any.
type Call struct {
	Op string
	ID string
}

// Fake implements ec2.Client in memory. Its zero value is not usable; call New. It is
// safe for concurrent use, so that a reconciler running several workers can share one.
type Fake struct {
	mu sync.Mutex

	instances map[string]*instance
	// order keeps instances in launch order, so that listings are deterministic.
	order     []string
	tokens    map[string]string
	volumes   map[string]*volume
	volOrder  []string
	volTokens map[string]string
	addresses map[string]*ec2.Address
	addrOrder []string
	subnets   []ec2.Subnet
	groups    []securityGroup
	images    []image
	snapshots map[string]ec2.Snapshot
	types     map[string]ec2.InstanceTypeInfo

	calls   []Call
	failing map[string][]error
	next    int
	delay   time.Duration
}

var _ ec2.Client = (*Fake)(nil)

// New returns a fake seeded like the emulator's default account: one VPC with
// DefaultSubnetID and DefaultSecurityGroupID, the image DefaultImageID and the
// instance types t3.micro, t3.small, t3.large and m5.large.
func New() *Fake {
	f := &Fake{
		instances: map[string]*instance{},
		tokens:    map[string]string{},
		volumes:   map[string]*volume{},
		volTokens: map[string]string{},
		addresses: map[string]*ec2.Address{},
		types:     map[string]ec2.InstanceTypeInfo{},
		failing:   map[string][]error{},
	}
	f.seedDefaults()
	return f
}

// FailNext makes the next call of op (an ec2.Client method's name) return err and
// change nothing. Several errors for one op are returned by its next calls in order.
func (f *Fake) FailNext(op string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing[op] = append(f.failing[op], err)
}

// Calls returns every call made so far, in order.
func (f *Fake) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Count returns how many calls of op were made, failed ones included.
func (f *Fake) Count(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c.Op == op {
			n++
		}
	}
	return n
}

// ResetCalls forgets the calls made so far, so that a test can seed the fake through
// its methods and then assert only on what the code under test calls.
func (f *Fake) ResetCalls() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = nil
}

// SetLaunchDelay sets what LaunchTurn and LaunchBacklog report, to test a caller's
// handling of a spent RunInstances budget.
func (f *Fake) SetLaunchDelay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.delay = d
}

// begin logs a call and returns the error FailNext queued for it, if any. The caller
// holds f.mu and returns that error without changing anything.
func (f *Fake) begin(op, id string) error {
	f.calls = append(f.calls, Call{Op: op, ID: id})
	if q := f.failing[op]; len(q) > 0 {
		f.failing[op] = q[1:]
		return q[0]
	}
	return nil
}

// newID returns a deterministic ID of EC2's form for prefix (i, vol, eipalloc, ...).
func (f *Fake) newID(prefix string) string {
	f.next++
	return fmt.Sprintf("%s-%017x", prefix, f.next)
}

// LaunchTurn reports the delay set by SetLaunchDelay (zero by default).
func (f *Fake) LaunchTurn(clientToken, _ string) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	_ = f.begin("LaunchTurn", clientToken)
	return f.delay
}

// LaunchBacklog reports the delay set by SetLaunchDelay (zero by default).
func (f *Fake) LaunchBacklog() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	_ = f.begin("LaunchBacklog", "")
	return f.delay
}

// ChangedElsewhere is logged and does nothing else: the fake remembers nothing stale.
func (f *Fake) ChangedElsewhere(ids ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_ = f.begin("ChangedElsewhere", first(ids))
}

// ExpectLookups is logged and does nothing else: the fake batches nothing.
func (f *Fake) ExpectLookups(ids []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_ = f.begin("ExpectLookups", first(ids))
}

func first(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

// errorf returns the classified error EC2 answers operation with code.
func errorf(operation, code, format string, args ...any) error {
	return awserrors.NewError(operation, code, fmt.Sprintf(format, args...))
}
