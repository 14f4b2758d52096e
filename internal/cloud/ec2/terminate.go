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
	"time"

	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/coalesce"
)

// Defaults of the termination batcher.
const (
	// DefaultTerminateWindow is how long a termination waits for others to share its
	// call. Deleting many objects at once (a namespace, a fleet) makes many
	// terminations due within a few milliseconds of each other.
	DefaultTerminateWindow = 50 * time.Millisecond
	// maxTerminateBatch is TerminateInstances' limit: "Up to 1000 instance IDs".
	maxTerminateBatch = 1000
)

// newTerminateBatcher sends the terminations that fall due within one window as a
// single TerminateInstances call (coalesce.ActionBatcher). EC2 fails such a call as a
// whole when one instance cannot be terminated, so a batch that fails for a reason
// tied to an instance is sent again one instance at a time (isPerInstance).
func (c *AWSClient) newTerminateBatcher(opts Options) *coalesce.ActionBatcher[string] {
	return coalesce.NewActionBatcher(coalesce.Action[string]{
		Operation: "TerminateInstances",
		Send:      c.terminateInstances,
		PerID:     isPerInstance,
		Window:    opts.TerminateWindow,
		MaxSize:   maxTerminateBatch,
		Timeout:   opts.BatchTimeout,
	})
}

// terminateInstances makes one TerminateInstances call and returns each instance's
// answer: its state after the call, or the error.
func (c *AWSClient) terminateInstances(ctx context.Context, ids []string) map[string]coalesce.Result[string] {
	out := make(map[string]coalesce.Result[string], len(ids))
	resp, err := c.api.TerminateInstances(ctx, &awsec2.TerminateInstancesInput{InstanceIds: ids})
	if err != nil {
		cerr := awserrors.Classify("TerminateInstances", err)
		for _, id := range ids {
			out[id] = coalesce.Result[string]{Err: cerr}
		}
		return out
	}
	for _, change := range resp.TerminatingInstances {
		if change.InstanceId != nil && change.CurrentState != nil {
			out[*change.InstanceId] = coalesce.Result[string]{Value: string(change.CurrentState.Name)}
		}
	}
	for _, id := range ids {
		if _, ok := out[id]; !ok {
			out[id] = coalesce.Result[string]{Err: &awserrors.Error{Kind: awserrors.KindUnknown, Operation: "TerminateInstances", Code: "UnexpectedResponse",
				Message: "TerminateInstances did not report instance " + id}}
		}
	}
	return out
}

// isPerInstance tells the errors that one instance of a batch can cause (a missing or
// malformed ID, termination protection, a state that forbids it, IAM denying that
// instance) from those that concern the whole call (throttling, credentials that do
// not work). IAM's UnauthorizedOperation may be about one resource: the policy allows
// terminating only instances with this cluster's tag, and IAM refuses the whole call
// for one instance whose tag was removed, so it is split like the others;
// AuthFailure (the credentials themselves) is not.
func isPerInstance(err error) bool {
	switch awserrors.KindOf(err) {
	case awserrors.KindNotFound, awserrors.KindIncorrectState, awserrors.KindTerminal, awserrors.KindInvalidInput:
		return true
	case awserrors.KindAuth:
		return awserrors.CodeOf(err) == "UnauthorizedOperation"
	}
	return false
}
