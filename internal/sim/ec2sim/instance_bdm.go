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

// modifyBlockDeviceMappings applies ModifyInstanceAttribute's
// BlockDeviceMapping.N.DeviceName / .Ebs.DeleteOnTermination: it changes whether
// each named attached volume is deleted when the instance terminates. Every
// mapping is checked before any is changed, so a failing call has no effect.
func (s *Sim) modifyBlockDeviceMappings(in *instance, p params) *apiError {
	type change struct {
		index int
		dot   bool
	}
	var changes []change
	for _, m := range p.items("BlockDeviceMapping") {
		dev := m.str("DeviceName")
		if dev == "" {
			return missingParam("BlockDeviceMapping.DeviceName")
		}
		i := -1
		for j, bd := range in.BlockDevices {
			if bd.DeviceName == dev {
				i = j
			}
		}
		if i < 0 {
			return clientErr("InvalidInstanceAttributeValue", "No device is currently mapped at %s", dev)
		}
		e := m.sub("Ebs")
		if id := e.str("VolumeId"); id != "" && id != in.BlockDevices[i].VolumeID {
			return invalidValue("Volume '%s' is not attached to instance '%s' at %s", id, in.ID, dev)
		}
		dot, ok := e.boolean("DeleteOnTermination")
		if !ok {
			continue
		}
		changes = append(changes, change{i, dot})
	}
	for _, c := range changes {
		bd := &in.BlockDevices[c.index]
		bd.DeleteOnTermination = c.dot
		if v := s.volumes[bd.VolumeID]; v != nil && v.Attachment != nil {
			v.Attachment.DeleteOnTermination = c.dot
		}
	}
	return nil
}
