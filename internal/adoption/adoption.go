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

// Package adoption describes an existing EC2 instance in the terms of the
// EC2Instance API. The operator uses it to late-initialize the fields an adopting
// object leaves unset, and the import command to write manifests for a fleet: both
// must say the same thing about the same instance, so the mapping lives once, here.
package adoption

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// Facts is what is known about one instance: what DescribeInstances returns, and
// what takes further read-only calls when the caller made them.
type Facts struct {
	// Instance is DescribeInstances' answer.
	Instance *ec2.Instance
	// Attributes are termination protection and user data (DescribeInstanceAttribute);
	// nil when they were not read, and then disableApiTermination is not filled in.
	Attributes *ec2.InstanceAttributes
	// SpotInterruptionBehavior is the Spot request's behavior (terminate, stop or
	// hibernate), for a Spot Instance; empty when unknown.
	SpotInterruptionBehavior string
	// ElasticIPAllocationID is the Elastic IP associated with the primary interface,
	// if any.
	ElasticIPAllocationID string
}

// maxSpecTags is how many tags the API accepts in spec.tags.
const maxSpecTags = 44

// SpecFromInstance is the spec that describes the instance as it is: the fields an
// import writes. Fields the operator leaves alone while unset, and fields EC2 cannot
// report faithfully (the root volume, data volumes, user data), stay unset, so that
// applying the spec asks for nothing the instance does not already have.
func SpecFromInstance(f Facts) computev1alpha1.EC2InstanceSpec {
	inst := f.Instance
	spec := computev1alpha1.EC2InstanceSpec{
		InstanceID:       inst.ID,
		InstanceType:     inst.InstanceType,
		ImageID:          inst.ImageID,
		SubnetID:         inst.SubnetID,
		AvailabilityZone: inst.AvailabilityZone,
		KeyName:          inst.KeyName,
		PrivateIPAddress: inst.PrivateIP,
	}
	lateInitInto(&spec, f)
	if inst.Spot {
		spec.Spot = &computev1alpha1.SpotOptions{}
		if b := f.SpotInterruptionBehavior; b != "" {
			spec.Spot.InterruptionBehavior = computev1alpha1.SpotInterruptionBehavior(b)
		}
	}
	if f.ElasticIPAllocationID != "" {
		spec.ElasticIP = &computev1alpha1.ElasticIP{AllocationID: f.ElasticIPAllocationID}
	}
	return spec
}

// LateInitialize fills every late-initialized field that spec leaves unset with the
// instance's value, and returns the names of the fields it filled (none: nothing to
// write). Fields the user set are never touched: they are converged as usual.
func LateInitialize(spec *computev1alpha1.EC2InstanceSpec, f Facts) []string {
	from := computev1alpha1.EC2InstanceSpec{InstanceType: f.Instance.InstanceType}
	if spec.ImageSelector == nil {
		from.ImageID = f.Instance.ImageID
	}
	lateInitInto(&from, f)
	if spec.SecurityGroupSelector != nil {
		// The selector decides the groups; filling securityGroupIds would add every
		// group the instance has now to whatever the selector picks.
		from.SecurityGroupIDs = nil
	}
	var filled []string
	fill := func(name string, unset bool, set func()) {
		if unset {
			set()
			filled = append(filled, name)
		}
	}
	fill("instanceType", spec.InstanceType == "" && from.InstanceType != "", func() { spec.InstanceType = from.InstanceType })
	fill("imageId", spec.ImageID == "" && from.ImageID != "", func() { spec.ImageID = from.ImageID })
	fill("metadataOptions", spec.MetadataOptions == nil && from.MetadataOptions != nil, func() { spec.MetadataOptions = from.MetadataOptions })
	fill("monitoring", spec.Monitoring == nil, func() { spec.Monitoring = from.Monitoring })
	fill("disableApiTermination", spec.DisableAPITermination == nil && from.DisableAPITermination != nil,
		func() { spec.DisableAPITermination = from.DisableAPITermination })
	fill("desiredState", spec.DesiredState == "" && from.DesiredState != "", func() { spec.DesiredState = from.DesiredState })
	fill("tags", spec.Tags == nil && from.Tags != nil, func() { spec.Tags = from.Tags })
	fill("securityGroupIds", len(spec.SecurityGroupIDs) == 0 && len(from.SecurityGroupIDs) > 0,
		func() { spec.SecurityGroupIDs = from.SecurityGroupIDs })
	fill("iamInstanceProfile", spec.IAMInstanceProfile == "" && from.IAMInstanceProfile != "",
		func() { spec.IAMInstanceProfile = from.IAMInstanceProfile })
	fill("sourceDestCheck", spec.SourceDestCheck == nil && from.SourceDestCheck != nil,
		func() { spec.SourceDestCheck = from.SourceDestCheck })
	return filled
}

