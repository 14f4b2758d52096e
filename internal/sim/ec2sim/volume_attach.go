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
	"slices"
	"time"
)

// attachVolume implements AttachVolume. Per the API reference and the EC2 error
// codes page: the volume must be available (an attached one is VolumeInUse, one
// still being created IncorrectState), volume and instance must be in the same
// Availability Zone (InvalidVolume.ZoneMismatch), the instance must be running or
// stopped (IncorrectInstanceState), and the device name must be free on the
// instance (InvalidParameterValue "Attachment point ... is already in use"). The
// attachment starts attaching, the volume is in-use at once, and a volume
// attached this way is kept when the instance terminates (DeleteOnTermination
// false) until ModifyInstanceAttribute says otherwise.
func (s *Sim) attachVolume(p params, x *xmlBuilder) *apiError {
	for _, name := range []string{"Device", "InstanceId", "VolumeId"} {
		if p.str(name) == "" {
			return missingParam(name)
		}
	}
	volID, device := p.str("VolumeId"), p.str("Device")
	if err := s.lookupVolumes([]string{volID}); err != nil {
		return err
	}
	in, err := s.lookupInstance(p.str("InstanceId"))
	if err != nil {
		return err
	}
	v := s.volumes[volID]
	switch {
	case v.Attachment != nil:
		return clientErr("VolumeInUse", "%s is already attached to an instance", v.ID)
	case v.State != VolumeAvailable:
		return clientErr("IncorrectState", "%s is not 'available'.", v.ID)
	case v.AZ != in.AZ:
		return clientErr("InvalidVolume.ZoneMismatch", "The volume '%s' is not in the same availability zone as instance '%s'", v.ID, in.ID)
	case in.State != StateRunning && in.State != StateStopped:
		// EC2's wording names only running, although stopped instances qualify too.
		return clientErr("IncorrectInstanceState", "Instance '%s' is not 'running'.", in.ID)
	}
	for _, bd := range in.BlockDevices {
		if bd.DeviceName == device {
			return invalidValue("Invalid value '%s' for unixDevice. Attachment point %s is already in use", device, device)
		}
	}
	now := s.now()
	v.State = VolumeInUse
	v.Attachment = &VolumeAttachment{InstanceID: in.ID, Device: device, AttachTime: now, State: AttachmentAttaching, since: now}
	in.BlockDevices = append(in.BlockDevices, BlockDevice{DeviceName: device, VolumeID: v.ID, AttachTime: now})
	if device == in.RootDeviceName {
		in.RootVolumeID = v.ID
	}
	writeAttachmentFields(x, v.ID, v.Attachment)
	return nil
}

// detachVolume implements DetachVolume. A volume that is not attached is
// IncorrectState; InstanceId and Device, when sent, must name the attachment
// (InvalidAttachment.NotFound); and, as the API reference says, the root volume
// of an instance cannot be detached unless the instance is stopped. The
// attachment goes detaching, then the volume is available again. Force is
// accepted: the simulator has no stuck detachments for it to break.
func (s *Sim) detachVolume(p params, x *xmlBuilder) *apiError {
	volID := p.str("VolumeId")
	if volID == "" {
		return missingParam("VolumeId")
	}
	if err := s.lookupVolumes([]string{volID}); err != nil {
		return err
	}
	v := s.volumes[volID]
	a := v.Attachment
	if a == nil {
		return clientErr("IncorrectState", "Volume '%s' is in the '%s' state.", v.ID, v.State)
	}
	if id := p.str("InstanceId"); id != "" && id != a.InstanceID {
		return clientErr("InvalidAttachment.NotFound", "The volume '%s' is not attached to instance '%s'.", v.ID, id)
	}
	if dev := p.str("Device"); dev != "" && dev != a.Device {
		return clientErr("InvalidAttachment.NotFound", "The volume '%s' is not attached at device '%s'.", v.ID, dev)
	}
	if in := s.instances[a.InstanceID]; in != nil && a.Device == in.RootDeviceName && in.State != StateStopped {
		return clientErr("IncorrectState", "Unable to detach root volume '%s' from instance '%s'", v.ID, in.ID)
	}
	if a.State != AttachmentDetaching {
		a.State, a.since = AttachmentDetaching, s.now()
	}
	writeAttachmentFields(x, v.ID, a)
	return nil
}

// advanceVolumes moves volumes and attachments along their lifecycles to now,
// each timer running from when its state was entered, like instances'.
func (s *Sim) advanceVolumes(now time.Time) {
	for _, id := range slices.Clone(s.volumeOrder) {
		v := s.volumes[id]
		if v.State == VolumeCreating && !now.Before(v.since.Add(s.cfg.VolumeCreateDuration)) {
			if s.finishCreation(v, v.since.Add(s.cfg.VolumeCreateDuration)) {
				continue // the creation failed and EBS forgot the volume
			}
		}
		a := v.Attachment
		if a == nil {
			continue
		}
		switch {
		case a.State == AttachmentAttaching && !now.Before(a.since.Add(s.cfg.VolumeAttachDuration)):
			a.State, a.since = AttachmentAttached, a.since.Add(s.cfg.VolumeAttachDuration)
		case a.State == AttachmentDetaching && !now.Before(a.since.Add(s.cfg.VolumeDetachDuration)):
			s.finishDetach(v)
		}
	}
}

// finishDetach completes a detachment: the volume is available and gone from
// the instance's block device mapping.
func (s *Sim) finishDetach(v *VolumeRecord) {
	if in := s.instances[v.Attachment.InstanceID]; in != nil {
		in.BlockDevices = slices.DeleteFunc(in.BlockDevices, func(bd BlockDevice) bool { return bd.VolumeID == v.ID })
		if in.RootVolumeID == v.ID {
			in.RootVolumeID = ""
		}
	}
	v.Attachment = nil
	v.State, v.since = VolumeAvailable, s.now()
}

// attachmentStatus is the status DescribeInstances reports for a block device:
// its volume's attachment state.
func (s *Sim) attachmentStatus(volumeID string) string {
	if v := s.volumes[volumeID]; v != nil && v.Attachment != nil {
		return v.Attachment.State
	}
	return AttachmentAttached
}
