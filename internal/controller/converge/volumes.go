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

package converge

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// volumePass carries one pass over the data volumes: what EC2 said about the instance
// and the volumes, and the status entries being rebuilt.
type volumePass struct {
	s        *pass.Scope
	ec2      EC2
	inst     *ec2.Instance
	attached map[string]ec2.BlockDevice
	// described holds DescribeVolumes' answer for the volumes that needed a look.
	described map[string]ec2.Volume
	entries   map[string]*computev1alpha1.VolumeStatus
	// busy says something was changed or is in transition: come back soon.
	busy bool
}

// convergeVolumes moves the data volumes one step toward spec.volumes: it creates
// and attaches volumes added to the spec, detaches and deletes (or releases) volumes
// removed from it, and changes size, type, IOPS, throughput and deleteOnTermination in
// place. Volumes are described only when they need it (new, changed in the spec, in
// transition, or once per attribute resync when refresh is set), in one batched call
// shared with other objects. It reports whether the volumes are still moving.
func (ph *Phase) convergeVolumes(ctx context.Context, s *pass.Scope, inst *ec2.Instance, refresh bool) (bool, error) {
	if len(s.Obj.Spec.Volumes) == 0 && len(s.Obj.Status.Volumes) == 0 {
		return false, nil
	}
	p := &volumePass{s: s, ec2: ph.EC2Of(s), inst: inst, attached: map[string]ec2.BlockDevice{}, entries: map[string]*computev1alpha1.VolumeStatus{}}
	for _, bd := range inst.BlockDevices {
		p.attached[bd.Device] = bd
	}
	for i := range s.Obj.Status.Volumes {
		e := s.Obj.Status.Volumes[i]
		p.entries[e.DeviceName] = &e
	}
	if err := p.describe(ctx, refresh); err != nil {
		return false, err
	}
	defer p.writeStatus()
	for _, v := range s.Obj.Spec.Volumes {
		if err := ph.convergeVolume(ctx, p, v); err != nil {
			return p.busy, fmt.Errorf("volume %s: %w", v.DeviceName, err)
		}
	}
	for _, dev := range sortedDevices(p.entries) {
		if plan.SpecVolume(s.Obj, dev) == nil {
			if err := ph.removeVolume(ctx, p, p.entries[dev]); err != nil {
				return p.busy, fmt.Errorf("removing volume %s: %w", dev, err)
			}
		}
	}
	return p.busy, nil
}

// describe reads the volumes that need a look in one batched DescribeVolumes call.
func (p *volumePass) describe(ctx context.Context, refresh bool) error {
	var ids []string
	for _, e := range p.entries {
		bd, attached := p.attached[e.DeviceName]
		v := plan.SpecVolume(p.s.Obj, e.DeviceName)
		switch {
		case e.VolumeID == "":
		case refresh, e.Type == "", e.Removing, v == nil, !attached || bd.VolumeID != e.VolumeID, bd.Status != "attached",
			plan.VolumeChange(v, e) != (ec2.VolumeChange{}):
			ids = append(ids, e.VolumeID)
		}
	}
	for dev, bd := range p.attached {
		if v := plan.SpecVolume(p.s.Obj, dev); v != nil && p.entries[dev] == nil && !knownFromSpec(p.s, v) {
			ids = append(ids, bd.VolumeID) // first seen, and not known from the spec
		}
	}
	if len(ids) == 0 {
		p.described = map[string]ec2.Volume{}
		return nil
	}
	slices.Sort(ids)
	found, err := p.ec2.DescribeVolumes(ctx, slices.Compact(ids))
	p.described = found
	return err
}

