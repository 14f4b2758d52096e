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

import "time"

// modifyVolume implements ModifyVolume for size, type, IOPS and throughput.
// Modifications complete instantly; EBS volumes can only grow. The target
// configuration must satisfy the same per-type limits as CreateVolume, and the
// API reference's defaults apply to what is not sent: the IOPS are kept when the
// type is kept and are 3,000 when changing to gp3, io1 or io2; the throughput is
// kept from gp3 to gp3 and is otherwise 125 MiB/s. Nothing changes when the
// request fails.
func (s *Sim) modifyVolume(p params, x *xmlBuilder) *apiError {
	id := p.str("VolumeId")
	if id == "" {
		return missingParam("VolumeId")
	}
	if err := s.lookupVolumes([]string{id}); err != nil {
		return err
	}
	v := s.volumes[id]
	// EC2 allows four modifications per volume in any 24 hours (since January 2026;
	// before, one per six hours) and answers more with VolumeModificationRateExceeded.
	var recent []time.Time
	for _, t := range v.ModifiedAt {
		if s.now().Sub(t) < 24*time.Hour {
			recent = append(recent, t)
		}
	}
	if len(recent) >= maxVolumeModificationsPerDay {
		return clientErr("VolumeModificationRateExceeded",
			"You've reached the maximum modification rate per volume limit. Wait at least 6 hours between modifications per EBS volume.")
	}
	target, err := modifiedConfig(p, v)
	if err != nil {
		return err
	}
	orig := v.clone()
	v.SizeGiB, v.VolumeType, v.IOPS, v.Throughput = target.sizeGiB, target.volumeType, target.iops, target.throughput
	v.ModifiedAt = append(recent, s.now())
	v.ModificationState, v.OriginalSizeGiB = "completed", orig.SizeGiB
	x.open("volumeModification")
	x.leaf("volumeId", v.ID)
	x.leaf("modificationState", "modifying")
	x.intLeaf("targetSize", v.SizeGiB)
	x.leaf("targetVolumeType", v.VolumeType)
	x.intLeaf("targetIops", v.IOPS)
	x.intLeaf("targetThroughput", v.Throughput)
	x.intLeaf("originalSize", orig.SizeGiB)
	x.leaf("originalVolumeType", orig.VolumeType)
	x.intLeaf("originalIops", orig.IOPS)
	x.intLeaf("originalThroughput", orig.Throughput)
	x.intLeaf("progress", 0)
	x.timeLeaf("startTime", s.now())
	x.close("volumeModification")
	return nil
}

// modifiedConfig computes and validates the configuration a ModifyVolume request
// asks for, without changing the volume.
func modifiedConfig(p params, v *VolumeRecord) (ebsConfig, *apiError) {
	target := ebsConfig{volumeType: v.VolumeType, sizeGiB: v.SizeGiB}
	if t := p.str("VolumeType"); t != "" {
		if err := checkVolumeType(t); err != nil {
			return target, err
		}
		target.volumeType = t
	}
	if p.has("Size") {
		size, ok := p.integer("Size")
		if !ok {
			return target, invalidValue("Value (%s) for parameter size is invalid. Expected an integer.", p.str("Size"))
		}
		if size < v.SizeGiB {
			return target, invalidValue("New size cannot be smaller than existing size")
		}
		target.sizeGiB = size
	}
	sameType := target.volumeType == v.VolumeType
	switch n, ok := p.integer("Iops"); {
	case p.has("Iops") && !ok:
		return target, invalidValue("Value (%s) for parameter iops is invalid. Expected an integer.", p.str("Iops"))
	case ok:
		target.iops = n
	case sameType && target.volumeType != "gp2":
		target.iops = v.IOPS
	case target.volumeType == "gp3" || target.volumeType == "io1" || target.volumeType == "io2":
		target.iops = 3000
	}
	switch n, ok := p.integer("Throughput"); {
	case p.has("Throughput") && !ok:
		return target, invalidValue("Value (%s) for parameter throughput is invalid. Expected an integer.", p.str("Throughput"))
	case ok:
		target.throughput = n
	case sameType && target.volumeType == "gp3":
		target.throughput = v.Throughput
	}
	if err := target.check(); err != nil {
		return target, err
	}
	return target.withDefaults(), nil
}
