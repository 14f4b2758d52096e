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
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// This file holds the read-only listings an import needs (cmd/kubectl-ec2): the
// instances of an account's region that a query selects, the interruption behaviour
// of their Spot requests and the Elastic IPs associated with them. The operator
// itself never lists an account's instances beyond its own, and never calls these:
// the import runs with the user's credentials, so its calls are not in the
// operator's IAM policy (internal/credentials leaves this file out).

// InventoryQuery selects instances to import. Every set part must match: instance IDs,
// a VPC, and tags (each key with one of its values; an empty value list matches any
// value). An empty query selects every live instance of the region.
type InventoryQuery struct {
	IDs   []string
	VPCID string
	Tags  map[string][]string
}

// Inventory is what an import reads from EC2.
type Inventory interface {
	// ListInstances lists the live instances (pending, running, stopping, stopped) the
	// query selects, ordered by ID.
	ListInstances(ctx context.Context, q InventoryQuery) ([]Instance, error)
	// SpotInterruptionBehaviors returns, by request ID, the interruption behaviour
	// (terminate, stop or hibernate) of Spot Instance requests.
	SpotInterruptionBehaviors(ctx context.Context, requestIDs []string) (map[string]string, error)
	// ElasticIPsByInstance returns, by instance ID, the allocation ID of the Elastic IP
	// associated with each of the instances, for those that have one.
	ElasticIPsByInstance(ctx context.Context, instanceIDs []string) (map[string]string, error)
	// GetInstanceAttributes reads termination protection (and user data, which an
	// import never writes out).
	GetInstanceAttributes(ctx context.Context, id string) (*InstanceAttributes, error)
}

var _ Inventory = (*AWSClient)(nil)

// liveStates are the states of an instance that can still be managed.
var liveStates = []string{StatePending, StateRunning, StateStopping, StateStopped}

// ListInstances lists the instances the query selects; see Inventory.
func (c *AWSClient) ListInstances(ctx context.Context, q InventoryQuery) ([]Instance, error) {
	filters := []types.Filter{{Name: aws.String("instance-state-name"), Values: liveStates}}
	if q.VPCID != "" {
		filters = append(filters, types.Filter{Name: aws.String("vpc-id"), Values: []string{q.VPCID}})
	}
	for _, k := range sortedTagKeys(q.Tags) {
		if vs := q.Tags[k]; len(vs) > 0 {
			filters = append(filters, types.Filter{Name: aws.String("tag:" + k), Values: vs})
		} else {
			filters = append(filters, types.Filter{Name: aws.String("tag-key"), Values: []string{k}})
		}
	}
	found := map[string]*Instance{}
	// InstanceIds with a filter would fail the whole call for one unknown ID; the
	// instance-id filter instead leaves it out, and the caller names what is missing.
	ids := q.IDs
	for start := 0; start < len(ids) || (start == 0 && len(ids) == 0); start += maxFilterValues {
		chunk := filters
		if len(ids) > 0 {
			chunk = append(append([]types.Filter{}, filters...),
				types.Filter{Name: aws.String("instance-id"), Values: ids[start:min(start+maxFilterValues, len(ids))]})
		}
		in := &awsec2.DescribeInstancesInput{Filters: chunk, MaxResults: aws.Int32(c.pageSize)}
		if err := describeInto(ctx, c.api, in, found); err != nil {
			return nil, err
		}
	}
	out := make([]Instance, 0, len(found))
	for _, inst := range found {
		out = append(out, *inst)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// SpotInterruptionBehaviors describes Spot Instance requests; see Inventory.
func (c *AWSClient) SpotInterruptionBehaviors(ctx context.Context, requestIDs []string) (map[string]string, error) {
	out := map[string]string{}
	for start := 0; start < len(requestIDs); start += maxFilterValues {
		chunk := requestIDs[start:min(start+maxFilterValues, len(requestIDs))]
		// The filter, unlike SpotInstanceRequestIds, does not fail the call for a
		// request that is gone.
		p := awsec2.NewDescribeSpotInstanceRequestsPaginator(c.api, &awsec2.DescribeSpotInstanceRequestsInput{
			Filters: []types.Filter{{Name: aws.String("spot-instance-request-id"), Values: chunk}},
		})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return nil, awserrors.Classify("DescribeSpotInstanceRequests", err)
			}
			for _, r := range page.SpotInstanceRequests {
				out[aws.ToString(r.SpotInstanceRequestId)] = string(r.InstanceInterruptionBehavior)
			}
		}
	}
	return out, nil
}

// ElasticIPsByInstance finds the Elastic IPs of instances; see Inventory.
func (c *AWSClient) ElasticIPsByInstance(ctx context.Context, instanceIDs []string) (map[string]string, error) {
	out := map[string]string{}
	for start := 0; start < len(instanceIDs); start += maxFilterValues {
		chunk := instanceIDs[start:min(start+maxFilterValues, len(instanceIDs))]
		found, err := c.describeAddresses(ctx, []types.Filter{{Name: aws.String("instance-id"), Values: chunk}})
		if err != nil {
			return nil, err
		}
		for _, a := range found {
			if a.InstanceID != "" && a.AllocationID != "" {
				out[a.InstanceID] = a.AllocationID
			}
		}
	}
	return out, nil
}

func sortedTagKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Region is the region the client calls.
func (c *AWSClient) Region() string { return c.region }
