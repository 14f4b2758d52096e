package ec2

import (
	"context"

	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
)

// CancelSpotRequest cancels a Spot Instance request. EC2 answers a request that is
// already cancelled or closed with its current state, not an error, so repeating the
// call is safe.
func (c *AWSClient) CancelSpotRequest(ctx context.Context, requestID string) error {
	_, err := c.api.CancelSpotInstanceRequests(ctx, &awsec2.CancelSpotInstanceRequestsInput{
		SpotInstanceRequestIds: []string{requestID},
	})
	if err != nil {
		return classify("CancelSpotInstanceRequests", err)
	}
	return nil
}
