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

package ec2

import (
	"context"
	"slices"

	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// TerminateInstance terminates the instance and returns its state after the call; see
// Client.TerminateInstance. Terminations due at about the same time share one call
// (newTerminateBatcher). EC2 itself accepts terminating a shutting-down or terminated
// instance; the state check below covers the same case should EC2 answer
// IncorrectInstanceState. A NotFound error is returned as is: right after launch it
// can mean "not visible yet" (eventual consistency), and treating it as success would
// leak the instance.
func (c *AWSClient) TerminateInstance(ctx context.Context, id string) (string, error) {
	c.changing(id)
	state, err := c.terminator.Do(ctx, id)
	if err != nil {
		if err = c.toleratingState(ctx, "TerminateInstances", id, err, StateShuttingDown, StateTerminated); err == nil {
			state = StateShuttingDown
		}
	}
	if err == nil && (state == StateShuttingDown || state == StateTerminated) {
		c.batcher.Retire(id)
	}
	return state, err
}

// StopInstance stops the instance; see Client.StopInstance. Stopping a pending or
// terminated instance fails with IncorrectInstanceState, which the caller retries or
// reports.
func (c *AWSClient) StopInstance(ctx context.Context, id string) error {
	c.changing(id)
	_, err := c.api.StopInstances(ctx, &awsec2.StopInstancesInput{InstanceIds: []string{id}})
	return c.toleratingState(ctx, "StopInstances", id, err, StateStopping, StateStopped)
}

// StartInstance starts the instance; see Client.StartInstance. Starting a stopping
// instance fails with IncorrectInstanceState until it has stopped.
func (c *AWSClient) StartInstance(ctx context.Context, id string) error {
	c.changing(id)
	_, err := c.api.StartInstances(ctx, &awsec2.StartInstancesInput{InstanceIds: []string{id}})
	return c.toleratingState(ctx, "StartInstances", id, err, StatePending, StateRunning)
}

// toleratingState classifies err and turns an IncorrectInstanceState answer into
// success when the instance already is (or is on its way to) one of the given
// states: the call's goal is reached, which is what a repeated call needs to know.
func (c *AWSClient) toleratingState(ctx context.Context, op, id string, err error, goal ...string) error {
	if err == nil {
		return nil
	}
	cerr := awserrors.Classify(op, err)
	if awserrors.KindOf(cerr) != awserrors.KindIncorrectState {
		return cerr
	}
	inst, derr := c.describeInstanceNow(ctx, id)
	if derr == nil && slices.Contains(goal, inst.State) {
		return nil
	}
	return cerr
}

// CancelSpotRequest cancels a Spot Instance request. EC2 answers a request that is
// already cancelled or closed with its current state, not an error, so repeating the
// call is safe.
func (c *AWSClient) CancelSpotRequest(ctx context.Context, requestID string) error {
	_, err := c.api.CancelSpotInstanceRequests(ctx, &awsec2.CancelSpotInstanceRequestsInput{
		SpotInstanceRequestIds: []string{requestID},
	})
	if err != nil {
		return awserrors.Classify("CancelSpotInstanceRequests", err)
	}
	return nil
}
