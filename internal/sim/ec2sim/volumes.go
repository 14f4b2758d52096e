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
	"maps"
	"slices"
	"strings"
	"time"
)

// maxVolumeModificationsPerDay is EC2's limit of modifications per volume in a rolling
// 24 hours.
const maxVolumeModificationsPerDay = 4

// Volume and attachment states, as DescribeVolumes reports them.
const (
	VolumeCreating  = "creating"
	VolumeAvailable = "available"
	VolumeInUse     = "in-use"
	// VolumeError is the state of a volume whose creation failed and that EBS kept
	// (see FailNextVolumeCreation); it can only be deleted.
	VolumeError = "error"

	AttachmentAttaching = "attaching"
	AttachmentAttached  = "attached"
	AttachmentDetaching = "detaching"
)

// VolumeAttachment is a volume's attachment to an instance.
type VolumeAttachment struct {
	InstanceID          string
	Device              string
	AttachTime          time.Time
	DeleteOnTermination bool
	// State is AttachmentAttaching, AttachmentAttached or AttachmentDetaching.
	State string
	// since is when State was entered; the attach and detach timers run from it.
	since time.Time
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
	// State is VolumeCreating, VolumeAvailable, VolumeInUse or VolumeError; deleted
	// volumes are forgotten at once.
	State      string
	Encrypted  bool
	KmsKeyID   string
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

	// seq orders volumes by creation for DescribeVolumes paging tokens.
	seq int
	// since is when State was entered; the creation timer runs from it.
	since time.Time
	// fails, when set, is how the volume's creation ends instead of available.
	fails *VolumeFailure
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

// Volumes returns snapshots of every volume, in creation order.
func (s *Sim) Volumes() []VolumeRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	out := make([]VolumeRecord, 0, len(s.volumeOrder))
	for _, id := range s.volumeOrder {
		out = append(out, s.volumes[id].clone())
	}
	return out
}

// putVolume stores a new volume. Volumes created attached at launch (or out of
// band) are attached at once, so their attachment state is filled in here.
func (s *Sim) putVolume(v *VolumeRecord) {
	if a := v.Attachment; a != nil && a.State == "" {
		a.State, a.since = AttachmentAttached, a.AttachTime
	}
	s.volumeSeq++
	v.seq = s.volumeSeq
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
