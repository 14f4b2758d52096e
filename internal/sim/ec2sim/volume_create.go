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
	"strings"
)

// defaultCreateVolumeType is CreateVolume's documented default VolumeType (the API
// reference: "Default: gp2"), unlike RunInstances, which the AMI's mapping decides.
const defaultCreateVolumeType = "gp2"

// defaultEBSKeyID stands for the account's AWS managed key for EBS (aws/ebs), which
// EC2 uses when a volume is encrypted without a KmsKeyId.
const defaultEBSKeyID = "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9"

// volumeToken remembers what a CreateVolume ClientToken created, for idempotency.
type volumeToken struct {
	fingerprint string
	volumeID    string
	// created is the volume as first created, answered if it has since been deleted.
	created VolumeRecord
}

// createVolumeOp implements CreateVolume. A retry with the same ClientToken and
// the same parameters returns the volume the first call created; the same token
// with other parameters fails with IdempotentParameterMismatch, as the EC2 API
// reference's "Ensure idempotency" page describes.
func (s *Sim) createVolumeOp(p params, x *xmlBuilder) *apiError {
	token := p.str("ClientToken")
	if rec, ok := s.volumeTokens[token]; ok && token != "" {
		if rec.fingerprint != fingerprint(p) {
			return clientErr("IdempotentParameterMismatch", "Arguments on this idempotent request are inconsistent with arguments used in previous request(s).")
		}
		v := &rec.created
		if live, ok := s.volumes[rec.volumeID]; ok {
			v = live
		}
		s.writeVolumeFields(x, v)
		return nil
	}
	v, err := s.parseCreateVolume(p)
	if err != nil {
		return err
	}
	v.ID = s.newID("vol")
	s.armCreationFailure(v)
	s.putVolume(v)
	if token != "" {
		if s.volumeTokens == nil {
			s.volumeTokens = map[string]*volumeToken{}
		}
		s.volumeTokens[token] = &volumeToken{fingerprint: fingerprint(p), volumeID: v.ID, created: v.clone()}
	}
	s.writeVolumeFields(x, v)
	return nil
}

// parseCreateVolume validates a CreateVolume request into a new creating volume
// (without an id): zone, then snapshot and size, then type limits, encryption
// and tags.
func (s *Sim) parseCreateVolume(p params) (*VolumeRecord, *apiError) {
	az := p.str("AvailabilityZone")
	if az == "" {
		return nil, missingParam("AvailabilityZone")
	}
	if !contains(s.azs(), az) {
		return nil, clientErr("InvalidZone.NotFound", "The zone '%s' does not exist.", az)
	}
	snap := p.str("SnapshotId")
	if snap == "" && !p.has("Size") {
		return nil, missingParam("size or snapshotId")
	}
	cfg, err := s.readVolumeConfig(p, snap)
	if err != nil {
		return nil, err
	}
	encrypted, _ := p.boolean("Encrypted")
	key := p.str("KmsKeyId")
	if key != "" && !encrypted {
		return nil, clientErr("InvalidParameterDependency", "The parameter KmsKeyId requires the parameter Encrypted to be set.")
	}
	tags, err := volumeTagSpecs(p)
	if err != nil {
		return nil, err
	}
	now := s.now()
	v := &VolumeRecord{
		SizeGiB: cfg.sizeGiB, VolumeType: cfg.volumeType, IOPS: cfg.iops, Throughput: cfg.throughput,
		SnapshotID: snap, AZ: az, State: VolumeCreating, since: now, Encrypted: encrypted,
		CreateTime: now, Tags: tags,
	}
	if encrypted {
		v.KmsKeyID = s.kmsKeyARN(key)
	}
	return v, nil
}

