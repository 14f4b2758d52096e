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
