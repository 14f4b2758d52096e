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
	"fmt"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// This file translates spec.volumes: the API's defaults, the requests sent to EC2 for
// them, and what a volume must change to match its spec.

// SpecVolume returns the spec's volume at device, or nil.
func SpecVolume(obj *computev1alpha1.EC2Instance, device string) *computev1alpha1.DataVolume {
	for i := range obj.Spec.Volumes {
		if obj.Spec.Volumes[i].DeviceName == device {
			return &obj.Spec.Volumes[i]
		}
	}
	return nil
}

// DeleteOnTermination applies the API's default (true) to a volume.
func DeleteOnTermination(v computev1alpha1.DataVolume) bool {
	return v.DeleteOnTermination == nil || *v.DeleteOnTermination
}

// volumeType applies the API's default (gp3) to a volume.
func volumeType(v computev1alpha1.DataVolume) string {
	if v.Type == "" {
		return "gp3"
	}
	return string(v.Type)
}

// VolumeRequest translates a spec volume for RunInstances or CreateVolume.
func VolumeRequest(v computev1alpha1.DataVolume) ec2.VolumeRequest {
	return ec2.VolumeRequest{
		Device: v.DeviceName, SizeGiB: deref(v.SizeGiB), Type: volumeType(v), IOPS: deref(v.IOPS), Throughput: deref(v.Throughput),
		Encrypted: v.Encrypted, KMSKeyID: v.KMSKeyID, SnapshotID: v.SnapshotID, DeleteOnTermination: DeleteOnTermination(v),
	}
}

// VolumeChange is what ModifyVolume must change for the volume to match the spec,
// judged from what status last recorded. Fields the spec leaves unset are left alone,
// and a size is only ever grown.
func VolumeChange(v *computev1alpha1.DataVolume, e *computev1alpha1.VolumeStatus) ec2.VolumeChange {
	if v == nil || e.Type == "" {
		return ec2.VolumeChange{}
	}
	var c ec2.VolumeChange
	if v.SizeGiB != nil && *v.SizeGiB > e.SizeGiB {
		c.SizeGiB = *v.SizeGiB
	}
	if t := volumeType(*v); t != e.Type {
		c.Type = t
	}
	if v.IOPS != nil && *v.IOPS != e.IOPS {
		c.IOPS = *v.IOPS
	}
	if v.Throughput != nil && *v.Throughput != e.Throughput {
		c.Throughput = *v.Throughput
	}
	return c
}

// ApplyChange records in the volume's status what a ModifyVolume EBS accepted changed.
func ApplyChange(e *computev1alpha1.VolumeStatus, c ec2.VolumeChange) {
	if c.SizeGiB > 0 {
		e.SizeGiB = c.SizeGiB
	}
	if c.Type != "" {
		e.Type = c.Type
	}
	if c.IOPS > 0 {
		e.IOPS = c.IOPS
	}
	if c.Throughput > 0 {
		e.Throughput = c.Throughput
	}
}

// DescribeVolume is a volume's status as events show it.
func DescribeVolume(e computev1alpha1.VolumeStatus) string {
	return fmt.Sprintf("%s %dGiB iops=%d throughput=%d", e.Type, e.SizeGiB, e.IOPS, e.Throughput)
}

// DescribeChange is a ModifyVolume's change as events show it: only what it sets.
func DescribeChange(c ec2.VolumeChange) string {
	out := ""
	if c.Type != "" {
		out += " type=" + c.Type
	}
	if c.SizeGiB > 0 {
		out += fmt.Sprintf(" size=%dGiB", c.SizeGiB)
	}
	if c.IOPS > 0 {
		out += fmt.Sprintf(" iops=%d", c.IOPS)
	}
	if c.Throughput > 0 {
		out += fmt.Sprintf(" throughput=%d", c.Throughput)
	}
	return out[1:]
}

func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// FromSpec records a volume launched from v as EBS creates it: the spec's values, and
// EBS's documented defaults for what the spec leaves out (gp3: 3,000 IOPS and 125
// MiB/s; gp2: 3 IOPS per GiB, at least 100 and at most 16,000).
func FromSpec(e *computev1alpha1.VolumeStatus, v computev1alpha1.DataVolume) {
	e.Type, e.SizeGiB, e.IOPS, e.Throughput = volumeType(v), deref(v.SizeGiB), deref(v.IOPS), deref(v.Throughput)
	switch e.Type {
	case "gp3":
		if e.IOPS == 0 {
			e.IOPS = 3000
		}
		if e.Throughput == 0 {
			e.Throughput = 125
		}
	case "gp2":
		e.IOPS = min(max(100, 3*e.SizeGiB), 16000)
	}
	e.State = "in-use"
}
