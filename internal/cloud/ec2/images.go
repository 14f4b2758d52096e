package ec2

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
)

// rootDeviceName returns the root device name of the image, from a cache or from
// DescribeImages. For resolve:ssm: references it returns defaultSSMRootDevice (see
// there why). Only successful answers are cached, so a missing image is looked up
// again once it has been created or shared.
func (c *AWSClient) rootDeviceName(ctx context.Context, imageID string) (string, error) {
	if isSSMImage(imageID) {
		return defaultSSMRootDevice, nil
	}
	c.rootDevicesMu.Lock()
	name, ok := c.rootDevices[imageID]
	c.rootDevicesMu.Unlock()
	if ok {
		return name, nil
	}
	out, err := c.api.DescribeImages(ctx, &awsec2.DescribeImagesInput{ImageIds: []string{imageID}})
	if err != nil {
		return "", classify("DescribeImages", err)
	}
	if len(out.Images) == 0 || aws.ToString(out.Images[0].RootDeviceName) == "" {
		// EC2 leaves an image out (rather than failing) when it is not visible to the
		// account, for example after deregistration.
		return "", &Error{
			Kind: KindInvalidInput, Operation: "DescribeImages", Code: "InvalidAMIID.NotFound",
			Message: fmt.Sprintf("The image id '[%s]' does not exist", imageID),
		}
	}
	name = aws.ToString(out.Images[0].RootDeviceName)
	c.rootDevicesMu.Lock()
	c.rootDevices[imageID] = name
	c.rootDevicesMu.Unlock()
	return name, nil
}
