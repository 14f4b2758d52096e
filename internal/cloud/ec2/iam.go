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
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// SetIAMInstanceProfile makes profile (a name or an ARN) the instance's only IAM
// instance profile, or removes the association when profile is empty. It reads the
// current association first so that a repeated call changes nothing: EC2 rejects a
// second AssociateIamInstanceProfile for an instance that already has one.
func (c *AWSClient) SetIAMInstanceProfile(ctx context.Context, id, profile string) error {
	c.changing(id)
	current, err := c.currentProfileAssociation(ctx, id)
	if err != nil {
		return err
	}
	switch {
	case profile == "" && current == nil:
		return nil
	case profile == "":
		_, err := c.api.DisassociateIamInstanceProfile(ctx, &awsec2.DisassociateIamInstanceProfileInput{
			AssociationId: current.AssociationId,
		})
		if isKind(awserrors.Classify("", err), awserrors.KindNotFound) {
			// Someone else removed it between our read and our call.
			return nil
		}
		return awserrors.Classify("DisassociateIamInstanceProfile", err)
	case current == nil:
		_, err := c.api.AssociateIamInstanceProfile(ctx, &awsec2.AssociateIamInstanceProfileInput{
			InstanceId:         aws.String(id),
			IamInstanceProfile: profileSpec(profile),
		})
		return awserrors.Classify("AssociateIamInstanceProfile", err)
	case current.IamInstanceProfile != nil && profileMatches(aws.ToString(current.IamInstanceProfile.Arn), profile):
		return nil
	default:
		_, err := c.api.ReplaceIamInstanceProfileAssociation(ctx, &awsec2.ReplaceIamInstanceProfileAssociationInput{
			AssociationId:      current.AssociationId,
			IamInstanceProfile: profileSpec(profile),
		})
		return awserrors.Classify("ReplaceIamInstanceProfileAssociation", err)
	}
}

// currentProfileAssociation returns the instance's associated or associating
// profile association, or nil. Disassociating and disassociated ones are history.
func (c *AWSClient) currentProfileAssociation(ctx context.Context, id string) (*types.IamInstanceProfileAssociation, error) {
	p := awsec2.NewDescribeIamInstanceProfileAssociationsPaginator(c.api, &awsec2.DescribeIamInstanceProfileAssociationsInput{
		Filters: []types.Filter{
			{Name: aws.String("instance-id"), Values: []string{id}},
			{Name: aws.String("state"), Values: []string{
				string(types.IamInstanceProfileAssociationStateAssociated),
				string(types.IamInstanceProfileAssociationStateAssociating),
			}},
		},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, awserrors.Classify("DescribeIamInstanceProfileAssociations", err)
		}
		for i := range page.IamInstanceProfileAssociations {
			a := page.IamInstanceProfileAssociations[i]
			if aws.ToString(a.InstanceId) == id {
				return &a, nil
			}
		}
	}
	return nil, nil
}

// profileSpec names the profile by ARN when given one, else by name.
func profileSpec(profile string) *types.IamInstanceProfileSpecification {
	if strings.HasPrefix(profile, "arn:") {
		return &types.IamInstanceProfileSpecification{Arn: aws.String(profile)}
	}
	return &types.IamInstanceProfileSpecification{Name: aws.String(profile)}
}

// profileMatches reports whether the associated profile ARN is the desired profile,
// given as an ARN or as a name. Profile ARNs end in instance-profile/[path/]name.
func profileMatches(arn, profile string) bool {
	if arn == "" {
		return false
	}
	if strings.HasPrefix(profile, "arn:") {
		return arn == profile
	}
	return arn[strings.LastIndex(arn, "/")+1:] == profile
}
