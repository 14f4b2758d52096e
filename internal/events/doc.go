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

// Package events turns EC2's own notifications into reconciles, so that a change made
// outside Kubernetes (an instance stopped, terminated, about to be interrupted) is seen
// within seconds instead of at the next resync.
//
// An EventBridge rule sends the events "EC2 Instance State-change Notification", "EC2
// Spot Instance Interruption Warning" and "EC2 Instance Rebalance Recommendation" to an
// SQS queue (docs/events.md). The Consumer long-polls that queue, maps each event's
// instance to the EC2Instance that owns it, hands it to the reconciler and deletes the
// messages it handled. Events are hints, never state: the reconciler reads the instance
// afresh, so duplicates, reordering and lost messages are harmless, and while the queue
// cannot be read the periodic resync still finds every change.
package events
