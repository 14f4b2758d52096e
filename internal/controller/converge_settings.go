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

package controller

import (
	"context"
	"crypto/sha256"
	"slices"
	"strconv"
	"strings"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// drift is one mutable field whose value on the instance differs from the spec.
type drift struct {
	// field is the spec field, as users write it (it labels events and metrics).
	field string
	// desired and actual are shown in the event that reports the correction.
	desired, actual string
	// needsStopped marks changes EC2 accepts only while the instance is stopped.
	needsStopped bool
	// apply makes the change.
	apply func(ctx context.Context, c settingsClient, id string) error
}

// observedAttributes are the values that cost extra calls to read; nil fields were not
// read in this pass and are not compared.
type observedAttributes struct {
	// attrs are EC2's answer without the user data, which is kept only as its digest:
	// what is remembered of every instance for an hour must not be a copy of what
	// may be a tenant's Secret.
	attrs       *ec2.InstanceAttributes
	userData    userDataDigest
	rootSizeGiB int32
	// lifecycle is read only when the spec sets stop protection or the shutdown
	// behaviour, credits only when it sets a credit specification.
	lifecycle *ec2.LifecycleAttributes
	credits   string
}

// userDataDigest is the SHA-256 of an instance's user data.
type userDataDigest [sha256.Size]byte

func digestOf(userData string) userDataDigest { return sha256.Sum256([]byte(userData)) }

// observedFrom keeps EC2's answer with the user data replaced by its digest.
func observedFrom(attrs *ec2.InstanceAttributes) observedAttributes {
	kept := *attrs
	kept.UserData = ""
	return observedAttributes{attrs: &kept, userData: digestOf(attrs.UserData)}
}

// settingsClient is what the settings' changes call: the instance's settings, and the
// two changes EC2 files under volumes (the root volume's size) and network interfaces
// (secondary addresses).
type settingsClient interface {
	ec2.InstanceSettings
	ResizeVolume(ctx context.Context, volumeID string, sizeGiB int32) error
	SetSecondaryPrivateIPCount(ctx context.Context, instanceID, networkInterfaceID string, secondaries []string, count int32) error
}

// inputs are what the settings compare: the object, the instance as
// DescribeInstances has it, the extra attributes read in this pass (nil fields were not
// read and are not compared) and the user data the spec asks for.
type inputs struct {
	obj      *computev1alpha1.EC2Instance
	spec     *computev1alpha1.EC2InstanceSpec
	inst     *ec2.Instance
	seen     observedAttributes
	userData string
}

// setting plans one mutable setting: it compares what the spec wants with what EC2
// has, and returns the change that closes the gap when they differ. Plans are pure, so
// their rules are tested as tables without EC2.
type setting func(in inputs) (drift, bool)

// settings are compared, and their changes applied, in this order. Adding a setting
// is one plan and one entry here.
var settings = []setting{
	securityGroupsSetting, metadataOptionsSetting, secondaryAddressesSetting, sourceDestCheckSetting,
	monitoringSetting, instanceProfileSetting, terminationProtectionSetting, rootVolumeSizeSetting,
	stopProtectionSetting, shutdownBehaviorSetting, autoRecoverySetting, privateDNSNameSetting,
	creditsSetting, cpuOptionsSetting, placementSetting, capacityReservationSetting,
	instanceTypeSetting, userDataSetting,
}

// findDrift compares every mutable setting of the spec with the instance. userData is
// the user data the spec asks for (userData, or the value userDataFrom names); empty
// leaves the instance's alone.
func findDrift(obj *computev1alpha1.EC2Instance, inst *ec2.Instance, seen observedAttributes, userData string) []drift {
	in := inputs{obj: obj, spec: &obj.Spec, inst: inst, seen: seen, userData: userData}
	var out []drift
	for _, plan := range settings {
		if d, ok := plan(in); ok {
			out = append(out, d)
		}
	}
	return out
}

func securityGroupsSetting(in inputs) (drift, bool) {
	want := in.spec.SecurityGroupIDs
	if in.spec.SecurityGroupSelector != nil {
		// Resolved in this pass (converge), with securityGroupIds included.
		want = in.obj.Status.SecurityGroupIDs
	}
	if len(want) == 0 || sameSet(want, in.inst.SecurityGroupIDs) {
		return drift{}, false
	}
	groups := slices.Clone(want)
	return drift{field: "securityGroupIds", desired: strings.Join(groups, ","), actual: strings.Join(in.inst.SecurityGroupIDs, ","),
		apply: func(ctx context.Context, c settingsClient, id string) error {
			return c.ModifySecurityGroups(ctx, id, groups)
		}}, true
}

func metadataOptionsSetting(in inputs) (drift, bool) {
	want := desiredMetadataOptions(in.spec)
	if want == in.inst.MetadataOptions {
		return drift{}, false
	}
	return drift{field: "metadataOptions", desired: formatMetadata(want), actual: formatMetadata(in.inst.MetadataOptions),
		apply: func(ctx context.Context, c settingsClient, id string) error {
			return c.ModifyMetadataOptions(ctx, id, want)
		}}, true
}

func secondaryAddressesSetting(in inputs) (drift, bool) {
	want := in.spec.SecondaryPrivateIPAddressCount
	nic := primaryInterface(in.inst)
	if want == nil || nic == nil || len(nic.PrivateIPs) == 0 || int32(len(nic.PrivateIPs)-1) == *want {
		return drift{}, false
	}
	count, eni, secondaries := *want, nic.ID, slices.Clone(nic.PrivateIPs[1:])
	return drift{field: "secondaryPrivateIpAddressCount", desired: strconv.Itoa(int(count)), actual: strconv.Itoa(len(secondaries)),
		apply: func(ctx context.Context, c settingsClient, id string) error {
			return c.SetSecondaryPrivateIPCount(ctx, id, eni, secondaries, count)
		}}, true
}

func sourceDestCheckSetting(in inputs) (drift, bool) {
	want, have := in.spec.SourceDestCheck, in.inst.SourceDestCheck
	if want == nil || have == nil || *want == *have {
		return drift{}, false
	}
	enabled := *want
	return drift{field: "sourceDestCheck", desired: strconv.FormatBool(enabled), actual: strconv.FormatBool(*have),
		apply: func(ctx context.Context, c settingsClient, id string) error {
			return c.SetSourceDestCheck(ctx, id, enabled)
		}}, true
}

func monitoringSetting(in inputs) (drift, bool) {
	want := in.spec.WantsMonitoring()
	if want == in.inst.DetailedMonitoring {
		return drift{}, false
	}
	return drift{field: "monitoring", desired: strconv.FormatBool(want), actual: strconv.FormatBool(in.inst.DetailedMonitoring),
		apply: func(ctx context.Context, c settingsClient, id string) error {
			return c.SetDetailedMonitoring(ctx, id, want)
		}}, true
}

func instanceProfileSetting(in inputs) (drift, bool) {
	p := in.spec.IAMInstanceProfile
	if p == "" || profileMatches(p, in.inst.IAMInstanceProfileARN) {
		return drift{}, false
	}
	return drift{field: "iamInstanceProfile", desired: p, actual: in.inst.IAMInstanceProfileARN,
		apply: func(ctx context.Context, c settingsClient, id string) error {
			return c.SetIAMInstanceProfile(ctx, id, p)
		}}, true
}

func instanceTypeSetting(in inputs) (drift, bool) {
	want := in.spec.InstanceType
	// An adopted object may leave the type to late-initialization: unset is "as it is".
	if want == "" || want == in.inst.InstanceType {
		return drift{}, false
	}
	return drift{field: "instanceType", desired: want, actual: in.inst.InstanceType, needsStopped: true,
		apply: func(ctx context.Context, c settingsClient, id string) error {
			return c.ModifyInstanceType(ctx, id, want)
		}}, true
}

// userDataSetting leaves omitted user data alone: an adopted instance keeps its own.
func userDataSetting(in inputs) (drift, bool) {
	want := in.userData
	if in.seen.attrs == nil || want == "" || in.seen.userData == digestOf(want) {
		return drift{}, false
	}
	// The values are not shown: user data may hold material users consider private.
	return drift{field: "userData", desired: "(spec)", actual: "(instance)", needsStopped: true,
		apply: func(ctx context.Context, c settingsClient, id string) error { return c.ModifyUserData(ctx, id, want) }}, true
}

// immutableDifferences lists the immutable fields in which an adopted instance differs
// from the spec. The operator reports them instead of fighting them: changing them
// would mean replacing an instance it did not create.
func immutableDifferences(obj *computev1alpha1.EC2Instance, inst *ec2.Instance) []string {
	spec := &obj.Spec
	var out []string
	if strings.HasPrefix(spec.ImageID, "ami-") && spec.ImageID != inst.ImageID {
		out = append(out, "imageId (instance has "+inst.ImageID+")")
	}
	if spec.SubnetID != "" && spec.SubnetID != inst.SubnetID {
		out = append(out, "subnetId (instance has "+inst.SubnetID+")")
	}
	if spec.PrivateIPAddress != "" && spec.PrivateIPAddress != inst.PrivateIP {
		out = append(out, "privateIpAddress (instance has "+orNone(inst.PrivateIP)+")")
	}
	if spec.KeyName != "" && spec.KeyName != inst.KeyName {
		out = append(out, "keyName (instance has "+orNone(inst.KeyName)+")")
	}
	if spec.AvailabilityZone != "" && spec.AvailabilityZone != inst.AvailabilityZone {
		out = append(out, "availabilityZone (instance has "+inst.AvailabilityZone+")")
	}
	if (spec.Spot != nil) != inst.Spot {
		out = append(out, "spot (instance is "+map[bool]string{true: "a Spot", false: "an On-Demand"}[inst.Spot]+" instance)")
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// profileMatches compares a profile given by name or ARN with the ARN EC2 reports.
func profileMatches(spec, actualARN string) bool {
	if actualARN == "" {
		return false
	}
	if strings.HasPrefix(spec, "arn:") {
		return spec == actualARN
	}
	// An ARN ends in instance-profile/<path><name>; a name alone matches the last part.
	return strings.HasSuffix(actualARN, "/"+spec)
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func formatMetadata(m ec2.MetadataOptions) string {
	return "httpTokens=" + m.HTTPTokens + ",hopLimit=" + strconv.Itoa(int(m.HTTPPutResponseHopLimit)) + ",httpEndpoint=" + m.HTTPEndpoint +
		",instanceMetadataTags=" + m.InstanceMetadataTags + ",httpProtocolIpv6=" + m.HTTPProtocolIPv6
}
