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

package pass

import "time"

// ActsWithOwnCredentials reports whether the pass uses the operator's own
// credentials: no AWSAccount, or one without a role (the default account).
func ActsWithOwnCredentials(s *Scope) bool {
	return s.Account == nil || s.Account.Spec.RoleARN == ""
}

// ErrAccountRefused stops a pass whose AWSAccount may not, or cannot yet, be used. The
// condition is already set; the watches on AWSAccounts and Namespaces bring the
// object back when that changes.
type ErrAccountRefused struct{}

func (ErrAccountRefused) Error() string { return "the AWS account cannot be used" }

// AccountRecheck is how often an object whose account is refused looks again without
// a watch event.
const AccountRecheck = 5 * time.Minute

// AccountRefused is how a refused pass ends: no error (the condition says it
// all, and an error would retry in a loop), and a slow look again in case a watch
// event was missed.
func AccountRefused() Step {
	return WaitSpread(AccountRecheck)
}
