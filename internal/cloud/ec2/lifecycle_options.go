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

	"github.com/aws/aws-sdk-go-v2/aws"
	awsec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
)

// PrivateDNSNameOptions are an instance's private hostname options.
type PrivateDNSNameOptions struct {
	// HostnameType is ip-name or resource-name.
	HostnameType     string
	EnableARecord    bool
	EnableAAAARecord bool
}

// CapacityReservationSpec is an instance's Capacity Reservation preference or target.
type CapacityReservationSpec struct {
	// Preference is open or none; empty when a target is set.
	Preference string
	// ReservationID or ResourceGroupARN is the target.
	ReservationID    string
	ResourceGroupARN string
}

// PlacementSpec places an instance in a group or on dedicated hardware.
type PlacementSpec struct {
	GroupName            string
	PartitionNumber      int32
	Tenancy              string
	HostID               string
	HostResourceGroupARN string
	Affinity             string
}

// CPUOptions are an instance's CPU cores and threads per core.
type CPUOptions struct {
	CoreCount      int32
	ThreadsPerCore int32
}

// LifecycleAttributes are the lifecycle attributes DescribeInstances does not return.
type LifecycleAttributes struct {
	// StopProtection is the disableApiStop attribute.
	StopProtection bool
	// ShutdownBehavior is stop or terminate.
	ShutdownBehavior string
}

// HibernateInstance stops the instance with hibernation. Hibernating a stopping or
// stopped instance succeeds.
func (c *AWSClient) HibernateInstance(ctx context.Context, id string) error {
	c.changing(id)
	_, err := c.api.StopInstances(ctx, &awsec2.StopInstancesInput{InstanceIds: []string{id}, Hibernate: aws.Bool(true)})
	return c.toleratingState(ctx, "StopInstances", id, err, StateStopping, StateStopped)
}

// GetLifecycleAttributes reads stop protection and the shutdown behaviour.
func (c *AWSClient) GetLifecycleAttributes(ctx context.Context, id string) (*LifecycleAttributes, error) {
	stop, err := c.api.DescribeInstanceAttribute(ctx, &awsec2.DescribeInstanceAttributeInput{
		InstanceId: aws.String(id), Attribute: types.InstanceAttributeNameDisableApiStop,
	})
	if err != nil {
		return nil, awserrors.Classify("DescribeInstanceAttribute", err)
	}
	shutdown, err := c.api.DescribeInstanceAttribute(ctx, &awsec2.DescribeInstanceAttributeInput{
		InstanceId: aws.String(id), Attribute: types.InstanceAttributeNameInstanceInitiatedShutdownBehavior,
	})
	if err != nil {
		return nil, awserrors.Classify("DescribeInstanceAttribute", err)
	}
	out := &LifecycleAttributes{ShutdownBehavior: "stop"}
	if stop.DisableApiStop != nil {
		out.StopProtection = aws.ToBool(stop.DisableApiStop.Value)
	}
	if v := shutdown.InstanceInitiatedShutdownBehavior; v != nil && aws.ToString(v.Value) != "" {
		out.ShutdownBehavior = aws.ToString(v.Value)
	}
	return out, nil
}

// SetStopProtection sets the disableApiStop attribute.
func (c *AWSClient) SetStopProtection(ctx context.Context, id string, enabled bool) error {
	c.changing(id)
	_, err := c.api.ModifyInstanceAttribute(ctx, &awsec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id), DisableApiStop: &types.AttributeBooleanValue{Value: aws.Bool(enabled)},
	})
	return awserrors.Classify("ModifyInstanceAttribute", err)
}

// SetShutdownBehavior sets what a shutdown from inside the instance does.
func (c *AWSClient) SetShutdownBehavior(ctx context.Context, id, behavior string) error {
	c.changing(id)
	_, err := c.api.ModifyInstanceAttribute(ctx, &awsec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(id), InstanceInitiatedShutdownBehavior: &types.AttributeValue{Value: aws.String(behavior)},
	})
	return awserrors.Classify("ModifyInstanceAttribute", err)
}

// SetAutoRecovery sets simplified automatic recovery (default or disabled).
func (c *AWSClient) SetAutoRecovery(ctx context.Context, id, autoRecovery string) error {
	c.changing(id)
	_, err := c.api.ModifyInstanceMaintenanceOptions(ctx, &awsec2.ModifyInstanceMaintenanceOptionsInput{
		InstanceId: aws.String(id), AutoRecovery: types.InstanceAutoRecoveryState(autoRecovery),
	})
	return awserrors.Classify("ModifyInstanceMaintenanceOptions", err)
}

// SetPrivateDNSNameOptions changes the hostname type and DNS records; EC2 changes the
// hostname type only while the instance is stopped.
func (c *AWSClient) SetPrivateDNSNameOptions(ctx context.Context, id string, opts PrivateDNSNameOptions) error {
	c.changing(id)
	_, err := c.api.ModifyPrivateDnsNameOptions(ctx, &awsec2.ModifyPrivateDnsNameOptionsInput{
		InstanceId:                      aws.String(id),
		PrivateDnsHostnameType:          types.HostnameType(opts.HostnameType),
		EnableResourceNameDnsARecord:    aws.Bool(opts.EnableARecord),
		EnableResourceNameDnsAAAARecord: aws.Bool(opts.EnableAAAARecord),
	})
	return awserrors.Classify("ModifyPrivateDnsNameOptions", err)
}

