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
	"maps"
	"slices"
	"sort"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/adoption"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// ObservedDrift lists how the instance differs from the fields the spec sets: what
// switching the object to Full would change (or, for the immutable fields, report),
// so that Observe's Synced condition previews Full. It is pure, and reads no more
// than a Full pass would.
//
// Fields the spec leaves unset are compared as they are on the instance (late-
// initialized in a copy, never written): in Observe an unset field asks for nothing,
// not for the operator's launch default. The selectors are not resolved in Observe
// (that would describe subnets and groups on every pass), so the groups are compared
// only when securityGroupIds lists them; userDataFrom is not read (it names a Secret
// or ConfigMap the operator may not be granted), only userData is compared.
func ObservedDrift(obj *computev1alpha1.EC2Instance, inst *ec2.Instance, seen ObservedAttributes) []string {
	compared := obj.DeepCopy()
	spec := &compared.Spec
	spec.SecurityGroupSelector = nil
	spec.UserDataFrom = nil
	adoption.LateInitialize(spec, adoption.Facts{Instance: inst, Attributes: seen.Attrs})
	var out []string
	for _, d := range FindDrift(compared, inst, seen, spec.UserData) {
		out = append(out, d.Field+": "+d.Actual+", spec says "+d.Desired)
	}
	out = append(out, tagDrift(spec.Tags, inst.Tags)...)
	if d, ok := powerDrift(spec, inst.State); ok {
		out = append(out, d)
	}
	for _, f := range ImmutableDifferences(compared, inst) {
		out = append(out, f+", immutable")
	}
	return append(out, volumeDrift(spec.Volumes, inst)...)
}

// tagDrift lists the spec's tags that the instance lacks or has with another value.
// Tags the spec does not name are the instance's own business in Observe.
func tagDrift(want, have map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if v, ok := have[k]; !ok {
			out = append(out, "tags."+k+": missing")
		} else if v != want[k] {
			out = append(out, "tags."+k+": "+v+", spec says "+want[k])
		}
	}
	return out
}

// powerDrift reports a settled instance in another power state than desiredState;
// an instance in transition is not drift yet.
func powerDrift(spec *computev1alpha1.EC2InstanceSpec, state string) (string, bool) {
	switch {
	case state == ec2.StateRunning && !spec.WantsRunning():
		return "desiredState: running, spec says " + string(spec.DesiredState), true
	case state == ec2.StateStopped && spec.WantsRunning():
		return "desiredState: stopped, spec says running", true
	}
	return "", false
}

// volumeDrift lists the spec's data volumes that are not attached at their device.
func volumeDrift(want []computev1alpha1.DataVolume, inst *ec2.Instance) []string {
	attached := map[string]bool{}
	for _, bd := range inst.BlockDevices {
		attached[bd.Device] = true
	}
	var out []string
	for _, v := range want {
		if !attached[v.DeviceName] {
			out = append(out, "volumes["+v.DeviceName+"]: not attached")
		}
	}
	sort.Strings(out)
	return out
}
