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

// Package controller holds the EC2Instance reconciler. It orchestrates: it reads the
// object and the instance, decides the next step and asks internal/cloud/ec2 to take
// it. It never talks to the AWS SDK directly, and never reads AWS's error codes: the
// EC2 layer classifies errors into kinds and causes.
//
// # One pass
//
// Reconcile (ec2instance_controller.go) reads the object and runs reconcile, a short
// list of phases. Every phase returns a pass.Step: go on, done (come back after a
// duration), again, failed (with the classified errors) or errored. The first step
// that ends the pass is handed to finish (reconcile_outcome.go), the pass's one exit,
// which turns failures into Ready, events and metrics, spreads the requeue and applies
// the retry policy (the reasons are package pass's). The status is written once at the
// end of the pass, and before and after the steps that must survive a crash
// (pass.Scope.PatchStatus).
//
// # Phases and their files
//
//   - account_*: which AWSAccount (or the operator's own credentials) the pass acts
//     in, whether the namespace may use it, its guardrails, and which cluster's an
//     instance is (account_claims.go).
//   - package launch: finding the recorded instance and waiting for EC2's eventual
//     consistency (lookup.go), launching with the launch record written first
//     (launch.go), finding a launch whose answer was lost (find.go), EC2's idempotency
//     answers (failed.go), adoption (adopt.go), taking over the instance of an earlier
//     object with the same name (restore.go), late-initialization of an adopted
//     instance's unset fields (lateinit.go), the image and placement a launch chooses,
//     replacing a terminated instance (replace.go) and holding replacements when many
//     vanish at once (vanished.go). It sees the pass through launch.Kernel; the request
//     itself is plan.LaunchRequest.
//   - package observe: managementPolicy Observe, its own read-only pass (observe.Phase):
//     the instance is found and reported, never changed, and its differences from the
//     spec are listed by plan.ObservedDrift, which reuses the settings' plans, so that
//     Observe reports exactly what Full would change.
//   - package converge: brings an existing instance to the spec aspect by aspect. The
//     aspects are values (converge.Aspect) that kernel.go lists in their order (tags,
//     the transition, the security group selector, the extra attributes, the user
//     data, the in-place settings, data volumes, the Elastic IP, the power state);
//     the object settles when nothing is left to do. The settings are pure plans, one
//     per field, in package plan: adding one is a plan and an entry in plan.Settings.
//   - package deletion: termination or release as the deletion policy says, the
//     volumes and addresses the operator created, and the uninstall guard: an object
//     deleted because its CRD is being deleted is released without calling AWS. It
//     sees the rest of the pass only through deletion.Kernel.
//
// Each phase package defines the small interface it needs of the rest of the pass
// (its Kernel, at most ten methods) and never imports this package; kernel.go
// implements those interfaces over the reconciler and builds each phase's value for a
// pass from the reconciler's settings and the memory store it needs.
//   - inputs_*: what reaches a pass from outside the object: the user data of
//     userDataFrom and its watch, and EC2 events.
//   - package outputs: after every pass, in Full and Observe, spec.outputsTo's ConfigMap
//     or Secret is kept holding the instance's coordinates from status (a Kubernetes
//     write only, where the namespace granted it, and only to an object it owns).
//   - reconcile_*: the pass's one exit, remembering and forgetting objects (the stores
//     are package memory's; the reconciler is their one owner), conflict handling,
//     backoff, metrics and the manager setup.
//
// What every phase shares (the scope, the step, the reasons, the status derived from
// EC2's answer, the ownership claims) is package pass. What a spec asks for, with no
// EC2 call and no reconciler, is package plan: the launch
// request, the settings table (each mutable field's comparison and change), the
// differences that need a new instance, data volumes as the spec states them, and
// the drift Observe reports. The AWSAccount reconciler is package awsaccount; requeue
// holds the waits both share.
package controller
