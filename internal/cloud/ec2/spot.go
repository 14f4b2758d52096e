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

	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

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
