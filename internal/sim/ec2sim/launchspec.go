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
	"encoding/base64"
	"strings"
)

// maxUserDataBytes is EC2's documented user-data limit: 16 KB of raw data,
// before base64 encoding.
const maxUserDataBytes = 16384

// launchSpec is a validated RunInstances request.
type launchSpec struct {
	image          *Image
	instanceType   string
	count          int
	minCount       int
	subnet         *Subnet
	groupIDs       []string
	publicIP       bool
	nic            nicSpec
	keyName        string
	profileARN     string
	userData       []byte
	disableAPITerm bool
	monitoring     bool
	metadata       MetadataOptions
	root           volumeSpec
	extraVolumes   []volumeSpec
	instanceTags   map[string]string
	volumeTags     map[string]string
	spot           bool
	spotType       string
	spotBehavior   string
	spotMaxPrice   string
	options        InstanceOptions
	placement      placementSpec
}

// volumeSpec is one EBS volume to create at launch.
type volumeSpec struct {
	device              string
	sizeGiB             int
	volumeType          string
	iops                int
	throughput          int
	deleteOnTermination bool
	encrypted           bool
	snapshotID          string
}

// parseLaunch validates a RunInstances request in roughly the order EC2
// reports problems: parameters, then the image, then placement and
// networking, then the remaining referenced resources.
func (s *Sim) parseLaunch(p params) (*launchSpec, *apiError) {
	spec := &launchSpec{}
	for _, step := range launchSteps {
		if err := step(s, p, spec); err != nil {
			return nil, err
		}
	}
	return spec, checkIMDSTags(spec.metadata, spec.instanceTags)
}

// launchSteps read a RunInstances request into a launch spec, in the order EC2
// validates it: a request with several faults gets the error of the first.
var launchSteps = []func(s *Sim, p params, spec *launchSpec) *apiError{
	func(_ *Sim, p params, spec *launchSpec) *apiError { return parseCount(p, spec) },
	(*Sim).parseImageAndType,
	(*Sim).parseNetwork,
	(*Sim).parseMisc,
	(*Sim).parseBlockDevices,
	func(_ *Sim, p params, spec *launchSpec) *apiError { return parseMarket(p, spec) },
	(*Sim).parsePlacement,
	(*Sim).parseInstanceOptions,
	func(_ *Sim, _ params, spec *launchSpec) *apiError {
		if spec.spot && spec.disableAPITerm {
			return clientErr("InvalidParameterCombination", "You can't enable termination protection for Spot Instances.")
		}
		return nil
	},
	(*Sim).parseTagSpecs,
}

// parseCount reads MinCount and MaxCount; how many are launched is decided with the
// capacity (launchCount).
func parseCount(p params, spec *launchSpec) *apiError {
	minC, okMin := p.integer("MinCount")
	maxC, okMax := p.integer("MaxCount")
	if !p.has("MinCount") {
		return missingParam("MinCount")
	}
	if !p.has("MaxCount") {
		return missingParam("MaxCount")
	}
	if !okMin || !okMax || minC < 1 {
		return invalidValue("Value (%s) for parameter minCount is invalid. Expected a positive integer.", p.str("MinCount"))
	}
	if maxC < minC {
		return invalidValue("Value (%d) for parameter maxCount is invalid. Expected a value greater than or equal to minCount (%d).", maxC, minC)
	}
	spec.count, spec.minCount = maxC, minC
	return nil
}

// parseImageAndType resolves the image and the instance type, whose
// architectures must match.
func (s *Sim) parseImageAndType(p params, spec *launchSpec) *apiError {
	img, err := s.resolveImage(p.str("ImageId"))
	if err != nil {
		return err
	}
	spec.image = img
	spec.instanceType = p.str("InstanceType")
	if spec.instanceType == "" {
		spec.instanceType = defaultInstanceType
	}
	arch, known := instanceTypeArch(spec.instanceType)
	if !known {
		return invalidValue("Invalid value '%s' for InstanceType.", spec.instanceType)
	}
	if arch != img.Architecture {
		return invalidValue("The architecture '%s' of the specified instance type does not match the architecture '%s' of the specified AMI. Specify an instance type and an AMI that have matching architectures, and try launching again.", arch, img.Architecture)
	}
	return nil
}

// parseMisc validates key pair, instance profile, user data, monitoring,
// termination protection and metadata options.
func (s *Sim) parseMisc(p params, spec *launchSpec) *apiError {
	if k := p.str("KeyName"); k != "" {
		if !s.keyPairs[k] {
			return clientErr("InvalidKeyPair.NotFound", "The key pair '%s' does not exist", k)
		}
		spec.keyName = k
	}
	if p.hasAny("IamInstanceProfile") {
		arn, err := s.resolveProfile(p.sub("IamInstanceProfile"))
		if err != nil {
			return err
		}
		spec.profileARN = arn
	}
	if raw := p.str("UserData"); raw != "" {
		data, err := base64.StdEncoding.DecodeString(raw)
		if err != nil {
			return clientErr("InvalidUserData.Malformed", "Invalid BASE64 encoding of user data.")
		}
		if len(data) > maxUserDataBytes {
			return invalidValue("User data is limited to %d bytes", maxUserDataBytes)
		}
		spec.userData = data
	}
	spec.monitoring, _ = p.boolean("Monitoring.Enabled")
	spec.disableAPITerm, _ = p.boolean("DisableApiTermination")
	md, err := parseMetadataOptions(p.sub("MetadataOptions"), defaultMetadata(spec.image))
	if err != nil {
		return err
	}
	spec.metadata = md
	return nil
}

