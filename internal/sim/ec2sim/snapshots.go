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
	"regexp"
	"time"
)

// snapshotIDPattern accepts the short and long snapshot id forms.
var snapshotIDPattern = regexp.MustCompile(`^snap-([0-9a-f]{8}|[0-9a-f]{17})$`)

// snapshot is an EBS snapshot the account can restore: its size and owner (an
// account ID, and the alias EC2 shows for Amazon's own, such as amazon).
type snapshot struct {
	sizeGiB             int
	ownerID, ownerAlias string
	created             time.Time
}

// AddSnapshot makes an EBS snapshot of sizeGiB, owned by the Sim's account, exist in
// the Sim's region, so that CreateVolume can restore it. Snapshots are regional: one
// added to another Sim (another region) is not found here. The images' root snapshots
// exist already.
func (s *Sim) AddSnapshot(id string, sizeGiB int) {
	s.AddSharedSnapshot(id, sizeGiB, s.cfg.AccountID, "")
}

// AddSharedSnapshot makes a snapshot another account owns (ownerAlias amazon for a
// public AWS snapshot) restorable by the Sim's account, as a shared or public
// snapshot is.
func (s *Sim) AddSharedSnapshot(id string, sizeGiB int, ownerID, ownerAlias string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snapshots == nil {
		s.snapshots = map[string]snapshot{}
	}
	s.snapshots[id] = snapshot{sizeGiB: sizeGiB, ownerID: ownerID, ownerAlias: ownerAlias, created: s.now()}
}

// snapshotSize resolves a snapshot id to its size; see findSnapshot.
func (s *Sim) snapshotSize(id string) (int, *apiError) {
	snap, err := s.findSnapshot(id)
	return snap.sizeGiB, err
}

// findSnapshot resolves a snapshot id: an added snapshot, or the root snapshot of a
// registered image (owned by the image's owner). It answers EC2's errors for
// malformed and unknown ids.
func (s *Sim) findSnapshot(id string) (snapshot, *apiError) {
	if !snapshotIDPattern.MatchString(id) {
		return snapshot{}, malformedID("InvalidSnapshotID.Malformed", id, "snap")
	}
	if snap, ok := s.snapshots[id]; ok {
		return snap, nil
	}
	for _, imgID := range s.imageOrder {
		if img := s.images[imgID]; img.SnapshotID == id {
			return snapshot{sizeGiB: img.RootSizeGiB, ownerID: img.OwnerID, ownerAlias: img.OwnerAlias, created: img.CreationDate}, nil
		}
	}
	return snapshot{}, clientErr("InvalidSnapshot.NotFound", "The snapshot '%s' does not exist.", id)
}

// describeSnapshots answers DescribeSnapshots for SnapshotId.N, the only form the
// operator sends: every snapshot named must exist (else InvalidSnapshot.NotFound, as
// EC2 answers for an ID the account cannot see), and each is described with its
// owner, size and a completed state.
func (s *Sim) describeSnapshots(p params, x *xmlBuilder) *apiError {
	ids := p.list("SnapshotId")
	found := make([]snapshot, 0, len(ids))
	for _, id := range ids {
		snap, err := s.findSnapshot(id)
		if err != nil {
			return err
		}
		found = append(found, snap)
	}
	x.open("snapshotSet")
	for i, snap := range found {
		x.open("item")
		x.leaf("snapshotId", ids[i])
		x.leaf("volumeId", "vol-ffffffff")
		x.leaf("status", "completed")
		x.timeLeaf("startTime", snap.created)
		x.leaf("progress", "100%")
		x.leaf("ownerId", snap.ownerID)
		x.leafIf("ownerAlias", snap.ownerAlias)
		x.intLeaf("volumeSize", snap.sizeGiB)
		x.boolLeaf("encrypted", false)
		x.leaf("storageTier", "standard")
		x.close("item")
	}
	x.close("snapshotSet")
	return nil
}
