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

// deleteVolumeOp implements DeleteVolume. The API reference requires the volume
// to be available: an attached volume is VolumeInUse (the EC2 error codes page),
// one still being created IncorrectState. A volume whose creation failed (state
// error) can only be deleted, so it may be. A deleted volume is forgotten at once,
// so DescribeVolumes by id then reports InvalidVolume.NotFound.
func (s *Sim) deleteVolumeOp(p params, x *xmlBuilder) *apiError {
	id := p.str("VolumeId")
	if id == "" {
		return missingParam("VolumeId")
	}
	if err := s.lookupVolumes([]string{id}); err != nil {
		return err
	}
	v := s.volumes[id]
	if v.Attachment != nil {
		return clientErr("VolumeInUse", "Volume %s is currently attached to %s", v.ID, v.Attachment.InstanceID)
	}
	if v.State != VolumeAvailable && v.State != VolumeError {
		return clientErr("IncorrectState", "Volume '%s' is in the '%s' state.", v.ID, v.State)
	}
	s.deleteVolume(id)
	x.boolLeaf("return", true)
	return nil
}
