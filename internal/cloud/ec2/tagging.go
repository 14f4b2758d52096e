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

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// CreateTags adds or overwrites tags on the resources. Nothing is sent when either
// list is empty, since EC2 would reject the call with MissingParameter.
//
// What the client remembers of the instances is patched with the tags rather than
// dropped: a tag written is not a reason to describe an instance again (a set's
// thousand instances each get their own tags after their launch). A failed call
// drops it, as the tags' state is then unknown.
func (c *AWSClient) CreateTags(ctx context.Context, resourceIDs []string, tags map[string]string) error {
	if len(resourceIDs) == 0 || len(tags) == 0 {
		return nil
	}
	c.batcher.Patch(resourceIDs, func(inst *Instance) *Instance {
		if inst.Tags == nil {
			inst.Tags = map[string]string{}
		}
		maps.Copy(inst.Tags, tags)
		return inst
	})
	_, err := c.api.CreateTags(ctx, &awsec2.CreateTagsInput{Resources: resourceIDs, Tags: toSDKTags(tags)})
	if err != nil {
		c.changing(resourceIDs...)
	}
	c.owned.forget(OwnerTag(tags, TagOwnerNamespace)) // an instance taken over shows in the next listing
	return awserrors.Classify("CreateTags", err)
}

// DeleteTags removes the keys from the resources whatever their values: a tag given
// without a value is deleted regardless of its value, while an empty list of tags
// would delete every tag, so nothing is sent when keys is empty.
func (c *AWSClient) DeleteTags(ctx context.Context, resourceIDs []string, keys []string) error {
	c.changing(resourceIDs...)
	if len(resourceIDs) == 0 || len(keys) == 0 {
		return nil
	}
	tags := make([]types.Tag, 0, len(keys))
	for _, k := range keys {
		tags = append(tags, types.Tag{Key: aws.String(k)})
	}
	_, err := c.api.DeleteTags(ctx, &awsec2.DeleteTagsInput{Resources: resourceIDs, Tags: tags})
	return awserrors.Classify("DeleteTags", err)
}
