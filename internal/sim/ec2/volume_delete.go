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
