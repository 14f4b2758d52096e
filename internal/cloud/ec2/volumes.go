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

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// ResizeVolume grows the volume to sizeGiB. It reads the size first and does nothing
// when the volume already has it, because EC2 rejects a modification that changes
// nothing and limits how often a volume may be modified. A smaller size is sent to
// EC2, whose InvalidParameterValue (EBS volumes cannot shrink) reaches the caller.
func (c *AWSClient) ResizeVolume(ctx context.Context, volumeID string, sizeGiB int32) error {
	size, err := c.GetVolumeSize(ctx, volumeID)
	if err != nil {
		return err
	}
	if size == sizeGiB {
		return nil
	}
	_, err = c.api.ModifyVolume(ctx, &awsec2.ModifyVolumeInput{
		VolumeId: aws.String(volumeID),
		Size:     aws.Int32(sizeGiB),
	})
	return awserrors.Classify("ModifyVolume", err)
}

// GetVolumeSize returns the volume's size in GiB. During a modification EC2 already
// reports the target size.
func (c *AWSClient) GetVolumeSize(ctx context.Context, volumeID string) (int32, error) {
	out, err := c.api.DescribeVolumes(ctx, &awsec2.DescribeVolumesInput{VolumeIds: []string{volumeID}})
	if err != nil {
		return 0, awserrors.Classify("DescribeVolumes", err)
	}
	for _, v := range out.Volumes {
		if aws.ToString(v.VolumeId) == volumeID {
			return aws.ToInt32(v.Size), nil
		}
	}
	return 0, &awserrors.Error{Kind: awserrors.KindNotFound, Operation: "DescribeVolumes", Code: "InvalidVolume.NotFound",
		Message: fmt.Sprintf("The volume '%s' does not exist.", volumeID)}
}
