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
	"encoding/base64"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// ModifyInstanceType changes the instance type; EC2 answers IncorrectInstanceState
// (awserrors.KindIncorrectState) unless the instance is stopped.
func (c *AWSClient) ModifyInstanceType(ctx context.Context, id, instanceType string) error {
	c.changing(id)
	_, err := c.api.ModifyInstanceAttribute(ctx, &awsec2.ModifyInstanceAttributeInput{
		InstanceId:   aws.String(id),
		InstanceType: &types.AttributeValue{Value: aws.String(instanceType)},
	})
	return awserrors.Classify("ModifyInstanceAttribute", err)
}

// ModifySecurityGroups replaces the security groups of the primary network interface.
func (c *AWSClient) ModifySecurityGroups(ctx context.Context, id string, groupIDs []string) error {
	c.changing(id)
	_, err := c.api.ModifyInstanceAttribute(ctx, &awsec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id),
		Groups:     groupIDs,
	})
	return awserrors.Classify("ModifyInstanceAttribute", err)
}

// ModifyTerminationProtection sets the disableApiTermination attribute.
func (c *AWSClient) ModifyTerminationProtection(ctx context.Context, id string, enabled bool) error {
	c.changing(id)
	_, err := c.api.ModifyInstanceAttribute(ctx, &awsec2.ModifyInstanceAttributeInput{
		InstanceId:            aws.String(id),
		DisableApiTermination: &types.AttributeBooleanValue{Value: aws.Bool(enabled)},
	})
	return awserrors.Classify("ModifyInstanceAttribute", err)
}

// ModifyUserData replaces the user data of a stopped instance. The attribute is a
// blob, which the SDK base64-encodes on the wire, so the plain bytes go in here;
// encoding them again would make the instance receive base64 text.
func (c *AWSClient) ModifyUserData(ctx context.Context, id, userData string) error {
	c.changing(id)
	_, err := c.api.ModifyInstanceAttribute(ctx, &awsec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id),
		UserData:   &types.SecureBlobAttributeValue{Value: []byte(userData)},
	})
	return awserrors.Redact(awserrors.Classify("ModifyInstanceAttribute", err), userData)
}

// ModifyMetadataOptions changes the instance metadata service options; empty fields
// are left as they are.
func (c *AWSClient) ModifyMetadataOptions(ctx context.Context, id string, opts MetadataOptions) error {
	c.changing(id)
	in := &awsec2.ModifyInstanceMetadataOptionsInput{
		InstanceId:           aws.String(id),
		HttpTokens:           types.HttpTokensState(opts.HTTPTokens),
		HttpEndpoint:         types.InstanceMetadataEndpointState(opts.HTTPEndpoint),
		InstanceMetadataTags: types.InstanceMetadataTagsState(opts.InstanceMetadataTags),
		HttpProtocolIpv6:     types.InstanceMetadataProtocolState(opts.HTTPProtocolIPv6),
	}
	if opts.HTTPPutResponseHopLimit > 0 {
		in.HttpPutResponseHopLimit = aws.Int32(opts.HTTPPutResponseHopLimit)
	}
	_, err := c.api.ModifyInstanceMetadataOptions(ctx, in)
	return awserrors.Classify("ModifyInstanceMetadataOptions", err)
}

// SetDetailedMonitoring turns detailed monitoring on (MonitorInstances) or off
// (UnmonitorInstances). Both calls succeed when the monitoring state already matches.
func (c *AWSClient) SetDetailedMonitoring(ctx context.Context, id string, enabled bool) error {
	c.changing(id)
	if enabled {
		_, err := c.api.MonitorInstances(ctx, &awsec2.MonitorInstancesInput{InstanceIds: []string{id}})
		return awserrors.Classify("MonitorInstances", err)
	}
	_, err := c.api.UnmonitorInstances(ctx, &awsec2.UnmonitorInstancesInput{InstanceIds: []string{id}})
	return awserrors.Classify("UnmonitorInstances", err)
}

// GetInstanceAttributes reads disableApiTermination and the user data. EC2 returns
// one attribute per DescribeInstanceAttribute call, hence two calls.
func (c *AWSClient) GetInstanceAttributes(ctx context.Context, id string) (*InstanceAttributes, error) {
	prot, err := c.api.DescribeInstanceAttribute(ctx, &awsec2.DescribeInstanceAttributeInput{
		InstanceId: aws.String(id),
		Attribute:  types.InstanceAttributeNameDisableApiTermination,
	})
	if err != nil {
		return nil, awserrors.Classify("DescribeInstanceAttribute", err)
	}
	ud, err := c.api.DescribeInstanceAttribute(ctx, &awsec2.DescribeInstanceAttributeInput{
		InstanceId: aws.String(id),
		Attribute:  types.InstanceAttributeNameUserData,
	})
	if err != nil {
		return nil, awserrors.Classify("DescribeInstanceAttribute", err)
	}
	attrs := &InstanceAttributes{}
	if prot.DisableApiTermination != nil {
		attrs.TerminationProtection = aws.ToBool(prot.DisableApiTermination.Value)
	}
	if ud.UserData != nil && aws.ToString(ud.UserData.Value) != "" {
		// Here EC2 returns the user data as base64 text in a string attribute.
		raw, err := base64.StdEncoding.DecodeString(aws.ToString(ud.UserData.Value))
		if err != nil {
			return nil, &awserrors.Error{Kind: awserrors.KindUnknown, Operation: "DescribeInstanceAttribute", Code: "InvalidUserDataEncoding",
				Message: "EC2 returned user data that is not valid base64", Err: err}
		}
		attrs.UserData = string(raw)
	}
	return attrs, nil
}
