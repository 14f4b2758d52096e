package controller

import (
	"context"
	"crypto/sha256"
	"fmt"
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
	apply func(ctx context.Context, c ec2.Client, id string) error
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

// findDrift compares every mutable field of the spec with the instance. It is pure, so
// the rules are tested as a table without EC2. userData is the user data the spec asks
// for (userData, or the value userDataFrom names); empty leaves the instance's alone.
func findDrift(obj *computev1alpha1.EC2Instance, inst *ec2.Instance, seen observedAttributes, userData string) []drift {
	spec := &obj.Spec
	var out []drift

	wantGroups := spec.SecurityGroupIDs
	if spec.SecurityGroupSelector != nil {
		// Resolved in this pass (converge), with securityGroupIds included.
		wantGroups = obj.Status.SecurityGroupIDs
	}
	if len(wantGroups) > 0 && !sameSet(wantGroups, inst.SecurityGroupIDs) {
		groups := slices.Clone(wantGroups)
		out = append(out, drift{field: "securityGroupIds", desired: strings.Join(groups, ","), actual: strings.Join(inst.SecurityGroupIDs, ","),
			apply: func(ctx context.Context, c ec2.Client, id string) error {
				return c.ModifySecurityGroups(ctx, id, groups)
			}})
	}

	if want := desiredMetadataOptions(spec); want != inst.MetadataOptions {
		out = append(out, drift{field: "metadataOptions", desired: formatMetadata(want), actual: formatMetadata(inst.MetadataOptions),
			apply: func(ctx context.Context, c ec2.Client, id string) error {
				return c.ModifyMetadataOptions(ctx, id, want)
			}})
	}

	if want := spec.SecondaryPrivateIPAddressCount; want != nil {
		if nic := primaryInterface(inst); nic != nil && len(nic.PrivateIPs) > 0 && int32(len(nic.PrivateIPs)-1) != *want {
			count, eni, secondaries := *want, nic.ID, slices.Clone(nic.PrivateIPs[1:])
			out = append(out, drift{field: "secondaryPrivateIpAddressCount", desired: strconv.Itoa(int(count)), actual: strconv.Itoa(len(secondaries)),
				apply: func(ctx context.Context, c ec2.Client, id string) error {
					return c.SetSecondaryPrivateIPCount(ctx, id, eni, secondaries, count)
				}})
		}
	}

	if want := spec.SourceDestCheck; want != nil && inst.SourceDestCheck != nil && *want != *inst.SourceDestCheck {
		enabled := *want
		out = append(out, drift{field: "sourceDestCheck", desired: strconv.FormatBool(enabled), actual: strconv.FormatBool(*inst.SourceDestCheck),
			apply: func(ctx context.Context, c ec2.Client, id string) error {
				return c.SetSourceDestCheck(ctx, id, enabled)
			}})
	}

	if spec.Monitoring != inst.DetailedMonitoring {
		want := spec.Monitoring
		out = append(out, drift{field: "monitoring", desired: strconv.FormatBool(want), actual: strconv.FormatBool(inst.DetailedMonitoring),
			apply: func(ctx context.Context, c ec2.Client, id string) error {
				return c.SetDetailedMonitoring(ctx, id, want)
			}})
	}

	if p := spec.IAMInstanceProfile; p != "" && !profileMatches(p, inst.IAMInstanceProfileARN) {
		out = append(out, drift{field: "iamInstanceProfile", desired: p, actual: inst.IAMInstanceProfileARN,
			apply: func(ctx context.Context, c ec2.Client, id string) error { return c.SetIAMInstanceProfile(ctx, id, p) }})
	}

	if a := seen.attrs; a != nil && a.TerminationProtection != spec.DisableAPITermination {
		want := spec.DisableAPITermination
		out = append(out, drift{field: "disableApiTermination", desired: strconv.FormatBool(want), actual: strconv.FormatBool(a.TerminationProtection),
			apply: func(ctx context.Context, c ec2.Client, id string) error {
				return c.ModifyTerminationProtection(ctx, id, want)
			}})
	}

	if rv := spec.RootVolume; rv != nil && rv.SizeGiB != nil && seen.rootSizeGiB > 0 && *rv.SizeGiB > seen.rootSizeGiB && inst.RootVolumeID != "" {
		size, volume := *rv.SizeGiB, inst.RootVolumeID
		out = append(out, drift{field: "rootVolume.sizeGiB", desired: strconv.Itoa(int(size)), actual: strconv.Itoa(int(seen.rootSizeGiB)),
			apply: func(ctx context.Context, c ec2.Client, _ string) error { return c.ResizeVolume(ctx, volume, size) }})
	}

	out = append(out, lifecycleDrift(spec, inst, seen)...)

	if spec.InstanceType != inst.InstanceType {
		want := spec.InstanceType
		out = append(out, drift{field: "instanceType", desired: want, actual: inst.InstanceType, needsStopped: true,
			apply: func(ctx context.Context, c ec2.Client, id string) error { return c.ModifyInstanceType(ctx, id, want) }})
	}

	// Omitted user data is left alone: an adopted instance keeps its own.
	if seen.attrs != nil && userData != "" && seen.userData != digestOf(userData) {
		want := userData
		// The values are not shown: user data may hold material users consider private.
		out = append(out, drift{field: "userData", desired: "(spec)", actual: "(instance)", needsStopped: true,
			apply: func(ctx context.Context, c ec2.Client, id string) error { return c.ModifyUserData(ctx, id, want) }})
	}
	return out
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

// lifecycleDrift compares the lifecycle, credit, DNS and capacity options the spec
// sets; what it leaves out is left alone.
func lifecycleDrift(spec *computev1alpha1.EC2InstanceSpec, inst *ec2.Instance, seen observedAttributes) []drift {
	var out []drift
	if l := seen.lifecycle; l != nil {
		if want := spec.DisableAPIStop; want != nil && *want != l.StopProtection {
			enabled := *want
			out = append(out, drift{field: "disableApiStop", desired: strconv.FormatBool(enabled), actual: strconv.FormatBool(l.StopProtection),
				apply: func(ctx context.Context, c ec2.Client, id string) error { return c.SetStopProtection(ctx, id, enabled) }})
		}
		if want := spec.InstanceInitiatedShutdownBehavior; want != "" && want != l.ShutdownBehavior {
			out = append(out, drift{field: "instanceInitiatedShutdownBehavior", desired: want, actual: l.ShutdownBehavior,
				apply: func(ctx context.Context, c ec2.Client, id string) error { return c.SetShutdownBehavior(ctx, id, want) }})
		}
	}
	if m := spec.MaintenanceOptions; m != nil && inst.AutoRecovery != "" && m.AutoRecovery != inst.AutoRecovery {
		want := m.AutoRecovery
		out = append(out, drift{field: "maintenanceOptions.autoRecovery", desired: want, actual: inst.AutoRecovery,
			apply: func(ctx context.Context, c ec2.Client, id string) error { return c.SetAutoRecovery(ctx, id, want) }})
	}
	if p := spec.PrivateDNSNameOptions; p != nil && inst.PrivateDNSNameOptions.HostnameType != "" {
		want := desiredDNSNameOptions(p)
		if have := inst.PrivateDNSNameOptions; want != have {
			// EC2 changes the hostname type only while the instance is stopped; the
			// record switches it changes at any time.
			out = append(out, drift{field: "privateDnsNameOptions", desired: formatDNS(want), actual: formatDNS(have),
				needsStopped: want.HostnameType != have.HostnameType,
				apply: func(ctx context.Context, c ec2.Client, id string) error {
					return c.SetPrivateDNSNameOptions(ctx, id, want)
				}})
		}
	}
	if c := spec.CreditSpecification; c != nil && seen.credits != "" && c.CPUCredits != seen.credits {
		want := c.CPUCredits
		out = append(out, drift{field: "creditSpecification.cpuCredits", desired: want, actual: seen.credits,
			apply: func(ctx context.Context, c ec2.Client, id string) error {
				return c.SetCreditSpecification(ctx, id, want)
			}})
	}
	if c := spec.CPUOptions; c != nil && inst.CPUOptions.CoreCount > 0 {
		want := ec2.CPUOptions{CoreCount: inst.CPUOptions.CoreCount, ThreadsPerCore: inst.CPUOptions.ThreadsPerCore}
		if c.CoreCount != nil {
			want.CoreCount = *c.CoreCount
		}
		if c.ThreadsPerCore != nil {
			want.ThreadsPerCore = *c.ThreadsPerCore
		}
		if want != inst.CPUOptions {
			out = append(out, drift{field: "cpuOptions", needsStopped: true,
				desired: fmt.Sprintf("%d cores x %d threads", want.CoreCount, want.ThreadsPerCore),
				actual:  fmt.Sprintf("%d cores x %d threads", inst.CPUOptions.CoreCount, inst.CPUOptions.ThreadsPerCore),
				apply:   func(ctx context.Context, c ec2.Client, id string) error { return c.SetCPUOptions(ctx, id, want) }})
		}
	}
	if d, ok := placementDrift(spec, inst); ok {
		out = append(out, d)
	}
	if c := spec.CapacityReservation; c != nil && !sameReservation(desiredCapacityReservation(c), inst.CapacityReservation) {
		want := desiredCapacityReservation(c)
		out = append(out, drift{field: "capacityReservation", desired: formatReservation(want), actual: formatReservation(inst.CapacityReservation),
			needsStopped: true,
			apply: func(ctx context.Context, c ec2.Client, id string) error {
				return c.SetCapacityReservation(ctx, id, want)
			}})
	}
	return out
}

// sameReservation compares a wanted reservation setting with what EC2 reports: a
// target is the same target (EC2 reports no preference with it), a preference the
// same preference.
func sameReservation(want, have ec2.CapacityReservationSpec) bool {
	if want.ReservationID != "" || want.ResourceGroupARN != "" {
		return want.ReservationID == have.ReservationID && want.ResourceGroupARN == have.ResourceGroupARN
	}
	return want.Preference == have.Preference && have.ReservationID == "" && have.ResourceGroupARN == ""
}

func formatReservation(c ec2.CapacityReservationSpec) string {
	switch {
	case c.ReservationID != "":
		return "target " + c.ReservationID
	case c.ResourceGroupARN != "":
		return "target " + c.ResourceGroupARN
	default:
		return "preference " + orNone(c.Preference)
	}
}

func formatDNS(o ec2.PrivateDNSNameOptions) string {
	return "hostnameType=" + o.HostnameType + ",A=" + strconv.FormatBool(o.EnableARecord) + ",AAAA=" + strconv.FormatBool(o.EnableAAAARecord)
}

// placementDrift compares the placement the spec asks for with the instance's: the
// group (none when the spec names none), the partition, host and affinity when the
// spec sets them, and the tenancy (default when unset).
func placementDrift(spec *computev1alpha1.EC2InstanceSpec, inst *ec2.Instance) (drift, bool) {
	want := ec2.PlacementSpec{Tenancy: "default"}
	if p := spec.Placement; p != nil {
		want = ec2.PlacementSpec{GroupName: p.GroupName, PartitionNumber: deref(p.PartitionNumber), Tenancy: p.Tenancy,
			HostID: p.HostID, HostResourceGroupARN: p.HostResourceGroupARN, Affinity: p.Affinity}
		if want.Tenancy == "" {
			want.Tenancy = "default"
		}
	}
	have := inst.Placement
	if have.Tenancy == "" {
		have.Tenancy = "default"
	}
	var change ec2.PlacementSpec
	groupChanges := want.GroupName != have.GroupName
	moves := groupChanges
	if want.PartitionNumber > 0 && want.PartitionNumber != have.PartitionNumber {
		change.PartitionNumber, moves = want.PartitionNumber, true
	}
	if want.Tenancy != have.Tenancy {
		change.Tenancy, moves = want.Tenancy, true
	}
	if want.HostID != "" && want.HostID != have.HostID {
		change.HostID, moves = want.HostID, true
	}
	if want.HostResourceGroupARN != "" && want.HostResourceGroupARN != have.HostResourceGroupARN {
		change.HostResourceGroupARN, moves = want.HostResourceGroupARN, true
	}
	affinityChanges := want.Affinity != "" && want.Affinity != have.Affinity
	if affinityChanges {
		change.Affinity = want.Affinity
	}
	if !moves && !affinityChanges {
		return drift{}, false
	}
	change.GroupName = want.GroupName
	return drift{field: "placement", desired: formatPlacement(want), actual: formatPlacement(have), needsStopped: moves,
		apply: func(ctx context.Context, c ec2.Client, id string) error {
			return c.SetPlacement(ctx, id, change, groupChanges)
		}}, true
}

func formatPlacement(p ec2.PlacementSpec) string {
	out := "tenancy=" + p.Tenancy + ",group=" + orNone(p.GroupName)
	if p.PartitionNumber > 0 {
		out += ",partition=" + strconv.Itoa(int(p.PartitionNumber))
	}
	if p.HostID != "" {
		out += ",host=" + p.HostID
	}
	if p.Affinity != "" {
		out += ",affinity=" + p.Affinity
	}
	return out
}
