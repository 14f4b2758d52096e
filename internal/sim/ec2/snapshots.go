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
