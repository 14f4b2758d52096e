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

// Package pass holds what every phase of an EC2Instance pass shares, and nothing that
// needs the reconciler:
//
//   - Scope (scope.go) carries one object through one pass: the object and the status
//     it had when the pass started, the EC2 client of its region, the instance once
//     found, and the status writes that must survive a crash.
//   - Step (step.go) is what a phase decided: go on, done (come back after a
//     duration), again, failed (with the classified errors) or errored. The
//     reconciler's finish turns the first step that ends a pass into Ready, events,
//     metrics and a requeue.
//   - reasons.go maps classified errors to the Ready condition's reasons and
//     messages, and says which reasons no retry fixes.
//   - status.go copies what EC2 reports into status and derives Reconciling and
//     Stalled from Ready, in one place, as kstatus reads them.
//   - claims.go says whose a tagged resource is, seen from one object in one cluster.
//   - volumes.go records the volumes a launch attached, for the ownership tags.
//
// A phase package depends on this one and on a small interface of its own, never on
// the reconciler, so the import graph has no cycle.
package pass
