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

package ec2fake

import (
	"context"
	"maps"
	"reflect"
	"slices"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// DescribeVolumes returns the volumes among ids that exist; unknown ones are left out
// without an error, as the real client's filter-based lookup does.
func (f *Fake) DescribeVolumes(_ context.Context, ids []string) (map[string]ec2.Volume, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("DescribeVolumes", first(ids)); err != nil {
		return nil, err
	}
	out := map[string]ec2.Volume{}
	for _, id := range ids {
		if v, ok := f.volumes[id]; ok {
			out[id] = cloneVolume(v.Volume)
		}
	}
	return out, nil
}

// FindVolumes lists the volumes carrying every one of tags, in creation order.
func (f *Fake) FindVolumes(_ context.Context, tags map[string]string) ([]ec2.Volume, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("FindVolumes", ""); err != nil {
		return nil, err
	}
	var out []ec2.Volume
	for _, id := range f.volOrder {
		if v := f.volumes[id]; hasTags(v.Tags, tags) {
			out = append(out, cloneVolume(v.Volume))
		}
	}
	return out, nil
}

// GetVolumeSize returns the size of a volume, or InvalidVolume.NotFound.
func (f *Fake) GetVolumeSize(_ context.Context, volumeID string) (int32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("GetVolumeSize", volumeID); err != nil {
		return 0, err
	}
	v, err := f.volume("DescribeVolumes", volumeID)
	if err != nil {
		return 0, err
	}
	return v.SizeGiB, nil
}

// CreateVolume creates an available volume at once. A token used before returns the
// same volume for the same request, and IdempotentParameterMismatch for another.
func (f *Fake) CreateVolume(_ context.Context, zone, token string, req ec2.VolumeRequest, tags map[string]string) (*ec2.Volume, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("CreateVolume", token); err != nil {
		return nil, err
	}
	if id, ok := f.volTokens[token]; ok && token != "" {
		v := f.volumes[id]
		if v == nil || !reflect.DeepEqual(v.req, req) || v.AvailabilityZone != zone {
			return nil, errorf("CreateVolume", "IdempotentParameterMismatch",
				"Arguments on this idempotent request are inconsistent with arguments used in previous request(s).")
		}
		out := cloneVolume(v.Volume)
		return &out, nil
	}
	if req.SizeGiB == 0 && req.SnapshotID == "" {
		return nil, errorf("CreateVolume", "MissingParameter", "The request must contain the parameter size or snapshotId")
	}
	v := f.newVolume(zone, req, tags)
	if token != "" {
		f.volTokens[token] = v.ID
	}
	out := cloneVolume(v.Volume)
	return &out, nil
}

// AttachVolume attaches an available volume; one in use is VolumeInUse.
func (f *Fake) AttachVolume(_ context.Context, volumeID, instanceID, device string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("AttachVolume", volumeID); err != nil {
		return err
	}
	v, err := f.volume("AttachVolume", volumeID)
	if err != nil {
		return err
	}
	in, err := f.instance("AttachVolume", instanceID)
	if err != nil {
		return err
	}
	if v.State != "available" {
		return errorf("AttachVolume", "VolumeInUse", "%s is already attached to an instance", volumeID)
	}
	f.attach(v, in, device, false)
	return nil
}

// DetachVolume detaches a volume from the instance at once; a volume not attached to
// it is IncorrectState.
func (f *Fake) DetachVolume(_ context.Context, volumeID, instanceID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("DetachVolume", volumeID); err != nil {
		return err
	}
	v, err := f.volume("DetachVolume", volumeID)
	if err != nil {
		return err
	}
	if v.AttachedTo != instanceID {
		return errorf("DetachVolume", "IncorrectState", "Volume '%s' is in the 'available' state.", volumeID)
	}
	f.detach(v)
	return nil
}

// ModifyVolume changes the non-zero fields of change; shrinking is refused.
func (f *Fake) ModifyVolume(_ context.Context, volumeID string, change ec2.VolumeChange) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("ModifyVolume", volumeID); err != nil {
		return err
	}
	return f.modifyVolume(volumeID, change)
}

// ResizeVolume grows a volume; like the real client it does nothing when the volume
// already has the size, and a smaller size is refused.
func (f *Fake) ResizeVolume(_ context.Context, volumeID string, sizeGiB int32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("ResizeVolume", volumeID); err != nil {
		return err
	}
	if v, ok := f.volumes[volumeID]; ok && v.SizeGiB == sizeGiB {
		return nil
	}
	return f.modifyVolume(volumeID, ec2.VolumeChange{SizeGiB: sizeGiB})
}

