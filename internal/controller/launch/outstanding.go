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
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// NothingLaunched reports whether no instance can exist for the object: none recorded
// or remembered, none adopted, none replaced, and no RunInstances outstanding (never
// sent, or refused outright by EC2, which clears the launch time).
func (l *Phase) NothingLaunched(s *pass.Scope) bool {
	return s.Obj.Spec.InstanceID == "" && l.NoInstanceRecorded(s)
}

// NoInstanceRecorded reports whether no instance is recorded for the object yet: none
// launched (or sent to be), and none adopted. Until then an adopting object may still
// choose its account.
func (l *Phase) NoInstanceRecorded(s *pass.Scope) bool {
	st := &s.Obj.Status
	if st.InstanceID != "" || st.Recreations > 0 {
		return false
	}
	if _, ok := l.Launches.Get(s.Obj.UID, st.ClientToken); ok {
		return false
	}
	return st.LastLaunchAttempt == nil || l.Launches.NotSent(s.Obj.UID, st.ClientToken)
}
