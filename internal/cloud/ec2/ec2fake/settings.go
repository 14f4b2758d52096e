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

package ec2fake

import (
	"context"
	"slices"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// GetInstanceAttributes returns termination protection and the user data.
func (f *Fake) GetInstanceAttributes(_ context.Context, id string) (*ec2.InstanceAttributes, error) {
	var out *ec2.InstanceAttributes
	err := f.read("GetInstanceAttributes", "DescribeInstanceAttribute", id, func(in *instance) {
		out = &ec2.InstanceAttributes{TerminationProtection: in.protected, UserData: in.userData}
	})
	return out, err
}

// GetLifecycleAttributes returns stop protection and the shutdown behaviour.
func (f *Fake) GetLifecycleAttributes(_ context.Context, id string) (*ec2.LifecycleAttributes, error) {
	var out *ec2.LifecycleAttributes
	err := f.read("GetLifecycleAttributes", "DescribeInstanceAttribute", id, func(in *instance) {
		out = &ec2.LifecycleAttributes{StopProtection: in.stopProtected, ShutdownBehavior: in.shutdownBehavior}
	})
	return out, err
}

// GetCreditSpecification returns the CPU credit option (empty for a type that is not
// burstable).
func (f *Fake) GetCreditSpecification(_ context.Context, id string) (string, error) {
	var out string
	err := f.read("GetCreditSpecification", "DescribeInstanceCreditSpecifications", id, func(in *instance) { out = in.credits })
	return out, err
}

// ModifyInstanceType changes the type of a stopped instance.
func (f *Fake) ModifyInstanceType(_ context.Context, id, instanceType string) error {
	return f.modify("ModifyInstanceType", "ModifyInstanceAttribute", id, true, func(in *instance) error {
		if _, ok := f.types[instanceType]; !ok {
			return errorf("ModifyInstanceAttribute", "InvalidInstanceAttributeValue", "Invalid value '%s' for instanceType.", instanceType)
		}
		in.InstanceType = instanceType
		return nil
	})
}

// ModifySecurityGroups replaces the groups; an unknown group is InvalidGroup.NotFound.
func (f *Fake) ModifySecurityGroups(_ context.Context, id string, groupIDs []string) error {
	return f.modify("ModifySecurityGroups", "ModifyInstanceAttribute", id, false, func(in *instance) error {
		for _, g := range groupIDs {
			if !slices.ContainsFunc(f.groups, func(o securityGroup) bool { return o.ID == g }) {
				return errorf("ModifyInstanceAttribute", "InvalidGroup.NotFound", "The security group '%s' does not exist", g)
			}
		}
		in.SecurityGroupIDs = slices.Clone(groupIDs)
		return nil
	})
}

// ModifyTerminationProtection sets disableApiTermination.
func (f *Fake) ModifyTerminationProtection(_ context.Context, id string, enabled bool) error {
	return f.set("ModifyTerminationProtection", "ModifyInstanceAttribute", id, false, func(in *instance) { in.protected = enabled })
}

// ModifyUserData replaces the user data of a stopped instance.
func (f *Fake) ModifyUserData(_ context.Context, id, userData string) error {
	return f.set("ModifyUserData", "ModifyInstanceAttribute", id, true, func(in *instance) { in.userData = userData })
}

// ModifyMetadataOptions replaces the metadata options, applied at once.
func (f *Fake) ModifyMetadataOptions(_ context.Context, id string, opts ec2.MetadataOptions) error {
	return f.set("ModifyMetadataOptions", "ModifyInstanceMetadataOptions", id, false, func(in *instance) { in.MetadataOptions = opts })
}

// SetDetailedMonitoring turns detailed monitoring on or off.
func (f *Fake) SetDetailedMonitoring(_ context.Context, id string, enabled bool) error {
	return f.set("SetDetailedMonitoring", "MonitorInstances", id, false, func(in *instance) { in.DetailedMonitoring = enabled })
}

// SetIAMInstanceProfile associates the profile, or removes the association.
func (f *Fake) SetIAMInstanceProfile(_ context.Context, id, profile string) error {
	return f.set("SetIAMInstanceProfile", "AssociateIamInstanceProfile", id, false, func(in *instance) {
		in.IAMInstanceProfileARN = profileARN(profile)
	})
}

// SetSourceDestCheck turns the source/destination check on or off.
func (f *Fake) SetSourceDestCheck(_ context.Context, id string, enabled bool) error {
	return f.set("SetSourceDestCheck", "ModifyInstanceAttribute", id, false, func(in *instance) { in.SourceDestCheck = ptr(enabled) })
}

// SetStopProtection sets disableApiStop.
func (f *Fake) SetStopProtection(_ context.Context, id string, enabled bool) error {
	return f.set("SetStopProtection", "ModifyInstanceAttribute", id, false, func(in *instance) { in.stopProtected = enabled })
}

// SetShutdownBehavior sets what a shutdown from inside the instance does.
func (f *Fake) SetShutdownBehavior(_ context.Context, id, behavior string) error {
	return f.set("SetShutdownBehavior", "ModifyInstanceAttribute", id, false, func(in *instance) { in.shutdownBehavior = behavior })
}

// SetAutoRecovery sets simplified automatic recovery.
func (f *Fake) SetAutoRecovery(_ context.Context, id, autoRecovery string) error {
	return f.set("SetAutoRecovery", "ModifyInstanceMaintenanceOptions", id, false, func(in *instance) { in.AutoRecovery = autoRecovery })
}

// SetPrivateDNSNameOptions changes the DNS records at any time and the hostname type
// only while the instance is stopped.
func (f *Fake) SetPrivateDNSNameOptions(_ context.Context, id string, opts ec2.PrivateDNSNameOptions) error {
	return f.modify("SetPrivateDNSNameOptions", "ModifyPrivateDnsNameOptions", id, false, func(in *instance) error {
		if opts.HostnameType != in.PrivateDNSNameOptions.HostnameType && in.State != ec2.StateStopped {
			return notStopped("ModifyPrivateDnsNameOptions", id)
		}
		in.PrivateDNSNameOptions = opts
		return nil
	})
}

// SetCapacityReservation changes the reservation preference or target (stopped only).
func (f *Fake) SetCapacityReservation(_ context.Context, id string, spec ec2.CapacityReservationSpec) error {
	return f.set("SetCapacityReservation", "ModifyInstanceCapacityReservationAttributes", id, true,
		func(in *instance) { in.CapacityReservation = spec })
}

// SetPlacement changes the placement of a stopped instance; changeGroup false keeps
// the group.
func (f *Fake) SetPlacement(_ context.Context, id string, p ec2.PlacementSpec, changeGroup bool) error {
	return f.set("SetPlacement", "ModifyInstancePlacement", id, true, func(in *instance) {
		if !changeGroup {
			p.GroupName = in.Placement.GroupName
		}
		in.Placement = p
	})
}

// SetCPUOptions changes the cores and threads per core (stopped only).
func (f *Fake) SetCPUOptions(_ context.Context, id string, o ec2.CPUOptions) error {
	return f.set("SetCPUOptions", "ModifyInstanceCpuOptions", id, true, func(in *instance) { in.CPUOptions = o })
}

// SetCreditSpecification sets the CPU credit option.
func (f *Fake) SetCreditSpecification(_ context.Context, id, credits string) error {
	return f.set("SetCreditSpecification", "ModifyInstanceCreditSpecification", id, false, func(in *instance) { in.credits = credits })
}

// read logs a call of op and hands the instance to get, whatever its state.
func (f *Fake) read(op, apiOp, id string, get func(*instance)) error {
	return f.withInstance(op, apiOp, id, func(in *instance) error { get(in); return nil })
}

// set is modify for a change that cannot fail.
func (f *Fake) set(op, apiOp, id string, stoppedOnly bool, change func(*instance)) error {
	return f.modify(op, apiOp, id, stoppedOnly, func(in *instance) error { change(in); return nil })
}

// modify logs a call of op and applies change to the instance, refusing, as EC2 does
// for apiOp, a terminating instance and, when stoppedOnly, one that is not stopped.
func (f *Fake) modify(op, apiOp, id string, stoppedOnly bool, change func(*instance) error) error {
	return f.withInstance(op, apiOp, id, func(in *instance) error {
		switch {
		case in.State == ec2.StateShuttingDown || in.State == ec2.StateTerminated:
			return incorrectState(apiOp, id, "modified")
		case stoppedOnly && in.State != ec2.StateStopped:
			return notStopped(apiOp, id)
		}
		return change(in)
	})
}

// withInstance logs a call of op and runs fn on the instance under the lock; an
// unknown instance is InvalidInstanceID.NotFound for apiOp.
func (f *Fake) withInstance(op, apiOp, id string, fn func(*instance) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin(op, id); err != nil {
		return err
	}
	in, err := f.instance(apiOp, id)
	if err != nil {
		return err
	}
	return fn(in)
}

// notStopped is EC2's IncorrectInstanceState for a change allowed only while stopped.
func notStopped(operation, id string) error {
	return errorf(operation, "IncorrectInstanceState", "The instance '%s' is not in the 'stopped' state.", id)
}
