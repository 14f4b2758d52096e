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

package launch

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/awsaccount"
	"github.com/ec2-operator/ec2-operator/internal/controller/memory"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// One instance that DescribeInstances no longer knows was terminated and has aged out
// of EC2's answers, and is replaced. Many at once are something else: credentials or
// an endpoint that now reach another account or region, a restored backup of another
// cluster's objects, an account being emptied on purpose. Replacing them would launch
// a second fleet next to one that may still run. So a vanished instance is replaced
// only after a short hold, in which the other objects of the same account and region
// are looked at at once; when VanishThreshold or more of them vanished within
// memory.VanishWindow, replacements there pause until a person confirms each object with the
// retry annotation (kubectl annotate ec2 --all compute.ec2-operator.dev/retry=...).
const (
	// VanishThreshold is how many vanished instances in one account and region pause
	// replacements there. Fleets smaller than this are never paused.
	VanishThreshold = 5
	// DefaultVanishHold is how long a vanished instance waits before it is replaced,
	// while the others of its account and region are looked at.
	DefaultVanishHold = 30 * time.Second
	// pausedRecheck is how often a paused object looks again.
	pausedRecheck = 5 * time.Minute
)

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
func (l *Phase) holdVanished(ctx context.Context, s *pass.Scope) pass.Step {
	st := &s.Obj.Status
	key, account, region := vanishKey(s)
	now := l.now()
	first, isNew, count := l.Vanished.Note(key, s.Obj.UID, now)
	if isNew {
		l.lookAtSiblings(ctx, s)
	}
	if wait := l.VanishHold - now.Sub(first); wait > 0 {
		s.NotReady(computev1alpha1.ReasonPending, fmt.Sprintf("instance %s is not found in EC2; checking the other instances of account %s in %s before replacing it", st.InstanceID, account, region))
		return pass.WaitSpread(wait)
	}
	retry := s.Obj.Annotations[computev1alpha1.RetryAnnotation]
	confirmed := retry != "" && retry != st.ObservedRetry
	if count < VanishThreshold || confirmed {
		if confirmed {
			st.ObservedRetry = retry
		}
		l.Metrics.ReplacementsPaused(account, region, l.Vanished.SetPaused(key, s.Obj.UID, false))
		return pass.Proceed()
	}
	msg := fmt.Sprintf("instance %s is not found in EC2, and so are %d other instances of account %s in %s within %s: "+
		"replacements there are paused, since credentials, an endpoint or a region that changed would otherwise launch a second fleet. "+
		"Check the account; to replace this one, set the annotation %s to a new value (kubectl annotate ec2 %s %s=$(date +%%s) --overwrite)",
		st.InstanceID, count-1, account, region, memory.VanishWindow, computev1alpha1.RetryAnnotation, s.Obj.Name, computev1alpha1.RetryAnnotation)
	if c := s.Condition(computev1alpha1.ConditionReady); c == nil || c.Reason != computev1alpha1.ReasonReplacementPaused {
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonReplacementPaused, msg)
		l.Metrics.ReconcileError(computev1alpha1.ReasonReplacementPaused)
	}
	s.NotReady(computev1alpha1.ReasonReplacementPaused, msg)
	l.Metrics.ReplacementsPaused(account, region, l.Vanished.SetPaused(key, s.Obj.UID, true))
	return pass.WaitSpread(pausedRecheck)
}

// lookAtSiblings queues every other object with an instance recorded in the same
// account and region, so that their instances are looked at now (one batched
// DescribeInstances) rather than at their next resync.
func (l *Phase) lookAtSiblings(ctx context.Context, s *pass.Scope) {
	list := &computev1alpha1.EC2InstanceList{}
	if err := l.Client.List(ctx, list); err != nil {
		return
	}
	for i := range list.Items {
		o := &list.Items[i]
		if o.UID == s.Obj.UID || o.Status.InstanceID == "" || l.Kernel.RegionOf(o, nil) != s.Region ||
			o.Status.AccountID != s.Obj.Status.AccountID || awsaccount.NameOf(o) != awsaccount.NameOf(s.Obj) {
			continue
		}
		l.EC2Of(s).ChangedElsewhere(o.Status.InstanceID)
		select {
		case l.Requeue <- event.GenericEvent{Object: o}:
		default:
			// The queue is full of events already: those objects are coming anyway.
			return
		}
	}
}