// readVolumeConfig reads the type, size, IOPS and throughput of a new volume,
// checks them against the type's limits and fills in the type's defaults.
func (s *Sim) readVolumeConfig(p params, snap string) (ebsConfig, *apiError) {
	cfg := ebsConfig{volumeType: p.str("VolumeType")}
	if cfg.volumeType == "" {
		cfg.volumeType = defaultCreateVolumeType
	}
	if p.has("Size") {
		n, ok := p.integer("Size")
		if !ok {
			return cfg, invalidValue("Value (%s) for parameter size is invalid. Expected an integer.", p.str("Size"))
		}
		cfg.sizeGiB = n
	}
	if snap != "" {
		// The API reference: with a snapshot, the size defaults to the snapshot's
		// and may only be equal or larger.
		snapSize, err := s.snapshotSize(snap)
		if err != nil {
			return cfg, err
		}
		if !p.has("Size") {
			cfg.sizeGiB = snapSize
		}
		if cfg.sizeGiB < snapSize {
			return cfg, invalidValue("Volume of size %dGB is smaller than snapshot '%s', expect size >= %dGB", cfg.sizeGiB, snap, snapSize)
		}
	}
	for _, f := range []struct {
		name string
		dst  *int
	}{{"Iops", &cfg.iops}, {"Throughput", &cfg.throughput}} {
		if p.has(f.name) {
			n, ok := p.integer(f.name)
			if !ok {
				return cfg, invalidValue("Value (%s) for parameter %s is invalid. Expected an integer.", p.str(f.name), strings.ToLower(f.name))
			}
			*f.dst = n
		}
	}
	if err := cfg.check(); err != nil {
		return cfg, err
	}
	return cfg.withDefaults(), nil
}

// kmsKeyARN returns the ARN EC2 reports for a KmsKeyId given as a key id, alias,
// key ARN or alias ARN; no key means the AWS managed key for EBS. The simulator has
// no KMS, so aliases are reported as alias ARNs rather than resolved.
func (s *Sim) kmsKeyARN(key string) string {
	prefix := "arn:aws:kms:" + s.cfg.Region + ":" + s.cfg.AccountID + ":"
	switch {
	case key == "":
		return prefix + "key/" + defaultEBSKeyID
	case strings.HasPrefix(key, "arn:"):
		return key
	case strings.HasPrefix(key, "alias/"):
		return prefix + key
	default:
		return prefix + "key/" + key
	}
}

// volumeTagSpecs reads CreateVolume's TagSpecification.N, which may only tag the
// volume; tags are validated like RunInstances' (reserved aws: prefix, lengths,
// at most 50).
func volumeTagSpecs(p params) (map[string]string, *apiError) {
	tags := map[string]string{}
	for _, ts := range p.items("TagSpecification") {
		switch rt := ts.str("ResourceType"); rt {
		case "volume":
		case "":
			return nil, missingParam("TagSpecification.ResourceType")
		default:
			return nil, invalidValue("'%s' is not a valid taggable resource type for this operation.", rt)
		}
		merged, err := mergeTags(tags, readTags(ts, "Tag"))
		if err != nil {
			return nil, err
		}
		tags = merged
	}
	return tags, nil
}

// writeVolumeFields renders a volume's fields as CreateVolume returns them (the
// same members as a DescribeVolumes item, without the enclosing item).
func (s *Sim) writeVolumeFields(x *xmlBuilder, v *VolumeRecord) {
	x.leaf("volumeId", v.ID)
	x.intLeaf("size", v.SizeGiB)
	x.leafIf("snapshotId", v.SnapshotID)
	x.leaf("availabilityZone", v.AZ)
	x.leaf("status", v.State)
	x.timeLeaf("createTime", v.CreateTime)
	x.open("attachmentSet")
	if a := v.Attachment; a != nil {
		x.open("item")
		writeAttachmentFields(x, v.ID, a)
		x.close("item")
	}
	x.close("attachmentSet")
	x.leaf("volumeType", v.VolumeType)
	if v.IOPS > 0 {
		x.intLeaf("iops", v.IOPS)
	}
	if v.Throughput > 0 {
		x.intLeaf("throughput", v.Throughput)
	}
	x.boolLeaf("encrypted", v.Encrypted)
	x.leafIf("kmsKeyId", v.KmsKeyID)
	x.boolLeaf("multiAttachEnabled", false)
	if len(v.Tags) > 0 {
		x.tagSet(v.Tags)
	}
}

// writeAttachmentFields renders a VolumeAttachment's members.
func writeAttachmentFields(x *xmlBuilder, volumeID string, a *VolumeAttachment) {
	x.leaf("volumeId", volumeID)
	x.leaf("instanceId", a.InstanceID)
	x.leaf("device", a.Device)
	x.leaf("status", a.State)
	x.timeLeaf("attachTime", a.AttachTime)
	x.boolLeaf("deleteOnTermination", a.DeleteOnTermination)
}
