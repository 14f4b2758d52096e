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

package events

import (
	"encoding/json"
	"fmt"
	"time"
)

// The detail types the operator acts on, as EventBridge names them.
const (
	DetailStateChange       = "EC2 Instance State-change Notification"
	DetailSpotInterruption  = "EC2 Spot Instance Interruption Warning"
	DetailRebalanceAdvisory = "EC2 Instance Rebalance Recommendation"
)

// Event is the part of an EventBridge event the operator reads.
type Event struct {
	// DetailType is one of the Detail* constants (others are ignored).
	DetailType string
	// Time is when EC2 emitted the event.
	Time time.Time
	// InstanceID is the instance the event is about.
	InstanceID string
	// State is the new state of a state-change notification.
	State string
	// Action is what a Spot interruption warning announces: terminate, stop or
	// hibernate.
	Action string
}

// envelope is EventBridge's event structure ("Amazon EventBridge events" in the
// EventBridge User Guide) with the EC2 detail fields.
type envelope struct {
	DetailType string    `json:"detail-type"`
	Source     string    `json:"source"`
	Time       time.Time `json:"time"`
	Detail     struct {
		InstanceID     string `json:"instance-id"`
		State          string `json:"state"`
		InstanceAction string `json:"instance-action"`
	} `json:"detail"`
}

// Parse reads one SQS message body: the EventBridge event JSON as an SQS target
// delivers it.
func Parse(body string) (Event, error) {
	var e envelope
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		return Event{}, fmt.Errorf("not an EventBridge event: %w", err)
	}
	if e.Source != "aws.ec2" || e.Detail.InstanceID == "" {
		return Event{}, fmt.Errorf("not an EC2 instance event (source %q, detail-type %q)", e.Source, e.DetailType)
	}
	return Event{DetailType: e.DetailType, Time: e.Time, InstanceID: e.Detail.InstanceID, State: e.Detail.State, Action: e.Detail.InstanceAction}, nil
}
