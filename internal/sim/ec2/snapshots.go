package ec2sim

import "regexp"

// snapshotIDPattern accepts the short and long snapshot id forms.
var snapshotIDPattern = regexp.MustCompile(`^snap-([0-9a-f]{8}|[0-9a-f]{17})$`)

// AddSnapshot makes an EBS snapshot of sizeGiB exist in the Sim's region, so that
// CreateVolume can restore it. Snapshots are regional: one added to another Sim
// (another region) is not found here. The images' root snapshots exist already.
func (s *Sim) AddSnapshot(id string, sizeGiB int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snapshots == nil {
		s.snapshots = map[string]int{}
	}
	s.snapshots[id] = sizeGiB
}

// snapshotSize resolves a snapshot id to its size: an added snapshot, or the root
// snapshot of a registered image. It answers EC2's errors for malformed and
// unknown ids.
func (s *Sim) snapshotSize(id string) (int, *apiError) {
	if !snapshotIDPattern.MatchString(id) {
		return 0, malformedID("InvalidSnapshotID.Malformed", id, "snap")
	}
	if size, ok := s.snapshots[id]; ok {
		return size, nil
	}
	for _, imgID := range s.imageOrder {
		if img := s.images[imgID]; img.SnapshotID == id {
			return img.RootSizeGiB, nil
		}
	}
	return 0, clientErr("InvalidSnapshot.NotFound", "The snapshot '%s' does not exist.", id)
}
