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
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Observer receives what the reconciler counts; internal/metrics implements it with
// Prometheus collectors. It keeps the reconciler free of metric plumbing.
type Observer interface {
	// ReconcileError counts a failed reconcile by its Ready reason.
	ReconcileError(reason string)
	// DriftCorrected counts one correction of a field that differed from the spec.
	DriftCorrected(field string)
	// FirstRunning records the time from the object's creation to its instance first
	// reaching running.
	FirstRunning(sinceCreation time.Duration)
	// InstanceState records the last observed EC2 state of an object's instance; an
	// empty state forgets the object.
	InstanceState(uid types.UID, state string)
	// InstanceReady records whether an object is Ready, for alerts on objects that stay
	// not Ready for long.
	InstanceReady(namespace, name string, ready bool)
	// ForgetInstance drops a deleted object's series.
	ForgetInstance(namespace, name string)
	// ReplacementsPaused records how many objects of an account and region wait for a
	// person before their vanished instances are replaced.
	ReplacementsPaused(account, region string, objects int)
}

// nopObserver is used when no Observer is configured.
type nopObserver struct{}

func (nopObserver) ReconcileError(string)                  {}
func (nopObserver) DriftCorrected(string)                  {}
func (nopObserver) FirstRunning(time.Duration)             {}
func (nopObserver) InstanceState(types.UID, string)        {}
func (nopObserver) InstanceReady(string, string, bool)     {}
func (nopObserver) ForgetInstance(string, string)          {}
func (nopObserver) ReplacementsPaused(string, string, int) {}
