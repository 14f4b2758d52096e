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

// Package eventbridge stands in for the EventBridge rule that routes EC2
// instance events to the operator's SQS queue. It lives apart from ec2sim
// and sqssim so neither simulator imports the other.
package eventbridge

import (
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/sqssim"
)

// Forward sends every event sim publishes from now on to the queue at
// queueURL, as a message whose body is the event's JSON, which is how an
// EventBridge rule with an SQS target delivers events. Messages are sent
// in the order the events happened. queueURL must name a queue made with
// q.CreateQueue. When q is unavailable the event is
// still queued: EventBridge retries delivery, and the simulator's SQS
// outage only affects its API.
func Forward(sim *ec2sim.Sim, q *sqssim.Sim, queueURL string) {
	sim.Subscribe(func(e ec2sim.Event) {
		q.Send(queueURL, e.JSON())
	})
}