// LateInitialized names the fields LateInitialize may fill, in the order the
// documentation lists them.
var LateInitialized = []string{"instanceType", "imageId", "metadataOptions", "monitoring",
	"disableApiTermination", "desiredState", "tags", "securityGroupIds", "iamInstanceProfile", "sourceDestCheck"}

// lateInitInto sets the late-initialized fields of spec from the facts.
func lateInitInto(spec *computev1alpha1.EC2InstanceSpec, f Facts) {
	inst := f.Instance
	spec.MetadataOptions = metadataOptionsOf(inst.MetadataOptions)
	spec.Monitoring = ptr.To(inst.DetailedMonitoring)
	if f.Attributes != nil {
		spec.DisableAPITermination = ptr.To(f.Attributes.TerminationProtection)
	}
	spec.DesiredState = desiredStateOf(inst.State)
	spec.Tags = UserTags(inst.Tags, inst.MetadataOptions.InstanceMetadataTags == "enabled")
	spec.SecurityGroupIDs = sortedCopy(inst.SecurityGroupIDs)
	spec.IAMInstanceProfile = inst.IAMInstanceProfileARN
	if inst.SourceDestCheck != nil {
		spec.SourceDestCheck = ptr.To(*inst.SourceDestCheck)
	}
}

// metadataOptionsOf is the instance's IMDS options in the API's terms; nil when EC2
// reported none (an instance being launched).
func metadataOptionsOf(m ec2.MetadataOptions) *computev1alpha1.MetadataOptions {
	if m.HTTPTokens == "" && m.HTTPEndpoint == "" {
		return nil
	}
	return &computev1alpha1.MetadataOptions{
		HTTPTokens:              computev1alpha1.HTTPTokensState(m.HTTPTokens),
		HTTPPutResponseHopLimit: m.HTTPPutResponseHopLimit,
		HTTPEndpoint:            computev1alpha1.EndpointState(m.HTTPEndpoint),
		InstanceMetadataTags:    computev1alpha1.EndpointState(m.InstanceMetadataTags),
		HTTPProtocolIPv6:        computev1alpha1.EndpointState(m.HTTPProtocolIPv6),
	}
}

// desiredStateOf is the power state that keeps the instance as it is: a stopping
// instance is on its way to stopped, a pending one to running.
func desiredStateOf(state string) computev1alpha1.DesiredState {
	switch state {
	case ec2.StateRunning, ec2.StatePending:
		return computev1alpha1.DesiredStateRunning
	case ec2.StateStopped, ec2.StateStopping:
		return computev1alpha1.DesiredStateStopped
	}
	return ""
}

// imdsTagKey is the form EC2 (and the API) allow for tag keys while tags are exposed
// in instance metadata.
var imdsTagKey = regexp.MustCompile(`^[a-zA-Z0-9+=.,_:@-]+$`)

// UserTags are the instance's tags that spec.tags can hold: not AWS's (aws:), not the
// operator's own (ec2-operator.dev), within the API's limits. When the tags cannot
// all be held (too many, or keys the API refuses), it returns nil: spec.tags then
// stays unset, and unset tags are left alone, which is what adopting must do.
func UserTags(tags map[string]string, metadataTags bool) map[string]string {
	out := map[string]string{}
	for k, v := range tags {
		lower := strings.ToLower(k)
		if strings.HasPrefix(lower, "aws:") || ec2.IsOwnershipKey(k) ||
			strings.HasPrefix(k, "ec2-operator.dev/") || strings.HasPrefix(k, "ec2-operator.dev:") {
			continue
		}
		if len(k) > 128 || len(v) > 256 {
			return nil
		}
		if metadataTags && (!imdsTagKey.MatchString(k) || slices.Contains([]string{".", "..", "_index", "_links"}, k)) {
			return nil
		}
		out[k] = v
	}
	limit := maxSpecTags
	if metadataTags {
		limit = 43
	}
	if len(out) == 0 || len(out) > limit {
		return nil
	}
	return out
}

func sortedCopy(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	out := slices.Clone(in)
	sort.Strings(out)
	return out
}
