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
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/coalesce"
)

// Image is an AMI as DescribeImages reports it.
type Image struct {
	ID      string
	Name    string
	OwnerID string
	// OwnerAlias is amazon or aws-marketplace for their images, empty otherwise.
	OwnerAlias     string
	Architecture   string
	CreationDate   time.Time
	RootDeviceName string
}

// ImageQuery selects images: owners (account IDs or amazon, aws-marketplace, self),
// a name pattern with * and ? wildcards, an architecture and tags (an empty value
// matches any value).
type ImageQuery struct {
	Owners       []string
	Name         string
	Architecture string
	Tags         map[string]string
}

// InstanceTypeInfo is what the operator checks of an instance type before a launch.
type InstanceTypeInfo struct {
	Name          string
	Architectures []string
	// ValidCores and ValidThreadsPerCore are the CPU options the type allows; empty
	// when it allows none (burstable types, for example).
	ValidCores          []int32
	ValidThreadsPerCore []int32
	MemoryMiB           int64
	// HibernationSupported says whether the type can hibernate.
	HibernationSupported bool
	Burstable            bool
}

// computeCache remembers what never changes for a region and account: images by ID
// and instance types by name, each asked once for all concurrent reconciles.
type computeCache struct {
	images    coalesce.Cache[Image]
	types     coalesce.Cache[InstanceTypeInfo]
	snapshots coalesce.Cache[Snapshot]
}

// FindImages lists the available images matching q, newest first (by creation date,
// then by ID), answered from a shared recent answer when another caller asked the
// same within the selector TTL.
func (c *AWSClient) FindImages(ctx context.Context, q ImageQuery) ([]Image, error) {
	key := "images|" + strings.Join(q.Owners, ",") + "|" + q.Name + "|" + q.Architecture + "|" + flatTags(q.Tags)
	return cachedQuery(&c.selectors, key, func() ([]Image, error) {
		in := &awsec2.DescribeImagesInput{
			Owners:  q.Owners,
			Filters: append(tagFilters(q.Tags), types.Filter{Name: aws.String("state"), Values: []string{"available"}}),
		}
		if q.Name != "" {
			in.Filters = append(in.Filters, types.Filter{Name: aws.String("name"), Values: []string{q.Name}})
		}
		if q.Architecture != "" {
			in.Filters = append(in.Filters, types.Filter{Name: aws.String("architecture"), Values: []string{q.Architecture}})
		}
		var out []Image
		p := awsec2.NewDescribeImagesPaginator(c.api, in)
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return nil, awserrors.Classify("DescribeImages", err)
			}
			for _, img := range page.Images {
				out = append(out, fromSDKImage(img))
			}
		}
		sort.Slice(out, func(i, j int) bool {
			if !out[i].CreationDate.Equal(out[j].CreationDate) {
				return out[i].CreationDate.After(out[j].CreationDate)
			}
			return out[i].ID < out[j].ID
		})
		return out, nil
	})
}

func fromSDKImage(img types.Image) Image {
	created, _ := time.Parse(time.RFC3339, aws.ToString(img.CreationDate))
	return Image{
		ID: aws.ToString(img.ImageId), Name: aws.ToString(img.Name), OwnerID: aws.ToString(img.OwnerId), OwnerAlias: aws.ToString(img.ImageOwnerAlias),
		Architecture: string(img.Architecture), CreationDate: created, RootDeviceName: aws.ToString(img.RootDeviceName),
	}
}

// DescribeImage returns one image by ID, remembered for the client's lifetime (an
// image's architecture and root device never change).
func (c *AWSClient) DescribeImage(ctx context.Context, id string) (*Image, error) {
	img, err := c.compute.images.Get(ctx, "DescribeImages", id, func() (Image, error) {
		out, err := c.api.DescribeImages(ctx, &awsec2.DescribeImagesInput{ImageIds: []string{id}})
		if err != nil {
			return Image{}, awserrors.Classify("DescribeImages", err)
		}
		if len(out.Images) == 0 {
			// EC2 leaves an image out (rather than failing) when it is not visible to
			// the account, for example after deregistration.
			return Image{}, &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "DescribeImages", Code: "InvalidAMIID.NotFound",
				Message: fmt.Sprintf("The image id '[%s]' does not exist", id)}
		}
		return fromSDKImage(out.Images[0]), nil
	})
	if err != nil {
		return nil, err
	}
	return &img, nil
}

// InstanceType describes an instance type, remembered for the client's lifetime.
func (c *AWSClient) InstanceType(ctx context.Context, name string) (*InstanceTypeInfo, error) {
	info, err := c.compute.types.Get(ctx, "DescribeInstanceTypes", name, func() (InstanceTypeInfo, error) {
		return c.describeInstanceType(ctx, name)
	})
	if err != nil {
		return nil, err
	}
	return &info, nil
}

// describeInstanceType asks EC2 about one instance type.
func (c *AWSClient) describeInstanceType(ctx context.Context, name string) (InstanceTypeInfo, error) {
	out, err := c.api.DescribeInstanceTypes(ctx, &awsec2.DescribeInstanceTypesInput{InstanceTypes: []types.InstanceType{types.InstanceType(name)}})
	if err != nil {
		return InstanceTypeInfo{}, awserrors.Classify("DescribeInstanceTypes", err)
	}
	if len(out.InstanceTypes) == 0 {
		return InstanceTypeInfo{}, &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "DescribeInstanceTypes", Code: "InvalidInstanceType",
			Message: fmt.Sprintf("The following supplied instance types do not exist: [%s]", name)}
	}
	t := out.InstanceTypes[0]
	info := InstanceTypeInfo{
		Name: name, HibernationSupported: aws.ToBool(t.HibernationSupported), Burstable: aws.ToBool(t.BurstablePerformanceSupported),
	}
	if t.ProcessorInfo != nil {
		for _, a := range t.ProcessorInfo.SupportedArchitectures {
			info.Architectures = append(info.Architectures, string(a))
		}
	}
	if t.VCpuInfo != nil {
		info.ValidCores = slices.Clone(t.VCpuInfo.ValidCores)
		info.ValidThreadsPerCore = slices.Clone(t.VCpuInfo.ValidThreadsPerCore)
	}
	if t.MemoryInfo != nil {
		info.MemoryMiB = aws.ToInt64(t.MemoryInfo.SizeInMiB)
	}
	return info, nil
}

// DescribeSnapshot returns one EBS snapshot's owner and size, remembered for the
// client's lifetime: neither ever changes for a snapshot ID.
func (c *AWSClient) DescribeSnapshot(ctx context.Context, id string) (*Snapshot, error) {
	snap, err := c.compute.snapshots.Get(ctx, "DescribeSnapshots", id, func() (Snapshot, error) {
		out, err := c.api.DescribeSnapshots(ctx, &awsec2.DescribeSnapshotsInput{SnapshotIds: []string{id}})
		if err != nil {
			return Snapshot{}, awserrors.Classify("DescribeSnapshots", err)
		}
		if len(out.Snapshots) == 0 {
			return Snapshot{}, &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "DescribeSnapshots", Code: "InvalidSnapshot.NotFound",
				Message: fmt.Sprintf("The snapshot '%s' does not exist.", id)}
		}
		s := out.Snapshots[0]
		return Snapshot{ID: id, OwnerID: aws.ToString(s.OwnerId), OwnerAlias: aws.ToString(s.OwnerAlias), SizeGiB: aws.ToInt32(s.VolumeSize)}, nil
	})
	if err != nil {
		return nil, err
	}
	return &snap, nil
}

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
