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
	"fmt"
	"strconv"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// The settings of the instance's lifecycle, credits, DNS names, CPU and capacity:
// what the spec leaves out is left alone.

func terminationProtectionSetting(in Inputs) (Drift, bool) {
	a, want := in.Seen.Attrs, in.Spec.WantsTerminationProtection()
	if a == nil || a.TerminationProtection == want {
		return Drift{}, false
	}
	return Drift{Field: "disableApiTermination", Desired: strconv.FormatBool(want), Actual: strconv.FormatBool(a.TerminationProtection),
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.ModifyTerminationProtection(ctx, id, want)
		}}, true
}

// rootVolumeSizeSetting only grows the root volume: EBS cannot shrink one.
func rootVolumeSizeSetting(in Inputs) (Drift, bool) {
	rv, have := in.Spec.RootVolume, in.Seen.RootSizeGiB
	if rv == nil || rv.SizeGiB == nil || have <= 0 || *rv.SizeGiB <= have || in.Inst.RootVolumeID == "" {
		return Drift{}, false
	}
	size, volume := *rv.SizeGiB, in.Inst.RootVolumeID
	return Drift{Field: "rootVolume.sizeGiB", Desired: strconv.Itoa(int(size)), Actual: strconv.Itoa(int(have)),
		Apply: func(ctx context.Context, c SettingsClient, _ string) error { return c.ResizeVolume(ctx, volume, size) }}, true
}

func stopProtectionSetting(in Inputs) (Drift, bool) {
	l, want := in.Seen.Lifecycle, in.Spec.DisableAPIStop
	if l == nil || want == nil || *want == l.StopProtection {
		return Drift{}, false
	}
	enabled := *want
	return Drift{Field: "disableApiStop", Desired: strconv.FormatBool(enabled), Actual: strconv.FormatBool(l.StopProtection),
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.SetStopProtection(ctx, id, enabled)
		}}, true
}

func shutdownBehaviorSetting(in Inputs) (Drift, bool) {
	l, want := in.Seen.Lifecycle, in.Spec.InstanceInitiatedShutdownBehavior
	if l == nil || want == "" || want == l.ShutdownBehavior {
		return Drift{}, false
	}
	return Drift{Field: "instanceInitiatedShutdownBehavior", Desired: want, Actual: l.ShutdownBehavior,
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.SetShutdownBehavior(ctx, id, want)
		}}, true
}

func autoRecoverySetting(in Inputs) (Drift, bool) {
	m := in.Spec.MaintenanceOptions
	if m == nil || in.Inst.AutoRecovery == "" || m.AutoRecovery == in.Inst.AutoRecovery {
		return Drift{}, false
	}
	want := m.AutoRecovery
	return Drift{Field: "maintenanceOptions.autoRecovery", Desired: want, Actual: in.Inst.AutoRecovery,
		Apply: func(ctx context.Context, c SettingsClient, id string) error { return c.SetAutoRecovery(ctx, id, want) }}, true
}

// privateDNSNameSetting: EC2 changes the hostname type only while the instance is
// stopped; the record switches it changes at any time.
func privateDNSNameSetting(in Inputs) (Drift, bool) {
	p, have := in.Spec.PrivateDNSNameOptions, in.Inst.PrivateDNSNameOptions
	if p == nil || have.HostnameType == "" {
		return Drift{}, false
	}
	want := desiredDNSNameOptions(p)
	if want == have {
		return Drift{}, false
	}
	return Drift{Field: "privateDnsNameOptions", Desired: formatDNS(want), Actual: formatDNS(have),
		NeedsStopped: want.HostnameType != have.HostnameType,
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.SetPrivateDNSNameOptions(ctx, id, want)
		}}, true
}

func creditsSetting(in Inputs) (Drift, bool) {
	cs, have := in.Spec.CreditSpecification, in.Seen.Credits
	if cs == nil || have == "" || cs.CPUCredits == have {
		return Drift{}, false
	}
	want := cs.CPUCredits
	return Drift{Field: "creditSpecification.cpuCredits", Desired: want, Actual: have,
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.SetCreditSpecification(ctx, id, want)
		}}, true
}

// cpuOptionsSetting keeps what the spec leaves out of the CPU options as the instance
// has it.
func cpuOptionsSetting(in Inputs) (Drift, bool) {
	o, have := in.Spec.CPUOptions, in.Inst.CPUOptions
	if o == nil || have.CoreCount <= 0 {
		return Drift{}, false
	}
	want := ec2.CPUOptions{CoreCount: have.CoreCount, ThreadsPerCore: have.ThreadsPerCore}
	if o.CoreCount != nil {
		want.CoreCount = *o.CoreCount
	}
	if o.ThreadsPerCore != nil {
		want.ThreadsPerCore = *o.ThreadsPerCore
	}
	if want == have {
		return Drift{}, false
	}
	return Drift{Field: "cpuOptions", NeedsStopped: true,
		Desired: fmt.Sprintf("%d cores x %d threads", want.CoreCount, want.ThreadsPerCore),
		Actual:  fmt.Sprintf("%d cores x %d threads", have.CoreCount, have.ThreadsPerCore),
		Apply:   func(ctx context.Context, c SettingsClient, id string) error { return c.SetCPUOptions(ctx, id, want) }}, true
}

func capacityReservationSetting(in Inputs) (Drift, bool) {
	cr := in.Spec.CapacityReservation
	if cr == nil {
		return Drift{}, false
	}
	want := desiredCapacityReservation(cr)
	if sameReservation(want, in.Inst.CapacityReservation) {
		return Drift{}, false
	}
	return Drift{Field: "capacityReservation", Desired: formatReservation(want), Actual: formatReservation(in.Inst.CapacityReservation),
		NeedsStopped: true,
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.SetCapacityReservation(ctx, id, want)
		}}, true
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
		return "preference " + OrNone(c.Preference)
	}
}

func formatDNS(o ec2.PrivateDNSNameOptions) string {
	return "hostnameType=" + o.HostnameType + ",A=" + strconv.FormatBool(o.EnableARecord) + ",AAAA=" + strconv.FormatBool(o.EnableAAAARecord)
}
