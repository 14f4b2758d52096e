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
	"sync"

	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"k8s.io/apimachinery/pkg/types"
)

// launchMemory remembers, per object, the instance this process launched and has not
// recorded in status yet. Writing the ID at once would cost a status write that the
// next pass makes anyway (with the instance's state); the pass in between finds the
// instance here instead of asking EC2 by client token. Losing it (a restart) costs
// nothing but that lookup: status holds the token and the launch time, which is what
// finds the instance after a crash.
type launchMemory struct {
	mu      sync.Mutex
	entries map[types.UID]launchEntry
}

// launchEntry is one unrecorded launch: the instance and the client token it was
// launched with, so that a later token (a replacement) never finds an older instance.
// An entry without an instance records a launch the client did not send (it would
// have waited too long for its budget), which needs no lookup before it is retried.
type launchEntry struct {
	instanceID, token string
}

func (m *launchMemory) put(uid types.UID, token, instanceID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil {
		m.entries = map[types.UID]launchEntry{}
	}
	m.entries[uid] = launchEntry{instanceID: instanceID, token: token}
}

// putNotSent records that RunInstances with this token was not sent.
func (m *launchMemory) putNotSent(uid types.UID, token string) { m.put(uid, token, "") }

// get returns the instance launched for the object under this token.
func (m *launchMemory) get(uid types.UID, token string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[uid]
	if !ok || e.token != token || e.instanceID == "" {
		return "", false
	}
	return e.instanceID, true
}

// notSent reports whether the last launch with this token was not sent.
func (m *launchMemory) notSent(uid types.UID, token string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[uid]
	return ok && e.token == token && e.instanceID == ""
}

func (m *launchMemory) forget(uid types.UID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.entries, uid)
}

// nothingLaunched reports whether no instance can exist for the object: none recorded
// or remembered, none adopted, none replaced, and no RunInstances outstanding (never
// sent, or refused outright by EC2, which clears the launch time).
func (r *EC2InstanceReconciler) nothingLaunched(s *pass.Scope) bool {
	return s.Obj.Spec.InstanceID == "" && r.noInstanceRecorded(s)
}

// noInstanceRecorded reports whether no instance is recorded for the object yet: none
// launched (or sent to be), and none adopted. Until then an adopting object may still
// choose its account.
func (r *EC2InstanceReconciler) noInstanceRecorded(s *pass.Scope) bool {
	st := &s.Obj.Status
	if st.InstanceID != "" || st.Recreations > 0 {
		return false
	}
	if _, ok := r.launched.get(s.Obj.UID, st.ClientToken); ok {
		return false
	}
	return st.LastLaunchAttempt == nil || r.launched.notSent(s.Obj.UID, st.ClientToken)
}
