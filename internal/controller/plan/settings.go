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

package plan

import (
	"context"
	"crypto/sha256"
	"slices"
	"strconv"
	"strings"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// Drift is one mutable field whose value on the instance differs from the spec.
type Drift struct {
	// field is the spec field, as users write it (it labels events and metrics).
	Field string
	// desired and actual are shown in the event that reports the correction.
	Desired, Actual string
	// needsStopped marks changes EC2 accepts only while the instance is stopped.
	NeedsStopped bool
	// apply makes the change.
	Apply func(ctx context.Context, c SettingsClient, id string) error
}

// ObservedAttributes are the values that cost extra calls to read; nil fields were not
// read in this pass and are not compared.
type ObservedAttributes struct {
	// attrs are EC2's answer without the user data, which is kept only as its digest:
	// what is remembered of every instance for an hour must not be a copy of what
	// may be a tenant's Secret.
	Attrs       *ec2.InstanceAttributes
	UserData    UserDataDigest
	RootSizeGiB int32
	// lifecycle is read only when the spec sets stop protection or the shutdown
	// behaviour, credits only when it sets a credit specification.
	Lifecycle *ec2.LifecycleAttributes
	Credits   string
}

// LaunchedAttributes are the attributes an instance launched from the object's spec
// has, as observeAttributes would read them.
func LaunchedAttributes(obj *computev1alpha1.EC2Instance, userData string) ObservedAttributes {
	seen := Observed(&ec2.InstanceAttributes{
		TerminationProtection: obj.Spec.WantsTerminationProtection(),
		UserData:              userData,
	})
	if rv := obj.Spec.RootVolume; rv != nil && rv.SizeGiB != nil {
		seen.RootSizeGiB = *rv.SizeGiB
	}
	if spec := &obj.Spec; spec.DisableAPIStop != nil || spec.InstanceInitiatedShutdownBehavior != "" {
		seen.Lifecycle = &ec2.LifecycleAttributes{ShutdownBehavior: "stop"}
		if spec.DisableAPIStop != nil {
			seen.Lifecycle.StopProtection = *spec.DisableAPIStop
		}
		if spec.InstanceInitiatedShutdownBehavior != "" {
			seen.Lifecycle.ShutdownBehavior = spec.InstanceInitiatedShutdownBehavior
		}
	}
	if c := obj.Spec.CreditSpecification; c != nil {
		seen.Credits = c.CPUCredits
	}
	return seen
}

// UserDataDigest is the SHA-256 of an instance's user data.
type UserDataDigest [sha256.Size]byte

// DigestOf is the digest of userData.
func DigestOf(userData string) UserDataDigest { return sha256.Sum256([]byte(userData)) }

// Observed keeps EC2's answer with the user data replaced by its digest.
func Observed(attrs *ec2.InstanceAttributes) ObservedAttributes {
	kept := *attrs
	kept.UserData = ""
	return ObservedAttributes{Attrs: &kept, UserData: DigestOf(attrs.UserData)}
}

// SettingsClient is what the settings' changes call: the instance's settings, and the
// two changes EC2 files under volumes (the root volume's size) and network interfaces
// (secondary addresses).
type SettingsClient interface {
	ec2.InstanceSettings
	ResizeVolume(ctx context.Context, volumeID string, sizeGiB int32) error
	SetSecondaryPrivateIPCount(ctx context.Context, instanceID, networkInterfaceID string, secondaries []string, count int32) error
}

// Inputs are what the settings compare: the object, the instance as
// DescribeInstances has it, the extra attributes read in this pass (nil fields were not
// read and are not compared) and the user data the spec asks for.
type Inputs struct {
	Obj      *computev1alpha1.EC2Instance
	Spec     *computev1alpha1.EC2InstanceSpec
	Inst     *ec2.Instance
	Seen     ObservedAttributes
	UserData string
}

// Setting plans one mutable setting: it compares what the spec wants with what EC2
// has, and returns the change that closes the gap when they differ. Plans are pure, so
// their rules are tested as tables without EC2.
type Setting func(in Inputs) (Drift, bool)

// Settings are compared, and their changes applied, in this order. Adding a setting
// is one plan and one entry here.
var Settings = []Setting{
	securityGroupsSetting, metadataOptionsSetting, secondaryAddressesSetting, sourceDestCheckSetting,
	monitoringSetting, instanceProfileSetting, terminationProtectionSetting, rootVolumeSizeSetting,
	stopProtectionSetting, shutdownBehaviorSetting, autoRecoverySetting, privateDNSNameSetting,
	creditsSetting, cpuOptionsSetting, placementSetting, capacityReservationSetting,
	instanceTypeSetting, userDataSetting,
}

// FindDrift compares every mutable setting of the spec with the instance. userData is
// the user data the spec asks for (userData, or the value userDataFrom names); empty
// leaves the instance's alone.
func FindDrift(obj *computev1alpha1.EC2Instance, inst *ec2.Instance, seen ObservedAttributes, userData string) []Drift {
	in := Inputs{Obj: obj, Spec: &obj.Spec, Inst: inst, Seen: seen, UserData: userData}
	var out []Drift
	for _, plan := range Settings {
		if d, ok := plan(in); ok {
			out = append(out, d)
		}
	}
	return out
}

func securityGroupsSetting(in Inputs) (Drift, bool) {
	want := in.Spec.SecurityGroupIDs
	if in.Spec.SecurityGroupSelector != nil {
		// Resolved in this pass (converge), with securityGroupIds included.
		want = in.Obj.Status.SecurityGroupIDs
	}
	if len(want) == 0 || sameSet(want, in.Inst.SecurityGroupIDs) {
		return Drift{}, false
	}
	groups := slices.Clone(want)
	return Drift{Field: "securityGroupIds", Desired: strings.Join(groups, ","), Actual: strings.Join(in.Inst.SecurityGroupIDs, ","),
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.ModifySecurityGroups(ctx, id, groups)
		}}, true
}