// SetCapacityReservation changes the instance's reservation preference or target;
// EC2 allows it only while the instance is stopped.
func (c *AWSClient) SetCapacityReservation(ctx context.Context, id string, spec CapacityReservationSpec) error {
	c.changing(id)
	_, err := c.api.ModifyInstanceCapacityReservationAttributes(ctx, &awsec2.ModifyInstanceCapacityReservationAttributesInput{
		InstanceId:                       aws.String(id),
		CapacityReservationSpecification: capacityReservationRequest(spec),
	})
	return awserrors.Classify("ModifyInstanceCapacityReservationAttributes", err)
}

// GetCreditSpecification returns a burstable instance's CPU credit option.
func (c *AWSClient) GetCreditSpecification(ctx context.Context, id string) (string, error) {
	out, err := c.api.DescribeInstanceCreditSpecifications(ctx, &awsec2.DescribeInstanceCreditSpecificationsInput{InstanceIds: []string{id}})
	if err != nil {
		return "", awserrors.Classify("DescribeInstanceCreditSpecifications", err)
	}
	for _, s := range out.InstanceCreditSpecifications {
		if aws.ToString(s.InstanceId) == id {
			return aws.ToString(s.CpuCredits), nil
		}
	}
	return "", nil
}

// SetCreditSpecification sets a burstable instance's CPU credit option in place.
func (c *AWSClient) SetCreditSpecification(ctx context.Context, id, credits string) error {
	out, err := c.api.ModifyInstanceCreditSpecification(ctx, &awsec2.ModifyInstanceCreditSpecificationInput{
		InstanceCreditSpecifications: []types.InstanceCreditSpecificationRequest{{InstanceId: aws.String(id), CpuCredits: aws.String(credits)}},
	})
	if err != nil {
		return awserrors.Classify("ModifyInstanceCreditSpecification", err)
	}
	// The call succeeds as a whole and lists the instances it could not change.
	for _, u := range out.UnsuccessfulInstanceCreditSpecifications {
		if u.Error != nil {
			return &awserrors.Error{Kind: awserrors.KindOfCode(string(u.Error.Code)), Operation: "ModifyInstanceCreditSpecification",
				Code: string(u.Error.Code), Message: aws.ToString(u.Error.Message)}
		}
	}
	return nil
}

// capacityReservationRequest converts a spec for RunInstances and the modify call.
func capacityReservationRequest(spec CapacityReservationSpec) *types.CapacityReservationSpecification {
	out := &types.CapacityReservationSpecification{}
	switch {
	case spec.ReservationID != "":
		out.CapacityReservationTarget = &types.CapacityReservationTarget{CapacityReservationId: aws.String(spec.ReservationID)}
	case spec.ResourceGroupARN != "":
		out.CapacityReservationTarget = &types.CapacityReservationTarget{CapacityReservationResourceGroupArn: aws.String(spec.ResourceGroupARN)}
	default:
		out.CapacityReservationPreference = types.CapacityReservationPreference(spec.Preference)
	}
	return out
}

// SetPlacement moves the instance: into group (or out of any group when it is empty),
// to a partition, to a tenancy (dedicated or host), a host or a host resource group,
// and sets the affinity; zero fields are left as they are. EC2 moves only a stopped
// instance; affinity changes at any time.
func (c *AWSClient) SetPlacement(ctx context.Context, id string, p PlacementSpec, changeGroup bool) error {
	c.changing(id)
	in := &awsec2.ModifyInstancePlacementInput{
		InstanceId:           aws.String(id),
		Tenancy:              types.HostTenancy(p.Tenancy),
		HostId:               optString(p.HostID),
		HostResourceGroupArn: optString(p.HostResourceGroupARN),
		Affinity:             types.Affinity(p.Affinity),
	}
	if changeGroup {
		// An empty name takes the instance out of its group.
		in.GroupName = aws.String(p.GroupName)
	}
	if p.PartitionNumber > 0 {
		in.PartitionNumber = aws.Int32(p.PartitionNumber)
	}
	_, err := c.api.ModifyInstancePlacement(ctx, in)
	return awserrors.Classify("ModifyInstancePlacement", err)
}

// SetCPUOptions changes the cores and threads per core; EC2 allows it only while the
// instance is stopped.
func (c *AWSClient) SetCPUOptions(ctx context.Context, id string, o CPUOptions) error {
	c.changing(id)
	_, err := c.api.ModifyInstanceCpuOptions(ctx, &awsec2.ModifyInstanceCpuOptionsInput{
		InstanceId: aws.String(id), CoreCount: aws.Int32(o.CoreCount), ThreadsPerCore: aws.Int32(o.ThreadsPerCore),
	})
	return awserrors.Classify("ModifyInstanceCpuOptions", err)
}
