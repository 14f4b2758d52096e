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

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

const (
	// leaseName is the manager's LeaderElectionID.
	leaseName = "ec2-operator.ec2-operator.dev"
	// leaseDuration is how long a follower waits for a dead leader's lease to expire.
	leaseDuration = 4 * time.Second
	// takeoverSlack covers the follower's retry period, API latency and a loaded
	// machine on top of leaseDuration.
	takeoverSlack = 16 * time.Second
	// acquiredLog is what client-go's leader election logs when it takes the lease
	// (through the manager's logger, so with a capital S).
	acquiredLog = "Successfully acquired lease"
	// controllerStartedLog is what controller-runtime logs when a controller starts
	// reconciling, which happens only in the leader.
	controllerStartedLog = "Starting workers"
)

// TestOnlyTheLeaderActsAndTheOtherReplicaTakesOverWhenItDies runs two replicas on one
// lease. While the leader lives the other one does nothing; after the leader is
// killed (no lease release) the other takes over within the lease duration and
// manages both the existing object and a new one, launching nothing twice.
func TestOnlyTheLeaderActsAndTheOtherReplicaTakesOverWhenItDies(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t, "leader")
	leaderFlags := []string{
		"--leader-elect",
		"--leader-election-namespace=" + ns,
		"--leader-elect-lease-duration=" + leaseDuration.String(),
		"--leader-elect-renew-deadline=3s",
		"--leader-elect-retry-period=500ms",
	}
	replicas := []*managerProcess{
		startManager(t, "replica-a", ns, leaderFlags...),
		startManager(t, "replica-b", ns, leaderFlags...),
	}

	var leader, follower *managerProcess
	var holder string
	eventually(t, waitTimeout, func() string {
		var acquired []*managerProcess
		for _, m := range replicas {
			if strings.Contains(m.Log(), acquiredLog) {
				acquired = append(acquired, m)
			}
		}
		if len(acquired) != 1 {
			return fmt.Sprintf("%d replicas logged %q, want exactly 1", len(acquired), acquiredLog)
		}
		leader = acquired[0]
		holder = leaseHolder(t, ns)
		if holder == "" {
			return "the Lease has no holder"
		}
		return ""
	})
	follower = replicas[0]
	if follower == leader {
		follower = replicas[1]
	}
	t.Logf("%s leads as %s", leader.name, holder)

	createInstance(t, ns, "ha-1")
	first := waitReady(t, ns, "ha-1").Status.InstanceID
	if live := liveInstances(ns); len(live) != 1 || live[0].ID != first {
		t.Fatalf("want only %s live, got %s", first, describeInstances(live))
	}
	if log := follower.Log(); strings.Contains(log, acquiredLog) || strings.Contains(log, controllerStartedLog) {
		t.Fatalf("the follower %s acquired the lease or started its controller while %s leads", follower.name, leader.name)
	}

	leader.Kill()
	killed := time.Now()
	t.Logf("killed the leader %s", leader.name)
	// Created while nobody leads: the new leader must pick it up from the API.
	createInstance(t, ns, "ha-2")

	eventually(t, leaseDuration+takeoverSlack, func() string {
		if h := leaseHolder(t, ns); h == holder || h == "" {
			return "the Lease is still held by " + h
		}
		if !strings.Contains(follower.Log(), acquiredLog) {
			return follower.name + " has not logged that it acquired the lease"
		}
		return ""
	})
	t.Logf("%s took over %s after the kill (lease duration %s)", follower.name, time.Since(killed).Round(time.Millisecond), leaseDuration)

	second := waitReady(t, ns, "ha-2").Status.InstanceID
	if got := waitReady(t, ns, "ha-1").Status.InstanceID; got != first {
		t.Errorf("ha-1 now reports instance %s, want %s", got, first)
	}
	live := liveInstances(ns)
	ids := []string{}
	for _, i := range live {
		ids = append(ids, i.ID)
	}
	slices.Sort(ids)
	want := []string{first, second}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("live instances %s, want exactly %v", describeInstances(live), want)
	}
	// Nothing was launched and thrown away either: every instance ever owned by this
	// namespace is one of the two.
	var launched int
	for _, i := range env.Sim.Instances() {
		if i.Tags[ec2.TagOwnerNamespace] == ns {
			launched++
		}
	}
	if launched != 2 {
		t.Errorf("the emulator launched %d instances for the namespace, want 2", launched)
	}
	if follower.HasExited() {
		t.Errorf("the new leader %s exited: %v", follower.name, follower.Err())
	}
}

// leaseHolder returns the holder of the manager's Lease in ns, or "" when there is no
// Lease or no holder yet.
func leaseHolder(t *testing.T, ns string) string {
	t.Helper()
	lease := &coordinationv1.Lease{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: leaseName}, lease); err != nil {
		if client.IgnoreNotFound(err) != nil {
			t.Fatal(err)
		}
		return ""
	}
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}
