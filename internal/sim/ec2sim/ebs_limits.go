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

// The per-type EBS limits below are the documented ones: the valid sizes, IOPS and
// throughput are the ranges the CreateVolume API reference gives for its Size, Iops
// and Throughput parameters (as of the 2016-11-15 API in aws-sdk-go-v2 service/ec2
// v1.344), and the IOPS-to-size and throughput-to-IOPS ratios are those of the
// "Amazon EBS volume types" page of the Amazon EBS User Guide (General Purpose SSD:
// 500 IOPS per GiB and 0.25 MiB/s per IOPS for gp3; Provisioned IOPS SSD: 50 IOPS
// per GiB for io1 and 1,000 IOPS per GiB for io2).

// ebsTypeLimits describes what one EBS volume type accepts. A zero maxIOPS means
// the type takes no Iops parameter, a zero maxThroughput no Throughput parameter.
type ebsTypeLimits struct {
	minSize, maxSize int // GiB
	minIOPS, maxIOPS int
	// baselineIOPS is provisioned when Iops is omitted (gp3) and is always allowed
	// whatever the size, which is why the IOPS ratio only bounds IOPS above it.
	baselineIOPS int
	iopsPerGiB   int
	iopsRequired bool
	// minThroughput is also the default (MiB/s); throughput above it may be at most
	// throughputPerIOPS MiB/s per provisioned IOPS.
	minThroughput, maxThroughput int
	throughputPerIOPS            float64
}

// ebsLimits are the limits of every volume type EC2 offers.
var ebsLimits = map[string]ebsTypeLimits{
	"gp2": {minSize: 1, maxSize: 16384},
	"gp3": {minSize: 1, maxSize: 65536, minIOPS: 3000, maxIOPS: 80000, baselineIOPS: 3000, iopsPerGiB: 500,
		minThroughput: 125, maxThroughput: 2000, throughputPerIOPS: 0.25},
	"io1":      {minSize: 4, maxSize: 16384, minIOPS: 100, maxIOPS: 64000, iopsPerGiB: 50, iopsRequired: true},
	"io2":      {minSize: 4, maxSize: 65536, minIOPS: 100, maxIOPS: 256000, iopsPerGiB: 1000, iopsRequired: true},
	"st1":      {minSize: 125, maxSize: 16384},
	"sc1":      {minSize: 125, maxSize: 16384},
	"standard": {minSize: 1, maxSize: 1024},
}

// volumeTypes lists the types in the order EC2's error message names them.
const volumeTypes = "standard, io1, io2, gp2, sc1, st1, gp3"

// ebsConfig is a volume's type, size and performance as requested; zero IOPS or
// throughput means the parameter was not sent.
type ebsConfig struct {
	volumeType string
	sizeGiB    int
	iops       int
	throughput int
}

// checkVolumeType rejects a type EC2 does not offer.
func checkVolumeType(t string) *apiError {
	if _, ok := ebsLimits[t]; !ok {
		return invalidValue("Value (%s) for parameter volumeType is invalid. Valid values are: %s", t, volumeTypes)
	}
	return nil
}

// check validates c against its type's documented limits, in the order EC2 reports
// them: parameters the type does not take, then size, then IOPS, then throughput.
func (c ebsConfig) check() *apiError {
	if err := checkVolumeType(c.volumeType); err != nil {
		return err
	}
	l := ebsLimits[c.volumeType]
	if c.iops != 0 && l.maxIOPS == 0 {
		return clientErr("InvalidParameterCombination", "The parameter iops is not supported for %s volumes.", c.volumeType)
	}
	if c.throughput != 0 && l.maxThroughput == 0 {
		return clientErr("InvalidParameterCombination", "The parameter throughput is not supported for %s volumes.", c.volumeType)
	}
	if c.iops == 0 && l.iopsRequired {
		return clientErr("InvalidParameterCombination", "The parameter iops must be specified for %s volumes.", c.volumeType)
	}
	if c.sizeGiB < l.minSize {
		return invalidValue("Volume of %dGiB is too small for volume type %s; minimum is %d GiB", c.sizeGiB, c.volumeType, l.minSize)
	}
	if c.sizeGiB > l.maxSize {
		return invalidValue("Volume of %dGiB is too large for volume type %s; maximum is %d GiB", c.sizeGiB, c.volumeType, l.maxSize)
	}
	if c.iops != 0 {
		if c.iops < l.minIOPS {
			return invalidValue("Volume iops of %d is too low; minimum is %d.", c.iops, l.minIOPS)
		}
		if c.iops > l.maxIOPS {
			return invalidValue("Volume iops of %d is too high; maximum is %d.", c.iops, l.maxIOPS)
		}
		if c.iops > l.baselineIOPS && c.iops > l.iopsPerGiB*c.sizeGiB {
			return invalidValue("Iops to volume size ratio of %f is too high; maximum is %f.",
				float64(c.iops)/float64(c.sizeGiB), float64(l.iopsPerGiB))
		}
	}
	if c.throughput != 0 {
		if c.throughput < l.minThroughput {
			return invalidValue("Volume throughput of %d MiB/s is too low; minimum is %d MiB/s.", c.throughput, l.minThroughput)
		}
		if c.throughput > l.maxThroughput {
			return invalidValue("Volume throughput of %d MiB/s is too high; maximum is %d MiB/s.", c.throughput, l.maxThroughput)
		}
		iops := c.iops
		if iops == 0 {
			iops = l.baselineIOPS
		}
		if c.throughput > l.minThroughput && float64(c.throughput) > l.throughputPerIOPS*float64(iops) {
			return invalidValue("Throughput (MiBps) to iops ratio of %f is too high; maximum is %f MiBps per iops.",
				float64(c.throughput)/float64(iops), l.throughputPerIOPS)
		}
	}
	return nil
}

// withDefaults fills in what EBS provisions when IOPS or throughput are omitted:
// gp3's baseline of 3,000 IOPS and 125 MiB/s, and gp2's 3 IOPS per GiB (at least
// 100, at most 16,000), which the volume reports although it cannot be set.
func (c ebsConfig) withDefaults() ebsConfig {
	l := ebsLimits[c.volumeType]
	switch {
	case c.volumeType == "gp2":
		c.iops = min(max(100, 3*c.sizeGiB), 16000)
	case c.iops == 0:
		c.iops = l.baselineIOPS
	}
	if c.throughput == 0 {
		c.throughput = l.minThroughput
	}
	return c
}
