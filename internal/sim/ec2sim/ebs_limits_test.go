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

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// volumeLimitCase is one request against the documented per-type EBS limits and
// the error code EC2 answers ("" when the volume is valid).
type volumeLimitCase struct {
	name       string
	volumeType types.VolumeType
	size       int32
	iops       int32 // 0 = not sent
	throughput int32 // 0 = not sent
	want       string
}

// volumeLimitCases check each limit of the CreateVolume API reference (valid sizes,
// Iops and Throughput ranges, Iops required for io1 and io2, omitted for other
// types than gp3, io1 and io2, Throughput for gp3 only) and of the "Amazon EBS
// volume types" page (500 IOPS per GiB and 0.25 MiB/s per IOPS for gp3, 50 IOPS
// per GiB for io1, 1,000 for io2), at and just beyond each bound.
var volumeLimitCases = []volumeLimitCase{
	{"gp2 smallest", types.VolumeTypeGp2, 1, 0, 0, ""},
	{"gp2 largest", types.VolumeTypeGp2, 16384, 0, 0, ""},
	{"gp2 too large", types.VolumeTypeGp2, 16385, 0, 0, "InvalidParameterValue"},
	{"gp2 takes no iops", types.VolumeTypeGp2, 100, 3000, 0, "InvalidParameterCombination"},
	{"gp2 takes no throughput", types.VolumeTypeGp2, 100, 0, 250, "InvalidParameterCombination"},
	{"gp3 zero size", types.VolumeTypeGp3, 0, 0, 0, "InvalidParameterValue"},
	{"gp3 largest", types.VolumeTypeGp3, 65536, 0, 0, ""},
	{"gp3 too large", types.VolumeTypeGp3, 65537, 0, 0, "InvalidParameterValue"},
	{"gp3 baseline iops on 1 GiB", types.VolumeTypeGp3, 1, 3000, 0, ""},
	{"gp3 iops below baseline", types.VolumeTypeGp3, 100, 2999, 0, "InvalidParameterValue"},
	{"gp3 most iops", types.VolumeTypeGp3, 160, 80000, 0, ""},
	{"gp3 too many iops", types.VolumeTypeGp3, 1000, 80001, 0, "InvalidParameterValue"},
	{"gp3 500 iops per GiB", types.VolumeTypeGp3, 10, 5000, 0, ""},
	{"gp3 over 500 iops per GiB", types.VolumeTypeGp3, 10, 5001, 0, "InvalidParameterValue"},
	{"gp3 throughput floor", types.VolumeTypeGp3, 1, 0, 124, "InvalidParameterValue"},
	{"gp3 most throughput", types.VolumeTypeGp3, 100, 8000, 2000, ""},
	{"gp3 too much throughput", types.VolumeTypeGp3, 100, 16000, 2001, "InvalidParameterValue"},
	{"gp3 0.25 MiB/s per iops", types.VolumeTypeGp3, 100, 4000, 1000, ""},
	{"gp3 over 0.25 MiB/s per iops", types.VolumeTypeGp3, 100, 4000, 1001, "InvalidParameterValue"},
	{"gp3 throughput over baseline iops ratio", types.VolumeTypeGp3, 100, 0, 751, "InvalidParameterValue"},
	{"io1 needs iops", types.VolumeTypeIo1, 100, 0, 0, "InvalidParameterCombination"},
	{"io1 smallest", types.VolumeTypeIo1, 4, 100, 0, ""},
	{"io1 too small", types.VolumeTypeIo1, 3, 100, 0, "InvalidParameterValue"},
	{"io1 too large", types.VolumeTypeIo1, 16385, 1000, 0, "InvalidParameterValue"},
	{"io1 too few iops", types.VolumeTypeIo1, 100, 99, 0, "InvalidParameterValue"},
	{"io1 50 iops per GiB", types.VolumeTypeIo1, 100, 5000, 0, ""},
	{"io1 over 50 iops per GiB", types.VolumeTypeIo1, 100, 5001, 0, "InvalidParameterValue"},
	{"io1 most iops", types.VolumeTypeIo1, 1280, 64000, 0, ""},
	{"io1 too many iops", types.VolumeTypeIo1, 16000, 64001, 0, "InvalidParameterValue"},
	{"io1 takes no throughput", types.VolumeTypeIo1, 100, 1000, 500, "InvalidParameterCombination"},
	{"io2 needs iops", types.VolumeTypeIo2, 100, 0, 0, "InvalidParameterCombination"},
	{"io2 largest", types.VolumeTypeIo2, 65536, 1000, 0, ""},
	{"io2 too large", types.VolumeTypeIo2, 65537, 1000, 0, "InvalidParameterValue"},
	{"io2 1000 iops per GiB", types.VolumeTypeIo2, 10, 10000, 0, ""},
	{"io2 over 1000 iops per GiB", types.VolumeTypeIo2, 10, 10001, 0, "InvalidParameterValue"},
	{"io2 most iops", types.VolumeTypeIo2, 256, 256000, 0, ""},
	{"io2 too many iops", types.VolumeTypeIo2, 1000, 256001, 0, "InvalidParameterValue"},
	{"st1 smallest", types.VolumeTypeSt1, 125, 0, 0, ""},
	{"st1 too small", types.VolumeTypeSt1, 124, 0, 0, "InvalidParameterValue"},
	{"st1 takes no iops", types.VolumeTypeSt1, 500, 500, 0, "InvalidParameterCombination"},
	{"sc1 too small", types.VolumeTypeSc1, 124, 0, 0, "InvalidParameterValue"},
	{"sc1 too large", types.VolumeTypeSc1, 16385, 0, 0, "InvalidParameterValue"},
	{"standard largest", types.VolumeTypeStandard, 1024, 0, 0, ""},
	{"standard too large", types.VolumeTypeStandard, 1025, 0, 0, "InvalidParameterValue"},
	{"unknown type", types.VolumeType("gp9"), 10, 0, 0, "InvalidParameterValue"},
}

