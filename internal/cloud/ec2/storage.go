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
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// Volume is an EBS volume as DescribeVolumes reports it.
type Volume struct {
	ID               string
	SizeGiB          int32
	Type             string
	IOPS             int32
	Throughput       int32
	AvailabilityZone string
	// State is creating, available, in-use, deleting, deleted or error.
	State string
	// AttachedTo and Device name the attachment, if any; AttachmentState is
	// attaching, attached, detaching or detached.
	AttachedTo      string
	Device          string
	AttachmentState string
	Tags            map[string]string
}

// Snapshot is an EBS snapshot a volume can be created from: who owns it (an account
// ID, and EC2's alias such as amazon for Amazon's own) and its size.
type Snapshot struct {
	ID                  string
	OwnerID, OwnerAlias string
	SizeGiB             int32
}

// VolumeRequest describes one data volume, at launch or for CreateVolume.
type VolumeRequest struct {
	Device string
	// SizeGiB of zero takes the snapshot's size.
	SizeGiB    int32
	Type       string
	IOPS       int32
	Throughput int32
	Encrypted  *bool
	KMSKeyID   string
	SnapshotID string
	// DeleteOnTermination applies at launch; a volume attached later is attached with
	// EC2's default (false) and changed with SetDeleteOnTermination.
	DeleteOnTermination bool
}

// VolumeChange is a ModifyVolume request; zero fields are left as they are.
type VolumeChange struct {
	SizeGiB    int32
	Type       string
	IOPS       int32
	Throughput int32
}

// DescribeVolumes returns the volumes among ids that exist; see Client.DescribeVolumes.
func (c *AWSClient) DescribeVolumes(ctx context.Context, ids []string) (map[string]Volume, error) {
	return c.volumes.Get(ctx, ids)
}

// describeVolumesByFilter describes volumes by the volume-id filter, which, unlike
// VolumeIds, does not fail the whole request when one volume is gone.
func (c *AWSClient) describeVolumesByFilter(ctx context.Context, ids []string) (map[string]Volume, error) {
	out := map[string]Volume{}
	for start := 0; start < len(ids); start += maxFilterValues {
		chunk := ids[start:min(start+maxFilterValues, len(ids))]
		p := awsec2.NewDescribeVolumesPaginator(c.api, &awsec2.DescribeVolumesInput{
			Filters:    []types.Filter{{Name: aws.String("volume-id"), Values: chunk}},
			MaxResults: aws.Int32(500),
		})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return nil, awserrors.Classify("DescribeVolumes", err)
			}
			for _, v := range page.Volumes {
				vol := fromSDKVolume(v)
				out[vol.ID] = vol
			}
		}
	}
	return out, nil
}

