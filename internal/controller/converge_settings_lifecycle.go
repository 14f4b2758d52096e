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
	"fmt"
	"strconv"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// The settings of the instance's lifecycle, credits, DNS names, CPU and capacity:
// what the spec leaves out is left alone.

func terminationProtectionSetting(in inputs) (drift, bool) {
	a, want := in.seen.attrs, in.spec.WantsTerminationProtection()
	if a == nil || a.TerminationProtection == want {
		return drift{}, false
	}
	return drift{field: "disableApiTermination", desired: strconv.FormatBool(want), actual: strconv.FormatBool(a.TerminationProtection),
		apply: func(ctx context.Context, c settingsClient, id string) error {
			return c.ModifyTerminationProtection(ctx, id, want)
		}}, true
}

// rootVolumeSizeSetting only grows the root volume: EBS cannot shrink one.
func rootVolumeSizeSetting(in inputs) (drift, bool) {
	rv, have := in.spec.RootVolume, in.seen.rootSizeGiB
	if rv == nil || rv.SizeGiB == nil || have <= 0 || *rv.SizeGiB <= have || in.inst.RootVolumeID == "" {
		return drift{}, false
	}
	size, volume := *rv.SizeGiB, in.inst.RootVolumeID
	return drift{field: "rootVolume.sizeGiB", desired: strconv.Itoa(int(size)), actual: strconv.Itoa(int(have)),
		apply: func(ctx context.Context, c settingsClient, _ string) error { return c.ResizeVolume(ctx, volume, size) }}, true
}

func stopProtectionSetting(in inputs) (drift, bool) {
	l, want := in.seen.lifecycle, in.spec.DisableAPIStop
	if l == nil || want == nil || *want == l.StopProtection {
		return drift{}, false
	}
	enabled := *want
	return drift{field: "disableApiStop", desired: strconv.FormatBool(enabled), actual: strconv.FormatBool(l.StopProtection),
		apply: func(ctx context.Context, c settingsClient, id string) error {
			return c.SetStopProtection(ctx, id, enabled)
		}}, true
}

func shutdownBehaviorSetting(in inputs) (drift, bool) {
	l, want := in.seen.lifecycle, in.spec.InstanceInitiatedShutdownBehavior
	if l == nil || want == "" || want == l.ShutdownBehavior {
		return drift{}, false
	}
	return drift{field: "instanceInitiatedShutdownBehavior", desired: want, actual: l.ShutdownBehavior,
		apply: func(ctx context.Context, c settingsClient, id string) error {
			return c.SetShutdownBehavior(ctx, id, want)
		}}, true
}

func autoRecoverySetting(in inputs) (drift, bool) {
	m := in.spec.MaintenanceOptions
	if m == nil || in.inst.AutoRecovery == "" || m.AutoRecovery == in.inst.AutoRecovery {
		return drift{}, false
	}
	want := m.AutoRecovery
	return drift{field: "maintenanceOptions.autoRecovery", desired: want, actual: in.inst.AutoRecovery,
		apply: func(ctx context.Context, c settingsClient, id string) error { return c.SetAutoRecovery(ctx, id, want) }}, true
}

// privateDNSNameSetting: EC2 changes the hostname type only while the instance is
// stopped; the record switches it changes at any time.
func privateDNSNameSetting(in inputs) (drift, bool) {
	p, have := in.spec.PrivateDNSNameOptions, in.inst.PrivateDNSNameOptions
	if p == nil || have.HostnameType == "" {
		return drift{}, false
	}
	want := desiredDNSNameOptions(p)
	if want == have {
		return drift{}, false
	}
	return drift{field: "privateDnsNameOptions", desired: formatDNS(want), actual: formatDNS(have),
		needsStopped: want.HostnameType != have.HostnameType,
		apply: func(ctx context.Context, c settingsClient, id string) error {
			return c.SetPrivateDNSNameOptions(ctx, id, want)
		}}, true
}

func creditsSetting(in inputs) (drift, bool) {
	cs, have := in.spec.CreditSpecification, in.seen.credits
	if cs == nil || have == "" || cs.CPUCredits == have {
		return drift{}, false
	}
	want := cs.CPUCredits
	return drift{field: "creditSpecification.cpuCredits", desired: want, actual: have,
		apply: func(ctx context.Context, c settingsClient, id string) error {
			return c.SetCreditSpecification(ctx, id, want)
		}}, true
}

// cpuOptionsSetting keeps what the spec leaves out of the CPU options as the instance
// has it.
func cpuOptionsSetting(in inputs) (drift, bool) {
	o, have := in.spec.CPUOptions, in.inst.CPUOptions
	if o == nil || have.CoreCount <= 0 {
		return drift{}, false
	}
	want := ec2.CPUOptions{CoreCount: have.CoreCount, ThreadsPerCore: have.ThreadsPerCore}
	if o.CoreCount != nil {
		want.CoreCount = *o.CoreCount
	}
	if o.ThreadsPerCore != nil {
		want.ThreadsPerCore = *o.ThreadsPerCore
	}
	if want == have {
		return drift{}, false
	}
	return drift{field: "cpuOptions", needsStopped: true,
		desired: fmt.Sprintf("%d cores x %d threads", want.CoreCount, want.ThreadsPerCore),
		actual:  fmt.Sprintf("%d cores x %d threads", have.CoreCount, have.ThreadsPerCore),
		apply:   func(ctx context.Context, c settingsClient, id string) error { return c.SetCPUOptions(ctx, id, want) }}, true
}

func capacityReservationSetting(in inputs) (drift, bool) {
	cr := in.spec.CapacityReservation
	if cr == nil {
		return drift{}, false
	}
	want := desiredCapacityReservation(cr)
	if sameReservation(want, in.inst.CapacityReservation) {
		return drift{}, false
	}
	return drift{field: "capacityReservation", desired: formatReservation(want), actual: formatReservation(in.inst.CapacityReservation),
		needsStopped: true,
		apply: func(ctx context.Context, c settingsClient, id string) error {
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
		return "preference " + orNone(c.Preference)
	}
}

func formatDNS(o ec2.PrivateDNSNameOptions) string {
	return "hostnameType=" + o.HostnameType + ",A=" + strconv.FormatBool(o.EnableARecord) + ",AAAA=" + strconv.FormatBool(o.EnableAAAARecord)
}
