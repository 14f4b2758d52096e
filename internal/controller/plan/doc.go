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

// Package plan says what an EC2Instance's spec asks of EC2, as pure functions of the
// object and of the instance EC2 reported: the launch request (launch.go), one plan
// per mutable setting that compares the spec with the instance and returns the change
// that closes the gap (settings*.go, listed in Settings), the differences EC2 cannot
// change in place (ImmutableDifferences), data volumes as the spec states them
// (volumes.go) and the differences managementPolicy Observe reports (drift.go).
//
// Nothing here calls EC2 or Kubernetes, so its rules are tested as tables. The
// reconciler decides when to read, when to apply a Drift and what to report; a
// Drift's Apply is the only code here that reaches EC2, through the SettingsClient
// the reconciler passes it.
package plan
