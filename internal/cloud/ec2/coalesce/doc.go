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

// Package coalesce is the EC2 layer's batching and read-ahead: it makes one EC2 call
// serve many reconciles that ask at about the same time.
//
//   - Cache asks once per key for answers that never change (an image, an instance
//     type).
//   - DescribeBatcher gathers lookups of single resources into one describe call per
//     short window and, with read-ahead, widens each call to the rest of the known
//     fleet and serves repeated lookups from its answers.
//   - IDBatcher gathers lookups of a few resources each (volumes, addresses) into one
//     describe call per window.
//   - ActionBatcher gathers actions on single resources (terminations) into one call,
//     and splits a batch that one resource failed.
//
// The package knows nothing of the SDK or of EC2's types: the EC2 client gives each
// batcher the call to make and what it needs to know of the resources (Kind), so the
// rules of batching are tested here with plain values and the calls in the client's
// wire tests.
package coalesce