func fromSDKVolume(v types.Volume) Volume {
	out := Volume{
		ID:               aws.ToString(v.VolumeId),
		SizeGiB:          aws.ToInt32(v.Size),
		Type:             string(v.VolumeType),
		IOPS:             aws.ToInt32(v.Iops),
		Throughput:       aws.ToInt32(v.Throughput),
		AvailabilityZone: aws.ToString(v.AvailabilityZone),
		State:            string(v.State),
		Tags:             map[string]string{},
	}
	for _, a := range v.Attachments {
		out.AttachedTo, out.Device, out.AttachmentState = aws.ToString(a.InstanceId), aws.ToString(a.Device), string(a.State)
	}
	for _, t := range v.Tags {
		out.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return out
}

// CreateVolume creates a volume in zone, tagged at creation, with token as EC2's
// idempotency token: repeating the call with the same token and parameters returns the
// volume of the first call instead of creating another.
func (c *AWSClient) CreateVolume(ctx context.Context, zone, token string, req VolumeRequest, tags map[string]string) (*Volume, error) {
	in := &awsec2.CreateVolumeInput{
		AvailabilityZone: aws.String(zone),
		ClientToken:      aws.String(token),
		VolumeType:       types.VolumeType(req.Type),
		Encrypted:        req.Encrypted,
		KmsKeyId:         optString(req.KMSKeyID),
		SnapshotId:       optString(req.SnapshotID),
	}
	if req.SizeGiB > 0 {
		in.Size = aws.Int32(req.SizeGiB)
	}
	if req.IOPS > 0 {
		in.Iops = aws.Int32(req.IOPS)
	}
	if req.Throughput > 0 {
		in.Throughput = aws.Int32(req.Throughput)
	}
	if len(tags) > 0 {
		in.TagSpecifications = []types.TagSpecification{{ResourceType: types.ResourceTypeVolume, Tags: toSDKTags(tags)}}
	}
	out, err := c.api.CreateVolume(ctx, in)
	if err != nil {
		return nil, awserrors.Classify("CreateVolume", err)
	}
	return &Volume{
		ID: aws.ToString(out.VolumeId), SizeGiB: aws.ToInt32(out.Size), Type: string(out.VolumeType),
		IOPS: aws.ToInt32(out.Iops), Throughput: aws.ToInt32(out.Throughput),
		AvailabilityZone: aws.ToString(out.AvailabilityZone), State: string(out.State), Tags: tags,
	}, nil
}

// AttachVolume attaches an available volume to the instance at device.
func (c *AWSClient) AttachVolume(ctx context.Context, volumeID, instanceID, device string) error {
	c.changing(instanceID)
	_, err := c.api.AttachVolume(ctx, &awsec2.AttachVolumeInput{
		VolumeId: aws.String(volumeID), InstanceId: aws.String(instanceID), Device: aws.String(device),
	})
	return awserrors.Classify("AttachVolume", err)
}

// DetachVolume detaches the volume from the instance.
func (c *AWSClient) DetachVolume(ctx context.Context, volumeID, instanceID string) error {
	c.changing(instanceID)
	_, err := c.api.DetachVolume(ctx, &awsec2.DetachVolumeInput{VolumeId: aws.String(volumeID), InstanceId: aws.String(instanceID)})
	return awserrors.Classify("DetachVolume", err)
}

// DeleteVolume deletes a detached volume. Deleting a volume that is already gone
// succeeds.
func (c *AWSClient) DeleteVolume(ctx context.Context, volumeID string) error {
	_, err := c.api.DeleteVolume(ctx, &awsec2.DeleteVolumeInput{VolumeId: aws.String(volumeID)})
	if err = awserrors.Classify("DeleteVolume", err); awserrors.IsNotFound(err) {
		return nil
	}
	return err
}

// ModifyVolume changes the size, type, IOPS or throughput of a volume in place. EC2
// limits how often a volume may be modified (VolumeModificationRateExceeded, which
// classifies as throttled), so the caller sends only real changes.
func (c *AWSClient) ModifyVolume(ctx context.Context, volumeID string, change VolumeChange) error {
	in := &awsec2.ModifyVolumeInput{VolumeId: aws.String(volumeID), VolumeType: types.VolumeType(change.Type)}
	if change.SizeGiB > 0 {
		in.Size = aws.Int32(change.SizeGiB)
	}
	if change.IOPS > 0 {
		in.Iops = aws.Int32(change.IOPS)
	}
	if change.Throughput > 0 {
		in.Throughput = aws.Int32(change.Throughput)
	}
	_, err := c.api.ModifyVolume(ctx, in)
	return awserrors.Classify("ModifyVolume", err)
}

// SetDeleteOnTermination sets whether EC2 deletes the volume at device when the
// instance terminates.
func (c *AWSClient) SetDeleteOnTermination(ctx context.Context, instanceID, device string, deleteOnTermination bool) error {
	c.changing(instanceID)
	_, err := c.api.ModifyInstanceAttribute(ctx, &awsec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(instanceID),
		BlockDeviceMappings: []types.InstanceBlockDeviceMappingSpecification{{
			DeviceName: aws.String(device),
			Ebs:        &types.EbsInstanceBlockDeviceSpecification{DeleteOnTermination: aws.Bool(deleteOnTermination)},
		}},
	})
	return awserrors.Classify("ModifyInstanceAttribute", err)
}

// FindVolumes lists the volumes carrying every one of tags, for the rare volume whose
// creation answer was lost (the caller knows its owner and device tags).
func (c *AWSClient) FindVolumes(ctx context.Context, tags map[string]string) ([]Volume, error) {
	var filters []types.Filter
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		filters = append(filters, types.Filter{Name: aws.String("tag:" + k), Values: []string{tags[k]}})
	}
	var out []Volume
	p := awsec2.NewDescribeVolumesPaginator(c.api, &awsec2.DescribeVolumesInput{Filters: filters, MaxResults: aws.Int32(500)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, awserrors.Classify("DescribeVolumes", err)
		}
		for _, v := range page.Volumes {
			out = append(out, fromSDKVolume(v))
		}
	}
	return out, nil
}
