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

// Package instanceset keeps EC2InstanceSets: spec.replicas EC2Instance objects made
// from spec.template, owned by the set, changed in place where every instance can
// take the change and replaced (rolling, or on delete) where it cannot.
//
// The set never calls AWS. Its instances are ordinary EC2Instance objects, so every
// rule an EC2Instance follows (guardrails, accounts, drift, deletion policy) holds
// for each of them with no second implementation. What the set decides is a pure
// function of the set and its instances (Decide, in plan.go), tested as tables; the
// reconciler reads, decides, writes and reports.
package instanceset
