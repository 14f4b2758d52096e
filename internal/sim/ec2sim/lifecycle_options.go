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

package ec2sim

import "strings"

// InstanceOptions are an instance's CPU, credit, hibernation, stop,
// shutdown, maintenance and hostname settings: what RunInstances chose and
// the Modify* actions changed since.
type InstanceOptions struct {
	// DisableAPIStop is stop protection: StopInstances refuses the instance.
	DisableAPIStop bool
	// ShutdownBehavior is what a shutdown from the OS does: "stop" or
	// "terminate"; "" means EC2's default, "stop".
	ShutdownBehavior string
	// HibernationConfigured is set at launch only; it allows StopInstances
	// with Hibernate.
	HibernationConfigured bool
	// CoreCount and ThreadsPerCore are the CPU options chosen at launch; zero
	// means the instance type's defaults.
	CoreCount      int
	ThreadsPerCore int
	// CPUCredits is "standard" or "unlimited" for burstable instances; ""
	// means the current type's default (see creditDefault).
	CPUCredits string
	// AutoRecovery is "default" or "disabled"; "" means "default".
	AutoRecovery string
	// HostnameType is "ip-name" or "resource-name"; "" means "ip-name".
	HostnameType string
	// ResourceNameDNSA and ResourceNameDNSAAAA answer DNS A and AAAA queries
	// for the resource-name hostname.
	ResourceNameDNSA    bool
	ResourceNameDNSAAAA bool
}

// shutdownBehavior is the effective instance-initiated shutdown behaviour.
func (o InstanceOptions) shutdownBehavior() string {
	if o.ShutdownBehavior == "" {
		return "stop"
	}
	return o.ShutdownBehavior
}

// autoRecovery is the effective auto-recovery setting.
func (o InstanceOptions) autoRecovery() string {
	if o.AutoRecovery == "" {
		return "default"
	}
	return o.AutoRecovery
}

// hostnameType is the effective private hostname type.
func (o InstanceOptions) hostnameType() string {
	if o.HostnameType == "" {
		return "ip-name"
	}
	return o.HostnameType
}

// parseInstanceOptions validates the RunInstances members behind
// InstanceOptions. It runs after the image, block devices and market options
// are parsed, because hibernation depends on all three.
func (s *Sim) parseInstanceOptions(p params, spec *launchSpec) *apiError {
	o := &spec.options
	o.DisableAPIStop, _ = p.boolean("DisableApiStop")
	if o.DisableAPIStop && spec.spot {
		// The User Guide's "Enable stop protection" says stop protection is not
		// available for Spot Instances; the error code and message are our
		// guess, modelled on the termination protection error.
		return clientErr("InvalidParameterCombination", "You can't enable stop protection for Spot Instances.")
	}
	if v := p.str("InstanceInitiatedShutdownBehavior"); v != "" {
		if err := checkShutdownBehavior(v); err != nil {
			return err
		}
		o.ShutdownBehavior = v
	}
	if err := parseCPUOptions(p.sub("CpuOptions"), p.hasAny("CpuOptions"), spec); err != nil {
		return err
	}
	if err := parseCreditSpecification(p, spec); err != nil {
		return err
	}
	if err := parseHibernation(p, spec); err != nil {
		return err
	}
	if v := p.str("MaintenanceOptions.AutoRecovery"); v != "" {
		if err := checkAutoRecovery(v); err != nil {
			return err
		}
		o.AutoRecovery = v
	}
	return parsePrivateDNSOptions(p.sub("PrivateDnsNameOptions"), o)
}

// checkShutdownBehavior validates InstanceInitiatedShutdownBehavior. The
// message follows EC2's InvalidParameterValue pattern; its exact wording is
// a guess.
func checkShutdownBehavior(v string) *apiError {
	if v != "stop" && v != "terminate" {
		return invalidValue("Value (%s) for parameter instanceInitiatedShutdownBehavior is invalid. Valid values are: stop, terminate", v)
	}
	return nil
}

// checkAutoRecovery validates an AutoRecovery value (InstanceAutoRecoveryState:
// default, disabled). The message's wording is a guess.
func checkAutoRecovery(v string) *apiError {
	if v != "default" && v != "disabled" {
		return invalidValue("Value (%s) for parameter AutoRecovery is invalid. Valid values are: default, disabled", v)
	}
	return nil
}

// writeInstanceOptions renders the DescribeInstances elements for the
// options: cpuOptions, hibernationOptions, maintenanceOptions and
// privateDnsNameOptions (credits, stop protection and shutdown behaviour are
// instance attributes that DescribeInstances does not report).
func writeInstanceOptions(x *xmlBuilder, r *InstanceRecord) {
	cores, threads := effectiveCPU(r)
	x.open("cpuOptions")
	x.intLeaf("coreCount", cores)
	x.intLeaf("threadsPerCore", threads)
	x.close("cpuOptions")
	x.open("hibernationOptions")
	x.boolLeaf("configured", r.HibernationConfigured)
	x.close("hibernationOptions")
	x.open("maintenanceOptions")
	x.leaf("autoRecovery", r.autoRecovery())
	x.close("maintenanceOptions")
	x.open("privateDnsNameOptions")
	x.leaf("hostnameType", r.hostnameType())
	x.boolLeaf("enableResourceNameDnsARecord", r.ResourceNameDNSA)
	x.boolLeaf("enableResourceNameDnsAAAARecord", r.ResourceNameDNSAAAA)
	x.close("privateDnsNameOptions")
}

// ipv6OrDefault is the IMDS IPv6 endpoint setting, "disabled" when unset.
func ipv6OrDefault(v string) string {
	if v == "" {
		return "disabled"
	}
	return v
}

// modifyStopAttribute applies ModifyInstanceAttribute's DisableApiStop and
// InstanceInitiatedShutdownBehavior; the User Guide allows both while the
// instance is running or stopped.
func modifyStopAttribute(in *instance, attr string, value func(string) string) *apiError {
	if attr == "disableApiStop" {
		on := strings.EqualFold(value("DisableApiStop"), "true")
		if on && in.Spot {
			return clientErr("InvalidParameterCombination", "You can't enable stop protection for Spot Instances.")
		}
		in.DisableAPIStop = on
		return nil
	}
	v := value("InstanceInitiatedShutdownBehavior")
	if err := checkShutdownBehavior(v); err != nil {
		return err
	}
	in.ShutdownBehavior = v
	return nil
}
