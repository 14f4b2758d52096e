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
	"strconv"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// placementDrift compares the placement the spec asks for with the instance's: the
// group (none when the spec names none), the partition, host and affinity when the
// spec sets them, and the tenancy (default when unset).
func placementSetting(in Inputs) (Drift, bool) { return placementDrift(in.Spec, in.Inst) }

// placementDrift is placementSetting's comparison.
func placementDrift(spec *computev1alpha1.EC2InstanceSpec, inst *ec2.Instance) (Drift, bool) {
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
		return Drift{}, false
	}
	change.GroupName = want.GroupName
	return Drift{Field: "placement", Desired: formatPlacement(want), Actual: formatPlacement(have), NeedsStopped: moves,
		Apply: func(ctx context.Context, c SettingsClient, id string) error {
			return c.SetPlacement(ctx, id, change, groupChanges)
		}}, true
}

func formatPlacement(p ec2.PlacementSpec) string {
	out := "tenancy=" + p.Tenancy + ",group=" + OrNone(p.GroupName)
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