// defaultMetadata applies EC2's documented defaults: an AMI with
// ImdsSupport v2.0 launches with IMDSv2 required and a hop limit of 2;
// otherwise tokens are optional with a hop limit of 1.
func defaultMetadata(img *Image) MetadataOptions {
	md := MetadataOptions{HTTPTokens: "optional", HopLimit: 1, HTTPEndpoint: "enabled", InstanceMetadataTags: "disabled", HTTPProtocolIPv6: "disabled"}
	if img != nil && img.ImdsSupport == "v2.0" {
		md.HTTPTokens, md.HopLimit = "required", 2
	}
	return md
}

// parseMetadataOptions overlays the sent metadata options on base.
func parseMetadataOptions(p params, base MetadataOptions) (MetadataOptions, *apiError) {
	md := base
	if v := p.str("HttpTokens"); v != "" {
		if v != "optional" && v != "required" {
			return md, invalidValue("Value (%s) for parameter HttpTokens is invalid. Valid values are: optional, required", v)
		}
		md.HTTPTokens = v
	}
	if p.has("HttpPutResponseHopLimit") {
		n, ok := p.integer("HttpPutResponseHopLimit")
		if !ok || n < 1 || n > 64 {
			return md, invalidValue("Value (%s) for parameter HttpPutResponseHopLimit is invalid. Valid values are integers from 1 to 64.", p.str("HttpPutResponseHopLimit"))
		}
		md.HopLimit = n
	}
	if v := p.str("HttpEndpoint"); v != "" {
		if v != "enabled" && v != "disabled" {
			return md, invalidValue("Value (%s) for parameter HttpEndpoint is invalid. Valid values are: enabled, disabled", v)
		}
		md.HTTPEndpoint = v
	}
	if v := p.str("InstanceMetadataTags"); v != "" {
		if v != "enabled" && v != "disabled" {
			return md, invalidValue("Value (%s) for parameter InstanceMetadataTags is invalid. Valid values are: enabled, disabled", v)
		}
		md.InstanceMetadataTags = v
	}
	if v := p.str("HttpProtocolIpv6"); v != "" {
		if v != "enabled" && v != "disabled" {
			return md, invalidValue("Value (%s) for parameter HttpProtocolIpv6 is invalid. Valid values are: enabled, disabled", v)
		}
		md.HTTPProtocolIPv6 = v
	}
	return md, nil
}

// resolveProfile checks an IamInstanceProfile structure (Name and/or Arn)
// and returns the profile's ARN.
func (s *Sim) resolveProfile(p params) (string, *apiError) {
	name, arn := p.str("Name"), p.str("Arn")
	if name == "" && arn == "" {
		return "", missingParam("IamInstanceProfile.Name or IamInstanceProfile.Arn")
	}
	if arn != "" {
		n, ok := strings.CutPrefix(arn, "arn:aws:iam::"+s.cfg.AccountID+":instance-profile/")
		if i := strings.LastIndexByte(n, '/'); i >= 0 {
			n = n[i+1:] // profiles may have paths
		}
		if !ok || !s.profiles[n] || (name != "" && name != n) {
			return "", invalidValue("Value (%s) for parameter iamInstanceProfile.arn is invalid. Invalid IAM Instance Profile ARN", arn)
		}
		return arn, nil
	}
	if !s.profiles[name] {
		return "", invalidValue("Value (%s) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name", name)
	}
	return s.profileARN(name), nil
}

// parseBlockDevices validates BlockDeviceMapping.N against the image's
// root device and collects the volumes to create.
func (s *Sim) parseBlockDevices(p params, spec *launchSpec) *apiError {
	img := spec.image
	spec.root = volumeSpec{device: img.RootDeviceName, sizeGiB: img.RootSizeGiB, volumeType: "gp3", deleteOnTermination: true, snapshotID: img.SnapshotID}
	for _, m := range p.items("BlockDeviceMapping") {
		dev := m.str("DeviceName")
		if dev == "" {
			return missingParam("BlockDeviceMapping.DeviceName")
		}
		if _, noDev := m.v[m.key("NoDevice")]; noDev {
			continue
		}
		isRoot := dev == img.RootDeviceName
		// A mapping of the root device changes the image's root volume; any other
		// adds a volume, 8 GiB of gp3 unless it says otherwise.
		vol := volumeSpec{device: dev, volumeType: "gp3", deleteOnTermination: true, sizeGiB: 8}
		if isRoot {
			vol = spec.root
		}
		vol, err := s.mappedVolume(m.sub("Ebs"), vol, img, isRoot)
		if err != nil {
			return err
		}
		if isRoot {
			spec.root = vol
		} else {
			spec.extraVolumes = append(spec.extraVolumes, vol)
		}
	}
	return nil
}