// convergeVolume handles one volume of the spec.
func (ph *Phase) convergeVolume(ctx context.Context, p *volumePass, v computev1alpha1.DataVolume) error {
	s, inst := p.s, p.inst
	e := p.entries[v.DeviceName]
	if e == nil {
		e = &computev1alpha1.VolumeStatus{DeviceName: v.DeviceName}
		p.entries[v.DeviceName] = e
	}
	e.Removing = false
	e.DeleteOnTermination = plan.DeleteOnTermination(v)

	if bd, ok := p.attached[v.DeviceName]; ok && (e.VolumeID == "" || e.VolumeID == bd.VolumeID) {
		if e.VolumeID == "" && knownFromSpec(s, &v) {
			// Launched with the instance from this very spec: what it is is known
			// without DescribeVolumes (the attribute resync reads it later).
			plan.FromSpec(e, v)
		}
		e.VolumeID, e.AttachmentState = bd.VolumeID, bd.Status
		p.observe(e)
		if bd.Status != "attached" {
			p.busy = true
			return nil
		}
		return ph.adjustVolume(ctx, p, v, e, bd)
	}
	if bd, ok := p.attached[v.DeviceName]; ok {
		return &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "AttachVolume", Code: "DeviceInUse",
			Message: fmt.Sprintf("device %s of instance %s holds volume %s, not the operator's volume %s; free the device or use another deviceName",
				v.DeviceName, inst.ID, bd.VolumeID, e.VolumeID)}
	}
	if inst.State != ec2.StateRunning && inst.State != ec2.StateStopped {
		p.busy = true
		return nil
	}
	if e.VolumeID == "" {
		return ph.createVolume(ctx, p, v, e)
	}
	vol, ok := p.described[e.VolumeID]
	if !ok || vol.State == ec2.VolumeStateError {
		return ph.volumeMissing(ctx, p, v, e, ok)
	}
	return ph.attachVolume(ctx, p, v, e, vol)
}

// attachVolume attaches a created volume once it is available, and waits while it is
// being created or attached.
func (ph *Phase) attachVolume(ctx context.Context, p *volumePass, v computev1alpha1.DataVolume, e *computev1alpha1.VolumeStatus, vol ec2.Volume) error {
	s, inst := p.s, p.inst
	ph.Creating.Seen(s.Obj.UID, e.VolumeID)
	e.State = vol.State
	switch {
	case vol.State == "creating" || vol.AttachedTo == inst.ID:
		p.busy = true
		return nil
	case vol.AttachedTo != "":
		return &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "AttachVolume", Code: "VolumeInUse",
			Message: fmt.Sprintf("volume %s is attached to %s", vol.ID, vol.AttachedTo)}
	case vol.State != "available":
		p.busy = true
		return nil
	}
	if err := ph.EC2Of(s).AttachVolume(ctx, vol.ID, inst.ID, v.DeviceName); err != nil {
		return err
	}
	e.AttachmentState = "attaching"
	s.Event(corev1.EventTypeNormal, "VolumeAttached", fmt.Sprintf("attaching volume %s at %s", vol.ID, v.DeviceName))
	p.busy = true
	return nil
}

// adjustVolume applies in place what the spec changes on an attached volume.
func (ph *Phase) adjustVolume(ctx context.Context, p *volumePass, v computev1alpha1.DataVolume, e *computev1alpha1.VolumeStatus, bd ec2.BlockDevice) error {
	s := p.s
	if want := plan.DeleteOnTermination(v); bd.DeleteOnTermination != want {
		if err := ph.EC2Of(s).SetDeleteOnTermination(ctx, p.inst.ID, v.DeviceName, want); err != nil {
			return err
		}
		ph.driftCorrected(s, plan.Drift{Field: "volumes[" + v.DeviceName + "].deleteOnTermination",
			Actual: strconv.FormatBool(bd.DeleteOnTermination), Desired: strconv.FormatBool(want)})
		p.busy = true
	}
	if _, fresh := p.described[e.VolumeID]; !fresh {
		return nil
	}
	change := plan.VolumeChange(&v, e)
	if change == (ec2.VolumeChange{}) {
		return nil
	}
	if err := ph.EC2Of(s).ModifyVolume(ctx, e.VolumeID, change); err != nil {
		return err
	}
	ph.driftCorrected(s, plan.Drift{Field: "volumes[" + v.DeviceName + "]", Actual: plan.DescribeVolume(*e), Desired: plan.DescribeChange(change)})
	plan.ApplyChange(e, change)
	p.busy = true
	return nil
}

