// Package eventbridge stands in for the EventBridge rule that routes EC2
// instance events to the operator's SQS queue. It lives apart from ec2sim
// and sqssim so neither simulator imports the other.
package eventbridge

import (
	ec2sim "github.com/ec2-operator/ec2-operator/internal/sim/ec2"
	sqssim "github.com/ec2-operator/ec2-operator/internal/sim/sqs"
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
