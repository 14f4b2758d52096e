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

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// rootDeviceName returns the root device name of the image, from DescribeImage (which
// remembers each image). For resolve:ssm: references it returns defaultSSMRootDevice (see
// there why). Only successful answers are cached, so a missing image is looked up
// again once it has been created or shared.
func (c *AWSClient) rootDeviceName(ctx context.Context, imageID string) (string, error) {
	if isSSMImage(imageID) {
		return defaultSSMRootDevice, nil
	}
	img, err := c.DescribeImage(ctx, imageID)
	if err != nil {
		return "", err
	}
	if img.RootDeviceName == "" {
		return "", &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "DescribeImages", Code: "InvalidAMIID.NotFound",
			Message: fmt.Sprintf("The image id '[%s]' has no root device", imageID)}
	}
	return img.RootDeviceName, nil
}