// removeVolume takes a volume that left the spec away: detach, then delete it (its
// deleteOnTermination was true) or release it (remove the ownership tags, mark it
// released). The status entry stays, marked removing, until the volume is done with.
func (ph *Phase) removeVolume(ctx context.Context, p *volumePass, e *computev1alpha1.VolumeStatus) error {
	s, inst := p.s, p.inst
	e.Removing = true
	if e.VolumeID == "" && e.ClientToken != "" {
		// The volume may have been created with its answer lost, and its parameters
		// left the spec with it: it is found by its owner and device tags instead.
		found, err := ph.EC2Of(s).FindVolumes(ctx, map[string]string{ec2.TagOwnerUID: string(s.Obj.UID), ec2.TagDevice: e.DeviceName})
		if err != nil {
			return err
		}
		for _, vol := range found {
			if pass.ClaimOf(vol.Tags, string(s.Obj.UID), ph.ClusterID) != pass.ClaimOurs {
				continue
			}
			if vol.AttachedTo == "" || vol.AttachedTo == inst.ID {
				e.VolumeID = vol.ID
				p.described[vol.ID] = vol
			}
		}
	}
	if e.VolumeID == "" {
		p.forget(e)
		return nil
	}
	if bd, ok := p.attached[e.DeviceName]; ok && bd.VolumeID == e.VolumeID {
		if bd.Status == "attached" || bd.Status == "attaching" {
			if err := ph.EC2Of(s).DetachVolume(ctx, e.VolumeID, inst.ID); err != nil {
				return err
			}
			s.Event(corev1.EventTypeNormal, "VolumeDetached", fmt.Sprintf("detaching volume %s from %s: it left spec.volumes", e.VolumeID, e.DeviceName))
		}
		e.AttachmentState = "detaching"
		p.busy = true
		return nil
	}
	vol, ok := p.described[e.VolumeID]
	if !ok {
		p.forget(e) // gone already
		return nil
	}
	if vol.State != "available" && vol.State != ec2.VolumeStateError {
		p.busy = true
		return nil
	}
	if err := ph.DisposeVolume(ctx, s, inst.ID, vol.ID, e.DeleteOnTermination); err != nil {
		return err
	}
	p.forget(e)
	return nil
}

// DisposeVolume deletes a detached volume or releases it, as its deleteOnTermination
// says.
func (ph *Phase) DisposeVolume(ctx context.Context, s *pass.Scope, instanceID, volumeID string, del bool) error {
	if del {
		if err := ph.EC2Of(s).DeleteVolume(ctx, volumeID); err != nil {
			return err
		}
		s.Event(corev1.EventTypeNormal, "VolumeDeleted", "deleted volume "+volumeID)
		return nil
	}
	if err := pass.ReleaseResources(ctx, ph.EC2Of(s), instanceID, volumeID); err != nil {
		return err
	}
	s.Event(corev1.EventTypeNormal, "VolumeReleased", fmt.Sprintf("left volume %s in place, tagged %s=%s (deleteOnTermination false)", volumeID, ec2.TagReleased, instanceID))
	return nil
}

// observe copies what DescribeVolumes said about the entry's volume, if it was read.
func (p *volumePass) observe(e *computev1alpha1.VolumeStatus) {
	if vol, ok := p.described[e.VolumeID]; ok {
		e.SizeGiB, e.Type, e.IOPS, e.Throughput, e.State = vol.SizeGiB, vol.Type, vol.IOPS, vol.Throughput, vol.State
	}
}

// forget drops a removed volume's entry; the next volume created for its device gets
// a new client token.
func (p *volumePass) forget(e *computev1alpha1.VolumeStatus) {
	delete(p.entries, e.DeviceName)
	p.s.Obj.Status.VolumeRemovals++
}

// writeStatus stores the entries in status, sorted by device so that an unchanged set
// writes nothing.
func (p *volumePass) writeStatus() {
	out := make([]computev1alpha1.VolumeStatus, 0, len(p.entries))
	for _, dev := range sortedDevices(p.entries) {
		out = append(out, *p.entries[dev])
	}
	if len(out) == 0 {
		out = nil
	}
	p.s.Obj.Status.Volumes = out
}

func sortedDevices(m map[string]*computev1alpha1.VolumeStatus) []string {
	out := make([]string, 0, len(m))
	for d := range m {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// knownFromSpec reports whether a volume attached at launch is known without
// describing it: the operator launched the instance from the spec as it is now (not
// adopted, no spec change since the status write of the launch), and the spec gives
// the size (a snapshot's size is only known to EC2).
func knownFromSpec(s *pass.Scope, v *computev1alpha1.DataVolume) bool {
	return s.Obj.Spec.InstanceID == "" && s.Before.Status.ObservedGeneration == s.Obj.Generation && v.SizeGiB != nil
}