// ebsVolumeTypes are the volume types a block device mapping may ask for.
var ebsVolumeTypes = []string{"gp2", "gp3", "io1", "io2", "st1", "sc1", "standard"}

// mappedVolume applies a mapping's Ebs settings to vol (the root volume of img
// when isRoot) and checks the result against the same per-type limits as
// CreateVolume's.
func (s *Sim) mappedVolume(e params, vol volumeSpec, img *Image, isRoot bool) (volumeSpec, *apiError) {
	if snap := e.str("SnapshotId"); snap != "" && !isRoot {
		// A mapping restores the snapshot like CreateVolume does: the snapshot must
		// exist in this region, and the volume defaults to its size.
		size, err := s.snapshotSize(snap)
		if err != nil {
			return vol, err
		}
		vol.snapshotID, vol.sizeGiB = snap, size
		if want, ok := e.integer("VolumeSize"); ok && want < size {
			return vol, clientErr("InvalidBlockDeviceMapping", "Volume of size %dGB is smaller than snapshot '%s', expect size >= %dGB", want, snap, size)
		}
	}
	if t := e.str("VolumeType"); t != "" {
		if !contains(ebsVolumeTypes, t) {
			return vol, invalidValue("Value (%s) for parameter volumeType is invalid. Valid values are: standard, io1, io2, gp2, sc1, st1, gp3", t)
		}
		vol.volumeType = t
	}
	if size, ok := e.integer("VolumeSize"); ok {
		if isRoot && size < img.RootSizeGiB {
			return vol, clientErr("InvalidBlockDeviceMapping", "Volume of size %dGB is smaller than snapshot '%s', expect size >= %dGB", size, img.SnapshotID, img.RootSizeGiB)
		}
		vol.sizeGiB = size
	}
	if err := readVolumePerformance(e, &vol); err != nil {
		return vol, err
	}
	if dot, ok := e.boolean("DeleteOnTermination"); ok {
		vol.deleteOnTermination = dot
	}
	vol.encrypted, _ = e.boolean("Encrypted")
	cfg := ebsConfig{volumeType: vol.volumeType, sizeGiB: vol.sizeGiB, iops: vol.iops, throughput: vol.throughput}
	if err := cfg.check(); err != nil {
		return vol, err
	}
	cfg = cfg.withDefaults()
	vol.iops, vol.throughput = cfg.iops, cfg.throughput
	return vol, nil
}

// readVolumePerformance reads a mapping's Iops and Throughput, which only some
// volume types take: EC2 refuses the parameter itself for the others, before any
// limit applies.
func readVolumePerformance(e params, vol *volumeSpec) *apiError {
	if iops, ok := e.integer("Iops"); ok {
		if vol.volumeType == "gp2" || vol.volumeType == "st1" || vol.volumeType == "sc1" || vol.volumeType == "standard" {
			return clientErr("InvalidParameterCombination", "The parameter iops is not supported for %s volumes.", vol.volumeType)
		}
		vol.iops = iops
	}
	if tp, ok := e.integer("Throughput"); ok {
		if vol.volumeType != "gp3" {
			return clientErr("InvalidParameterCombination", "The parameter throughput is not supported for %s volumes.", vol.volumeType)
		}
		vol.throughput = tp
	}
	return nil
}

// parseMarket validates InstanceMarketOptions for spot launches.
func parseMarket(p params, spec *launchSpec) *apiError {
	m := p.sub("InstanceMarketOptions")
	switch mt := m.str("MarketType"); mt {
	case "":
		return nil
	case "spot":
	case "capacity-block":
		return clientErr("InvalidParameterValue", "Capacity Blocks are not supported by this simulator.")
	default:
		return invalidValue("Value (%s) for parameter MarketType is invalid.", mt)
	}
	o := m.sub("SpotOptions")
	spec.spot = true
	spec.spotType = o.str("SpotInstanceType")
	if spec.spotType == "" {
		spec.spotType = "one-time"
	}
	if spec.spotType != "one-time" && spec.spotType != "persistent" {
		return invalidValue("Value (%s) for parameter SpotInstanceType is invalid.", spec.spotType)
	}
	spec.spotBehavior = o.str("InstanceInterruptionBehavior")
	if spec.spotBehavior == "" {
		spec.spotBehavior = "terminate"
	}
	if !contains([]string{"terminate", "stop", "hibernate"}, spec.spotBehavior) {
		return invalidValue("Value (%s) for parameter InstanceInterruptionBehavior is invalid.", spec.spotBehavior)
	}
	// Stopping and hibernating need a request that survives the interruption,
	// which only persistent requests are.
	if spec.spotType == "one-time" && spec.spotBehavior != "terminate" {
		return clientErr("InvalidParameterCombination", "The interruption behavior '%s' is only supported for persistent Spot Instance requests.", spec.spotBehavior)
	}
	spec.spotMaxPrice = o.str("MaxPrice")
	return nil
}
