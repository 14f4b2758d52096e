package ec2sim

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// maxVolumeModificationsPerDay is EC2's limit of modifications per volume in a rolling
// 24 hours.
const maxVolumeModificationsPerDay = 4

// VolumeAttachment is a volume's attachment to an instance.
type VolumeAttachment struct {
	InstanceID          string
	Device              string
	AttachTime          time.Time
	DeleteOnTermination bool
}

// VolumeRecord is a snapshot of one EBS volume.
type VolumeRecord struct {
	ID         string
	SizeGiB    int
	VolumeType string // gp2, gp3, io1, io2, st1, sc1, standard
	IOPS       int
	Throughput int
	SnapshotID string
	AZ         string
	// State is creating, available, in-use, deleting or deleted.
	State      string
	Encrypted  bool
	CreateTime time.Time
	Tags       map[string]string
	Attachment *VolumeAttachment
	// ModificationState is "" or "completed" after ModifyVolume (the
	// simulator completes modifications instantly).
	ModificationState string
	OriginalSizeGiB   int
	// ModifiedAt holds when each modification was requested, for EC2's limit of
	// four modifications per volume in a rolling 24 hours.
	ModifiedAt []time.Time
}

// clone deep-copies the record.
func (v VolumeRecord) clone() VolumeRecord {
	v.Tags = maps.Clone(v.Tags)
	v.ModifiedAt = slices.Clone(v.ModifiedAt)
	if v.Attachment != nil {
		a := *v.Attachment
		v.Attachment = &a
	}
	return v
}

// Volume returns a snapshot of one volume.
func (s *Sim) Volume(id string) (VolumeRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	v, ok := s.volumes[id]
	if !ok {
		return VolumeRecord{}, false
	}
	return v.clone(), true
}

// putVolume stores a new volume.
func (s *Sim) putVolume(v *VolumeRecord) {
	s.volumes[v.ID] = v
	s.volumeOrder = append(s.volumeOrder, v.ID)
}

// deleteVolume removes a volume; EC2 forgets deleted volumes quickly, so
// DescribeVolumes by id then reports InvalidVolume.NotFound.
func (s *Sim) deleteVolume(id string) {
	delete(s.volumes, id)
	s.volumeOrder = slices.DeleteFunc(s.volumeOrder, func(x string) bool { return x == id })
}

// lookupVolumes resolves VolumeId.N for volume actions.
func (s *Sim) lookupVolumes(ids []string) *apiError {
	var missing []string
	for _, id := range ids {
		if !volumeIDPattern.MatchString(id) {
			return malformedID("InvalidVolumeID.Malformed", id, "vol")
		}
		if _, ok := s.volumes[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) == 1 {
		return clientErr("InvalidVolume.NotFound", "The volume '%s' does not exist.", missing[0])
	}
	if len(missing) > 1 {
		return clientErr("InvalidVolume.NotFound", "The volumes '%s' do not exist.", strings.Join(missing, ", "))
	}
	return nil
}

// describeVolumes implements DescribeVolumes with VolumeId.N and the
// volume-id, attachment.instance-id, status and tag filters.
func (s *Sim) describeVolumes(p params, x *xmlBuilder) *apiError {
	ids := p.list("VolumeId")
	if err := s.lookupVolumes(ids); err != nil {
		return err
	}
	x.open("volumeSet")
	for _, id := range s.volumeOrder {
		v := s.volumes[id]
		if len(ids) > 0 && !contains(ids, id) {
			continue
		}
		fields := map[string]string{"volume-id": v.ID, "status": v.State, "availability-zone": v.AZ, "volume-type": v.VolumeType}
		if v.Attachment != nil {
			fields["attachment.instance-id"] = v.Attachment.InstanceID
			fields["attachment.device"] = v.Attachment.Device
		}
		if !resourceMatches(fields, v.Tags, p.filters()) {
			continue
		}
		s.writeVolume(x, v)
	}
	x.close("volumeSet")
	return nil
}

// writeVolume renders one volumeSet item.
func (s *Sim) writeVolume(x *xmlBuilder, v *VolumeRecord) {
	x.open("item")
	x.leaf("volumeId", v.ID)
	x.intLeaf("size", v.SizeGiB)
	x.leafIf("snapshotId", v.SnapshotID)
	x.leaf("availabilityZone", v.AZ)
	x.leaf("status", v.State)
	x.timeLeaf("createTime", v.CreateTime)
	x.open("attachmentSet")
	if a := v.Attachment; a != nil {
		x.open("item")
		x.leaf("volumeId", v.ID)
		x.leaf("instanceId", a.InstanceID)
		x.leaf("device", a.Device)
		x.leaf("status", "attached")
		x.timeLeaf("attachTime", a.AttachTime)
		x.boolLeaf("deleteOnTermination", a.DeleteOnTermination)
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
	x.boolLeaf("multiAttachEnabled", false)
	if len(v.Tags) > 0 {
		x.tagSet(v.Tags)
	}
	x.close("item")
}

// modifyVolume implements ModifyVolume for size, type, iops and throughput.
// Modifications complete instantly; EBS volumes can only grow.
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
	orig := v.clone()
	if size, ok := p.integer("Size"); ok {
		if size < v.SizeGiB {
			return invalidValue("New size cannot be smaller than existing size")
		}
		if size > 16384 {
			return invalidValue("Volume of %dGiB is too large for volume type %s; maximum is 16384 GiB", size, v.VolumeType)
		}
		v.SizeGiB = size
	}
	if t := p.str("VolumeType"); t != "" {
		if !contains([]string{"gp2", "gp3", "io1", "io2", "st1", "sc1", "standard"}, t) {
			return invalidValue("Value (%s) for parameter volumeType is invalid.", t)
		}
		v.VolumeType = t
	}
	if iops, ok := p.integer("Iops"); ok {
		v.IOPS = iops
	}
	if tp, ok := p.integer("Throughput"); ok {
		v.Throughput = tp
	}
	v.ModifiedAt = append(recent, s.now())
	v.ModificationState, v.OriginalSizeGiB = "completed", orig.SizeGiB
	now := s.now()
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
	x.timeLeaf("startTime", now)
	x.close("volumeModification")
	return nil
}