func metadataOptionsSetting(in Inputs) (Drift, bool) {
	want := DesiredMetadataOptions(in.Spec)
	if want == in.Inst.MetadataOptions {
		return Drift{}, false
	}
	return Drift{Field: "metadataOptions", Desired: formatMetadata(want), Actual: formatMetadata(in.Inst.MetadataOptions),
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.ModifyMetadataOptions(ctx, id, want)
		}}, true
}

func secondaryAddressesSetting(in Inputs) (Drift, bool) {
	want := in.Spec.SecondaryPrivateIPAddressCount
	nic := in.Inst.PrimaryInterface()
	if want == nil || nic == nil || len(nic.PrivateIPs) == 0 || int32(len(nic.PrivateIPs)-1) == *want {
		return Drift{}, false
	}
	count, eni, secondaries := *want, nic.ID, slices.Clone(nic.PrivateIPs[1:])
	return Drift{Field: "secondaryPrivateIpAddressCount", Desired: strconv.Itoa(int(count)), Actual: strconv.Itoa(len(secondaries)),
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.SetSecondaryPrivateIPCount(ctx, id, eni, secondaries, count)
		}}, true
}

func sourceDestCheckSetting(in Inputs) (Drift, bool) {
	want, have := in.Spec.SourceDestCheck, in.Inst.SourceDestCheck
	if want == nil || have == nil || *want == *have {
		return Drift{}, false
	}
	enabled := *want
	return Drift{Field: "sourceDestCheck", Desired: strconv.FormatBool(enabled), Actual: strconv.FormatBool(*have),
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.SetSourceDestCheck(ctx, id, enabled)
		}}, true
}

func monitoringSetting(in Inputs) (Drift, bool) {
	want := in.Spec.WantsMonitoring()
	if want == in.Inst.DetailedMonitoring {
		return Drift{}, false
	}
	return Drift{Field: "monitoring", Desired: strconv.FormatBool(want), Actual: strconv.FormatBool(in.Inst.DetailedMonitoring),
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.SetDetailedMonitoring(ctx, id, want)
		}}, true
}

func instanceProfileSetting(in Inputs) (Drift, bool) {
	p := in.Spec.IAMInstanceProfile
	if p == "" || profileMatches(p, in.Inst.IAMInstanceProfileARN) {
		return Drift{}, false
	}
	return Drift{Field: "iamInstanceProfile", Desired: p, Actual: in.Inst.IAMInstanceProfileARN,
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.SetIAMInstanceProfile(ctx, id, p)
		}}, true
}

func instanceTypeSetting(in Inputs) (Drift, bool) {
	want := in.Spec.InstanceType
	// An adopted object may leave the type to late-initialization: unset is "as it is".
	if want == "" || want == in.Inst.InstanceType {
		return Drift{}, false
	}
	return Drift{Field: "instanceType", Desired: want, Actual: in.Inst.InstanceType, NeedsStopped: true,
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.ModifyInstanceType(ctx, id, want)
		}}, true
}

// userDataSetting leaves omitted user data alone: an adopted instance keeps its own.
func userDataSetting(in Inputs) (Drift, bool) {
	want := in.UserData
	if in.Seen.Attrs == nil || want == "" || in.Seen.UserData == DigestOf(want) {
		return Drift{}, false
	}
	// The values are not shown: user data may hold material users consider private.
	return Drift{Field: "userData", Desired: "(spec)", Actual: "(instance)", NeedsStopped: true,
		Apply: func(ctx context.Context, c SettingsClient, id string) error { return c.ModifyUserData(ctx, id, want) }}, true
}

// ImmutableDifferences lists the immutable fields in which an adopted instance differs
// from the spec. The operator reports them instead of fighting them: changing them
// would mean replacing an instance it did not create.
func ImmutableDifferences(obj *computev1alpha1.EC2Instance, inst *ec2.Instance) []string {
	spec := &obj.Spec
	var out []string
	if strings.HasPrefix(spec.ImageID, "ami-") && spec.ImageID != inst.ImageID {
		out = append(out, "imageId (instance has "+inst.ImageID+")")
	}
	if spec.SubnetID != "" && spec.SubnetID != inst.SubnetID {
		out = append(out, "subnetId (instance has "+inst.SubnetID+")")
	}
	if spec.PrivateIPAddress != "" && spec.PrivateIPAddress != inst.PrivateIP {
		out = append(out, "privateIpAddress (instance has "+OrNone(inst.PrivateIP)+")")
	}
	if spec.KeyName != "" && spec.KeyName != inst.KeyName {
		out = append(out, "keyName (instance has "+OrNone(inst.KeyName)+")")
	}
	if spec.AvailabilityZone != "" && spec.AvailabilityZone != inst.AvailabilityZone {
		out = append(out, "availabilityZone (instance has "+inst.AvailabilityZone+")")
	}
	if (spec.Spot != nil) != inst.Spot {
		out = append(out, "spot (instance is "+map[bool]string{true: "a Spot", false: "an On-Demand"}[inst.Spot]+" instance)")
	}
	return out
}

// OrNone shows an empty value as "none" in events and messages.
func OrNone(s string) string {
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