func (f *Fake) modifyVolume(volumeID string, change ec2.VolumeChange) error {
	v, err := f.volume("ModifyVolume", volumeID)
	if err != nil {
		return err
	}
	if change.SizeGiB != 0 && change.SizeGiB < v.SizeGiB {
		return errorf("ModifyVolume", "InvalidParameterValue", "New size cannot be smaller than existing size")
	}
	v.SizeGiB = valueOr(change.SizeGiB, v.SizeGiB)
	v.Type = valueOr(change.Type, v.Type)
	v.IOPS = valueOr(change.IOPS, v.IOPS)
	v.Throughput = valueOr(change.Throughput, v.Throughput)
	return nil
}

// SetDeleteOnTermination sets the flag of the volume attached at device.
func (f *Fake) SetDeleteOnTermination(_ context.Context, instanceID, device string, deleteOnTermination bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("SetDeleteOnTermination", instanceID); err != nil {
		return err
	}
	in, err := f.instance("ModifyInstanceAttribute", instanceID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(in.BlockDevices, func(b ec2.BlockDevice) bool { return b.Device == device })
	if i < 0 {
		return errorf("ModifyInstanceAttribute", "InvalidInstanceAttributeValue", "No device is currently mapped at %s", device)
	}
	in.BlockDevices[i].DeleteOnTermination = deleteOnTermination
	return nil
}

// DeleteVolume deletes a detached volume; one already gone is not an error, one in use
// is VolumeInUse.
func (f *Fake) DeleteVolume(_ context.Context, volumeID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("DeleteVolume", volumeID); err != nil {
		return err
	}
	v, ok := f.volumes[volumeID]
	if !ok {
		return nil
	}
	if v.AttachedTo != "" {
		return errorf("DeleteVolume", "VolumeInUse", "Volume %s is currently attached to %s", volumeID, v.AttachedTo)
	}
	f.removeVolume(volumeID)
	return nil
}

// volume returns the volume or EC2's InvalidVolume.NotFound for operation.
func (f *Fake) volume(operation, id string) (*volume, error) {
	v, ok := f.volumes[id]
	if !ok {
		return nil, errorf(operation, "InvalidVolume.NotFound", "The volume '%s' does not exist.", id)
	}
	return v, nil
}

func (f *Fake) newVolume(zone string, req ec2.VolumeRequest, tags map[string]string) *volume {
	v := &volume{req: req, Volume: ec2.Volume{ID: f.newID("vol"), SizeGiB: valueOr(req.SizeGiB, defaultRootSizeGiB),
		Type: valueOr(req.Type, "gp2"), IOPS: req.IOPS, Throughput: req.Throughput, AvailabilityZone: zone,
		State: "available", Tags: maps.Clone(tags)}}
	if v.Tags == nil {
		v.Tags = map[string]string{}
	}
	f.volumes[v.ID] = v
	f.volOrder = append(f.volOrder, v.ID)
	return v
}

// attach records the attachment on both the volume and the instance.
func (f *Fake) attach(v *volume, in *instance, device string, deleteOnTermination bool) {
	v.State, v.AttachedTo, v.Device, v.AttachmentState = "in-use", in.ID, device, "attached"
	in.VolumeIDs = append(in.VolumeIDs, v.ID)
	in.BlockDevices = append(in.BlockDevices, ec2.BlockDevice{Device: device, VolumeID: v.ID, Status: "attached",
		DeleteOnTermination: deleteOnTermination})
}

// detach ends the attachment on both sides.
func (f *Fake) detach(v *volume) {
	if in, ok := f.instances[v.AttachedTo]; ok {
		in.VolumeIDs = slices.DeleteFunc(in.VolumeIDs, func(id string) bool { return id == v.ID })
		in.BlockDevices = slices.DeleteFunc(in.BlockDevices, func(b ec2.BlockDevice) bool { return b.VolumeID == v.ID })
		if in.RootVolumeID == v.ID {
			in.RootVolumeID = ""
		}
	}
	v.State, v.AttachedTo, v.Device, v.AttachmentState = "available", "", "", ""
}

func (f *Fake) removeVolume(id string) {
	delete(f.volumes, id)
	f.volOrder = slices.DeleteFunc(f.volOrder, func(o string) bool { return o == id })
}

// terminated finishes a termination as EC2 does: delete-on-termination volumes are
// deleted, the others detached, and Elastic IPs disassociated.
func (f *Fake) terminated(in *instance) {
	for _, b := range slices.Clone(in.BlockDevices) {
		v := f.volumes[b.VolumeID]
		f.detach(v)
		if b.DeleteOnTermination {
			f.removeVolume(v.ID)
		}
	}
	for _, a := range f.addresses {
		if a.InstanceID == in.ID {
			f.disassociate(a)
		}
	}
}

// hasTags reports whether tags hold every wanted tag with its value.
func hasTags(tags, want map[string]string) bool {
	for k, v := range want {
		if got, ok := tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}
