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
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// RunInstance launches one instance; see Client.RunInstance. A retry with the same
// ClientToken and parameters returns the instance of the first call.
func (c *AWSClient) RunInstance(ctx context.Context, req LaunchRequest) (*Instance, error) {
	req.Count = 1
	launched, err := c.RunInstances(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(launched) != 1 {
		return nil, &awserrors.Error{
			Kind: awserrors.KindUnknown, Operation: "RunInstances", Code: "UnexpectedResponse",
			Message: "RunInstances did not return exactly one instance",
		}
	}
	return &launched[0], nil
}

// RunInstances launches req.Count instances in one call; see Client.RunInstances.
func (c *AWSClient) RunInstances(ctx context.Context, req LaunchRequest) ([]Instance, error) {
	var rootDevice string
	if req.RootVolume != nil {
		var err error
		if rootDevice, err = c.rootDeviceName(ctx, req.ImageID); err != nil {
			return nil, err
		}
	}
	out, err := c.api.RunInstances(ctx, buildRunInstancesInput(req, rootDevice))
	if err != nil {
		return nil, awserrors.Redact(awserrors.Classify("RunInstances", err), req.UserData)
	}
	if len(out.Instances) == 0 || len(out.Instances) > int(max(1, req.Count)) {
		return nil, &awserrors.Error{
			Kind: awserrors.KindUnknown, Operation: "RunInstances", Code: "UnexpectedResponse",
			Message: fmt.Sprintf("RunInstances returned %d instances for a request of %d", len(out.Instances), max(1, req.Count)),
		}
	}
	launched := make([]Instance, 0, len(out.Instances))
	ids := make([]string, 0, len(out.Instances))
	for _, sdk := range out.Instances {
		inst := fromSDKInstance(sdk)
		listed := inst
		if len(listed.Tags) == 0 {
			// The tags were applied at launch (TagSpecifications); EC2's answer may omit them.
			listed.Tags = instanceLaunchTags(req)
		}
		c.owned.launched(OwnerTag(req.Tags, TagOwnerNamespace), &listed)
		launched = append(launched, inst)
		ids = append(ids, inst.ID)
	}
	// The next batched lookup refreshes the new instances with the others, and the
	// next listing of their namespace shows them.
	c.batcher.Expect(ids)
	return launched, nil
}

// ChangedElsewhere drops what the client remembers of the instances; see
// FleetHints.ChangedElsewhere.
func (c *AWSClient) ChangedElsewhere(ids ...string) { c.changing(ids...) }

// ExpectLookups tells the client which instances are about to be looked up; see
// FleetHints.ExpectLookups.
func (c *AWSClient) ExpectLookups(ids []string) { c.batcher.Expect(ids) }

// LaunchTurn says whether a launch may be sent now or how long it should wait for
// its turn in the RunInstances budget; see FleetHints.LaunchTurn.
func (c *AWSClient) LaunchTurn(clientToken, tenant string) time.Duration {
	if c.pacer == nil {
		return 0
	}
	return c.pacer.LaunchTurn(time.Now(), clientToken, tenant)
}

// LaunchBacklog says how long the launches waiting for their turn take to be sent;
// see FleetHints.LaunchBacklog.
func (c *AWSClient) LaunchBacklog() time.Duration {
	if c.pacer == nil {
		return 0
	}
	return c.pacer.LaunchBacklog(time.Now())
}

// GetInstance describes one instance through the lookup coalescer; see
// Client.GetInstance.
func (c *AWSClient) GetInstance(ctx context.Context, id string) (*Instance, error) {
	if id == "" {
		return nil, &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "DescribeInstances", Code: "MissingParameter",
			Message: "an instance ID is required"}
	}
	return c.batcher.Get(ctx, id)
}

// FindInstances lists the instances matching the filter, terminated ones included;
// see Client.FindInstances. A filter without a token or tags is refused: it would list
// every instance of the account's region, which no caller means to do (an empty token
// from a bug must not turn a lookup into a listing).
func (c *AWSClient) FindInstances(ctx context.Context, filter InstanceFilter) ([]Instance, error) {
	if filter.ClientToken == "" && len(filter.Tags) == 0 {
		return nil, &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "DescribeInstances", Code: "MissingParameter",
			Message: "a client token or tags are required to look instances up"}
	}
	var filters []types.Filter
	if filter.ClientToken != "" {
		filters = append(filters, types.Filter{Name: aws.String("client-token"), Values: []string{filter.ClientToken}})
	}
	filters = append(filters, ownerTagFilters(filter.Tags)...)
	found := map[string]*Instance{}
	var order []string
	p := awsec2.NewDescribeInstancesPaginator(c.api, &awsec2.DescribeInstancesInput{
		Filters:    filters,
		MaxResults: aws.Int32(c.pageSize),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, awserrors.Classify("DescribeInstances", err)
		}
		for _, r := range page.Reservations {
			for _, i := range r.Instances {
				inst := fromSDKInstance(i)
				if !CarriesTags(inst.Tags, filter.Tags) {
					continue // the filters find a superset; see ownerTagFilters
				}
				// An instance could move between pages while they are read; keep one.
				if _, dup := found[inst.ID]; !dup {
					order = append(order, inst.ID)
				}
				found[inst.ID] = &inst
			}
		}
	}
	out := make([]Instance, 0, len(order))
	for _, id := range order {
		out = append(out, *found[id])
	}
	return out, nil
}

// describeInstanceNow describes one instance without coalescing, for the state checks
// of the lifecycle calls, which must see EC2's answer after their own call.
func (c *AWSClient) describeInstanceNow(ctx context.Context, id string) (*Instance, error) {
	found := map[string]*Instance{}
	err := describeInto(ctx, c.api, &awsec2.DescribeInstancesInput{InstanceIds: []string{id}}, found)
	if err != nil {
		return nil, err
	}
	inst, ok := found[id]
	if !ok {
		return nil, instanceNotFound(id)
	}
	return inst, nil
}

// isKind reports whether err is a classified error of kind k.
func isKind(err error, k awserrors.Kind) bool {
	var e *awserrors.Error
	return errors.As(err, &e) && e.Kind == k
}
