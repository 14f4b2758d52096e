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

package memory

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Launches remembers, per object, the instance this process launched and has not
// recorded in status yet. Writing the ID at once would cost a status write that the
// next pass makes anyway (with the instance's state); the pass in between finds the
// instance here instead of asking EC2 by client token. Losing it (a restart) costs
// nothing but that lookup: status holds the token and the launch time, which is what
// finds the instance after a crash.
type Launches struct {
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

func (m *Launches) Put(uid types.UID, token, instanceID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil {
		m.entries = map[types.UID]launchEntry{}
	}
	m.entries[uid] = launchEntry{instanceID: instanceID, token: token}
}

// PutNotSent records that RunInstances with this token was not sent.
func (m *Launches) PutNotSent(uid types.UID, token string) { m.Put(uid, token, "") }

// Get returns the instance launched for the object under this token.
func (m *Launches) Get(uid types.UID, token string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[uid]
	if !ok || e.token != token || e.instanceID == "" {
		return "", false
	}
	return e.instanceID, true
}

// NotSent reports whether the last launch with this token was not sent.
func (m *Launches) NotSent(uid types.UID, token string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[uid]
	return ok && e.token == token && e.instanceID == ""
}

func (m *Launches) Forget(uid types.UID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.entries, uid)
}
