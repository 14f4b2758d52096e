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

package pass

import (
	"slices"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// LaunchVolumes returns the volumes that belong with the instance, which the operator
// tags like it: the volumes it was launched with (status.launchVolumeIds) and the data
// volumes of spec.volumes (status.volumes) that are attached. Volumes attached later by someone else (a CSI driver, a user) are
// not the operator's; tagging them would need permissions the minimal policy does not
// give, and would mark them as the operator's when the object is deleted.
func LaunchVolumes(s *Scope, inst *ec2.Instance) []string {
	known := s.Obj.Status.LaunchVolumeIDs
	if len(known) == 0 && inst.RootVolumeID != "" {
		known = []string{inst.RootVolumeID}
	}
	for _, v := range s.Obj.Status.Volumes {
		if v.VolumeID != "" && !v.Removing && !slices.Contains(known, v.VolumeID) {
			known = append(known, v.VolumeID)
		}
	}
	var out []string
	for _, id := range known {
		if slices.Contains(inst.VolumeIDs, id) {
			out = append(out, id)
		}
	}
	return out
}

// RememberLaunchVolumes records, the first time the operator sees an instance it
// launched, the volumes attached to it then: the ones its launch created.
func RememberLaunchVolumes(s *Scope, inst *ec2.Instance) {
	if len(s.Obj.Status.LaunchVolumeIDs) == 0 {
		s.Obj.Status.LaunchVolumeIDs = slices.Sorted(slices.Values(inst.VolumeIDs))
	}
}

// RememberRootVolume records only the root volume, for an instance the operator did
// not launch (adopted or taken over): what else is attached is not known to be its.
func RememberRootVolume(s *Scope, inst *ec2.Instance) {
	if len(s.Obj.Status.LaunchVolumeIDs) == 0 && inst.RootVolumeID != "" {
		s.Obj.Status.LaunchVolumeIDs = []string{inst.RootVolumeID}
	}
}
