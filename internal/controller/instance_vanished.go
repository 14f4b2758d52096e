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

package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/awsaccount"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// One instance that DescribeInstances no longer knows was terminated and has aged out
// of EC2's answers, and is replaced. Many at once are something else: credentials or
// an endpoint that now reach another account or region, a restored backup of another
// cluster's objects, an account being emptied on purpose. Replacing them would launch
// a second fleet next to one that may still run. So a vanished instance is replaced
// only after a short hold, in which the other objects of the same account and region
// are looked at at once; when VanishThreshold or more of them vanished within
// vanishWindow, replacements there pause until a person confirms each object with the
// retry annotation (kubectl annotate ec2 --all compute.ec2-operator.dev/retry=...).
const (
	// VanishThreshold is how many vanished instances in one account and region pause
	// replacements there. Fleets smaller than this are never paused.
	VanishThreshold = 5
	// vanishWindow is how long a vanished instance counts toward the threshold.
	vanishWindow = 15 * time.Minute
	// DefaultVanishHold is how long a vanished instance waits before it is replaced,
	// while the others of its account and region are looked at.
	DefaultVanishHold = 30 * time.Second
	// pausedRecheck is how often a paused object looks again.
	pausedRecheck = 5 * time.Minute
)

// vanishTracker remembers, per account and region, which objects' instances vanished
// and when, and which are paused. Entries go with the object (forget) and with time.
type vanishTracker struct {
	mu     sync.Mutex
	seen   map[string]map[types.UID]time.Time
	paused map[string]map[types.UID]bool
}

// note records that uid's instance is missing in key (once) and returns when it was
// first seen missing, whether that is now, and how many are missing in key within
// the window.
func (v *vanishTracker) note(key string, uid types.UID, now time.Time) (first time.Time, isNew bool, count int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.initLocked()
	m := v.seen[key]
	if m == nil {
		m = map[types.UID]time.Time{}
		v.seen[key] = m
	}
	for u, at := range m {
		if now.Sub(at) > vanishWindow {
			delete(m, u)
		}
	}
	first, ok := m[uid]
	if !ok {
		first, isNew = now, true
		m[uid] = now
	}
	return first, isNew, len(m)
}

// initLocked makes the maps; the caller holds v.mu.
func (v *vanishTracker) initLocked() {
	if v.seen == nil {
		v.seen, v.paused = map[string]map[types.UID]time.Time{}, map[string]map[types.UID]bool{}
	}
}

// setPaused records whether uid is paused in key and returns how many are.
func (v *vanishTracker) setPaused(key string, uid types.UID, paused bool) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.initLocked()
	m := v.paused[key]
	if m == nil {
		m = map[types.UID]bool{}
		v.paused[key] = m
	}
	if paused {
		m[uid] = true
	} else {
		delete(m, uid)
	}
	return len(m)
}

// forget drops an object from every key, and returns the keys whose paused count
// changed with their new counts.
func (v *vanishTracker) forget(uid types.UID) map[string]int {
	v.mu.Lock()
	defer v.mu.Unlock()
	changed := map[string]int{}
	for key, m := range v.seen {
		delete(m, uid)
		if len(m) == 0 {
			delete(v.seen, key)
		}
	}
	for key, m := range v.paused {
		if m[uid] {
			delete(m, uid)
			changed[key] = len(m)
		}
		if len(m) == 0 {
			delete(v.paused, key)
		}
	}
	return changed
}

// vanishKey names the account and region an object's instance lives in.
func vanishKey(s *pass.Scope) (key, account, region string) {
	account = s.Obj.Status.AccountID
	if account == "" {
		account = s.Obj.Status.Account
	}
	return account + "/" + s.Region, account, s.Region
}

// holdVanished decides whether a vanished instance may be replaced now: the step ends
// the pass while it is held or replacements are paused.
func (r *EC2InstanceReconciler) holdVanished(ctx context.Context, s *pass.Scope) pass.Step {
	st := &s.Obj.Status
	key, account, region := vanishKey(s)
	now := r.now()
	first, isNew, count := r.vanished.note(key, s.Obj.UID, now)
	if isNew {
		r.lookAtSiblings(ctx, s)
	}
	if wait := r.VanishHold - now.Sub(first); wait > 0 {
		s.NotReady(computev1alpha1.ReasonPending, fmt.Sprintf("instance %s is not found in EC2; checking the other instances of account %s in %s before replacing it", st.InstanceID, account, region))
		return pass.WaitSpread(wait)
	}
	retry := s.Obj.Annotations[computev1alpha1.RetryAnnotation]
	confirmed := retry != "" && retry != st.ObservedRetry
	if count < VanishThreshold || confirmed {
		if confirmed {
			st.ObservedRetry = retry
		}
		r.Metrics.ReplacementsPaused(account, region, r.vanished.setPaused(key, s.Obj.UID, false))
		return pass.Proceed()
	}
	msg := fmt.Sprintf("instance %s is not found in EC2, and so are %d other instances of account %s in %s within %s: "+
		"replacements there are paused, since credentials, an endpoint or a region that changed would otherwise launch a second fleet. "+
		"Check the account; to replace this one, set the annotation %s to a new value (kubectl annotate ec2 %s %s=$(date +%%s) --overwrite)",
		st.InstanceID, count-1, account, region, vanishWindow, computev1alpha1.RetryAnnotation, s.Obj.Name, computev1alpha1.RetryAnnotation)
	if c := s.Condition(computev1alpha1.ConditionReady); c == nil || c.Reason != computev1alpha1.ReasonReplacementPaused {
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonReplacementPaused, msg)
		r.Metrics.ReconcileError(computev1alpha1.ReasonReplacementPaused)
	}
	s.NotReady(computev1alpha1.ReasonReplacementPaused, msg)
	r.Metrics.ReplacementsPaused(account, region, r.vanished.setPaused(key, s.Obj.UID, true))
	return pass.WaitSpread(pausedRecheck)
}

// lookAtSiblings queues every other object with an instance recorded in the same
// account and region, so that their instances are looked at now (one batched
// DescribeInstances) rather than at their next resync.
func (r *EC2InstanceReconciler) lookAtSiblings(ctx context.Context, s *pass.Scope) {
	list := &computev1alpha1.EC2InstanceList{}
	if err := r.List(ctx, list); err != nil {
		return
	}
	for i := range list.Items {
		o := &list.Items[i]
		if o.UID == s.Obj.UID || o.Status.InstanceID == "" || r.regionOf(o, nil) != s.Region ||
			o.Status.AccountID != s.Obj.Status.AccountID || awsaccount.NameOf(o) != awsaccount.NameOf(s.Obj) {
			continue
		}
		s.EC2.ChangedElsewhere(o.Status.InstanceID)
		select {
		case r.events.requests <- event.GenericEvent{Object: o}:
		default:
			// The queue is full of events already: those objects are coming anyway.
			return
		}
	}
}
