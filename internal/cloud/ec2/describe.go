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
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/coalesce"
)

// Codes DescribeInstances uses to reject a whole InstanceIds list because of one bad
// member.
const (
	codeInstanceNotFound  = "InvalidInstanceID.NotFound"
	codeInstanceMalformed = "InvalidInstanceID.Malformed"
)

// maxFilterValues bounds the instance-id filter values per request. EC2 documents no
// single limit for DescribeInstances filters, and several describe APIs cap filter
// values at 200, so the fallback query stays under that.
const maxFilterValues = 200

// newInstanceBatcher batches GetInstance's lookups into DescribeInstances calls
// (coalesce.DescribeBatcher), with read-ahead when opts ask for it.
func (c *AWSClient) newInstanceBatcher(opts Options) *coalesce.DescribeBatcher[*Instance] {
	return coalesce.NewDescribeBatcher(coalesce.Describe[*Instance]{
		Operation:     "DescribeInstances",
		Fetch:         c.describeInstances,
		NotFound:      func(id string) error { return instanceNotFound(id) },
		Kind:          coalesce.Kind[*Instance]{Stage: instanceStage, Clone: cloneInstance},
		Window:        opts.BatchWindow,
		MaxSize:       opts.MaxBatchSize,
		Timeout:       opts.BatchTimeout,
		ReadAheadTTL:  opts.ReadAheadTTL,
		TransitionTTL: opts.TransitionTTL,
	})
}

// instanceStage tells read-ahead how long an answer about an instance may be served:
// running and stopped last; pending and stopping are on their way to one of them;
// shutting-down and terminated only end.
func instanceStage(inst *Instance) coalesce.Stage {
	switch inst.State {
	case StateRunning, StateStopped:
		return coalesce.Settled
	case StatePending, StateStopping:
		return coalesce.Changing
	}
	return coalesce.Ending
}

// describeInstances looks the IDs up for the describe batcher. It asks by InstanceIds first: that is EC2's exact
// lookup, and it keeps working for instances in healthy zones when one Availability
// Zone is impaired, where an unscoped or filter-only query fails. EC2 rejects the
// whole list with InvalidInstanceID.NotFound (or .Malformed) when any member is
// unknown, so on those errors it asks again with the instance-id filter, which
// simply leaves unknown IDs out; the caller turns the missing ones into NotFound.
func (c *AWSClient) describeInstances(ctx context.Context, ids []string) (map[string]*Instance, error) {
	found := make(map[string]*Instance, len(ids))
	err := describeInto(ctx, c.api, &awsec2.DescribeInstancesInput{InstanceIds: ids}, found)
	if err == nil {
		return found, nil
	}
	if code := awserrors.CodeOf(err); code != codeInstanceNotFound && code != codeInstanceMalformed {
		return nil, err
	}
	for start := 0; start < len(ids); start += maxFilterValues {
		end := min(start+maxFilterValues, len(ids))
		in := &awsec2.DescribeInstancesInput{
			Filters:    []types.Filter{{Name: aws.String("instance-id"), Values: ids[start:end]}},
			MaxResults: aws.Int32(c.pageSize),
		}
		if err := describeInto(ctx, c.api, in, found); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// describeInto pages through DescribeInstances and stores every instance by ID.
func describeInto(ctx context.Context, api awsec2.DescribeInstancesAPIClient, in *awsec2.DescribeInstancesInput, into map[string]*Instance) error {
	p := awsec2.NewDescribeInstancesPaginator(api, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return awserrors.Classify("DescribeInstances", err)
		}
		for _, r := range page.Reservations {
			for _, i := range r.Instances {
				inst := fromSDKInstance(i)
				into[inst.ID] = &inst
			}
		}
	}
	return nil
}

// instanceNotFound is the error a caller gets for an ID EC2 does not know, worded as
// EC2 words it.
func instanceNotFound(id string) *awserrors.Error {
	msg := fmt.Sprintf("The instance ID '%s' does not exist", id)
	return &awserrors.Error{Kind: awserrors.KindNotFound, Operation: "DescribeInstances", Code: codeInstanceNotFound, Message: msg}
}

// cloneInstance deep-copies an Instance so that callers sharing a batch do not share
// maps and slices.
func cloneInstance(in *Instance) *Instance {
	out := *in
	out.SecurityGroupIDs = append([]string(nil), in.SecurityGroupIDs...)
	out.VolumeIDs = append([]string(nil), in.VolumeIDs...)
	out.Tags = make(map[string]string, len(in.Tags))
	for k, v := range in.Tags {
		out.Tags[k] = v
	}
	return &out
}