// TestCreateVolumeEnforcesPerTypeLimits runs every limit case through CreateVolume.
func TestCreateVolumeEnforcesPerTypeLimits(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 95})
	for _, tc := range volumeLimitCases {
		t.Run(tc.name, func(t *testing.T) {
			in := &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(tc.size), VolumeType: tc.volumeType}
			if tc.iops != 0 {
				in.Iops = aws.Int32(tc.iops)
			}
			if tc.throughput != 0 {
				in.Throughput = aws.Int32(tc.throughput)
			}
			_, err := c.CreateVolume(simtest.Ctx(t), in)
			simtest.WantCode(t, err, tc.want)
		})
	}
}

// RunInstances' BlockDeviceMapping.N.Ebs describes the same EBS volumes, so the
// same limits apply to it.
func TestRunInstancesBlockDeviceMappingsEnforcePerTypeLimits(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 96})
	for _, tc := range volumeLimitCases {
		if tc.size == 0 || tc.volumeType == "gp9" {
			continue // a mapping without a size takes a default, and the type list differs
		}
		t.Run(tc.name, func(t *testing.T) {
			ebs := &types.EbsBlockDevice{VolumeSize: aws.Int32(tc.size), VolumeType: tc.volumeType}
			if tc.iops != 0 {
				ebs.Iops = aws.Int32(tc.iops)
			}
			if tc.throughput != 0 {
				ebs.Throughput = aws.Int32(tc.throughput)
			}
			in := basicRun()
			in.BlockDeviceMappings = []types.BlockDeviceMapping{{DeviceName: aws.String("/dev/sdf"), Ebs: ebs}}
			_, err := c.RunInstances(simtest.Ctx(t), in)
			simtest.WantCode(t, err, tc.want)
		})
	}
}

// ModifyVolume's target configuration must satisfy the same limits, with the API
// reference's defaults for what is not sent (IOPS kept within a type, 3,000 when
// changing to io1, io2 or gp3), and a failed modification changes nothing.
func TestModifyVolumeEnforcesPerTypeLimits(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 97})
	vol := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(10), VolumeType: types.VolumeTypeGp3})
	modify := func(in *ec2.ModifyVolumeInput) error {
		in.VolumeId = aws.String(vol)
		_, err := c.ModifyVolume(simtest.Ctx(t), in)
		return err
	}
	simtest.WantCode(t, modify(&ec2.ModifyVolumeInput{Iops: aws.Int32(5001)}), "InvalidParameterValue")
	simtest.WantCode(t, modify(&ec2.ModifyVolumeInput{Size: aws.Int32(65537)}), "InvalidParameterValue")
	simtest.WantCode(t, modify(&ec2.ModifyVolumeInput{VolumeType: types.VolumeTypeSt1}), "InvalidParameterValue") // 10 GiB < 125
	// io1 at 3,000 IOPS by default needs 60 GiB at 50 IOPS per GiB.
	simtest.WantCode(t, modify(&ec2.ModifyVolumeInput{VolumeType: types.VolumeTypeIo1}), "InvalidParameterValue")
	simtest.WantCode(t, modify(&ec2.ModifyVolumeInput{VolumeType: types.VolumeTypeGp2, Throughput: aws.Int32(200)}), "InvalidParameterCombination")
	if v, _ := sim.Volume(vol); v.SizeGiB != 10 || v.VolumeType != "gp3" || v.IOPS != 3000 || v.Throughput != 125 || len(v.ModifiedAt) != 0 {
		t.Fatalf("failed modifications changed the volume: %+v", v)
	}
	if err := modify(&ec2.ModifyVolumeInput{VolumeType: types.VolumeTypeIo1, Size: aws.Int32(60)}); err != nil {
		t.Fatal(err)
	}
	if v, _ := sim.Volume(vol); v.VolumeType != "io1" || v.SizeGiB != 60 || v.IOPS != 3000 || v.Throughput != 0 {
		t.Fatalf("after the change to io1: %+v", v)
	}
}
