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

package deletion

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// prepareTermination settles the Elastic IP and the data volumes before the instance
// is terminated (deletionPolicy Delete), so that nothing the operator created outlives
// the object unless the spec said to keep it:
//   - the Elastic IP is disassociated, and released when the operator allocated it
//     (also one whose allocation was never recorded, found by the ownership tag);
//   - each data volume's deleteOnTermination is set as the spec says, so that EC2
//     deletes the volumes at termination; volumes to keep are released (their
//     ownership tags replaced by the released-from tag); a volume not attached (just
//     created, or being removed) is deleted or released here, and so is one whose
//     CreateVolume answer was lost, found by its tags.
//
// Every step is safe to repeat after a crash: a second disassociation or release of
// something already gone succeeds.
func (d *Phase) prepareTermination(ctx context.Context, s *pass.Scope, inst *ec2.Instance) error {
	if err := d.releaseAddresses(ctx, s); err != nil {
		return fmt.Errorf("releasing the Elastic IP: %w", err)
	}
	attached := map[string]ec2.BlockDevice{}
	for _, bd := range inst.BlockDevices {
		attached[bd.Device] = bd
	}
	for _, dev := range volumeDevices(s) {
		del, volumeID := volumeFate(s, dev)
		bd, isAttached := attached[dev]
		switch {
		case isAttached && (volumeID == "" || bd.VolumeID == volumeID):
			if bd.DeleteOnTermination != del {
				if err := d.EC2Of(s).SetDeleteOnTermination(ctx, inst.ID, dev, del); err != nil {
					return fmt.Errorf("volume %s: %w", dev, err)
				}
			}
			if !del {
				if err := pass.ReleaseResources(ctx, d.EC2Of(s), inst.ID, bd.VolumeID); err != nil {
					return fmt.Errorf("releasing volume %s: %w", bd.VolumeID, err)
				}
			}
		case volumeID != "":
			if err := d.disposeDetachedVolume(ctx, s, inst.ID, volumeID, del); err != nil {
				return fmt.Errorf("volume %s: %w", dev, err)
			}
		}
	}
	return d.settleUnrecordedVolumes(ctx, s, inst.ID)
}

// disposeDetachedVolume deletes or releases a volume that is not attached to the
// instance; one still detaching (or creating) is waited for.
func (d *Phase) disposeDetachedVolume(ctx context.Context, s *pass.Scope, instanceID, volumeID string, del bool) error {
	found, err := d.EC2Of(s).DescribeVolumes(ctx, []string{volumeID})
	if err != nil {
		return err
	}
	if vol, ok := found[volumeID]; ok {
		return d.disposeFoundVolume(ctx, s, instanceID, vol, del)
	}
	return nil
}

// disposeFoundVolume deletes or releases a volume as DescribeVolumes described it,
// unless it is attached; one still detaching or creating is waited for (an error
// says so, and the deletion is retried with backoff). A volume whose creation failed
// (state error) will never be available, and is dealt with as it is.
func (d *Phase) disposeFoundVolume(ctx context.Context, s *pass.Scope, instanceID string, vol ec2.Volume, del bool) error {
	switch {
	case vol.AttachedTo != "" && vol.AttachedTo != instanceID:
		return nil // someone else's now
	case vol.AttachedTo == instanceID:
		return nil // attached after all: goes with the instance
	case vol.State != "available" && vol.State != ec2.VolumeStateError:
		return &awserrors.Error{Kind: awserrors.KindIncorrectState, Operation: "DeleteVolume", Code: "IncorrectState",
			Message: fmt.Sprintf("volume %s is %s; waiting before deleting it", vol.ID, vol.State)}
	}
	return d.Kernel.DisposeVolume(ctx, s, instanceID, vol.ID, del)
}

// settleUnrecordedVolumes deals with the data volumes created for the object that
// status does not name (their CreateVolume answer was lost) as it would had status
// recorded them: with deletionPolicy Retain they are released where they are;
// otherwise each is deleted or, when the spec keeps it (deleteOnTermination false),
// released, once it is done being created. One attached to the instance goes with it
// under Delete, as the deleteOnTermination set for its device says.
func (d *Phase) settleUnrecordedVolumes(ctx context.Context, s *pass.Scope, instanceID string) error {
	lost, err := d.unrecordedVolumes(ctx, s, instanceID)
	if err != nil {
		return fmt.Errorf("finding the volumes whose creation was not recorded: %w", err)
	}
	var release []string
	for _, vol := range lost {
		if s.Obj.Spec.DeletionPolicy == computev1alpha1.DeletionPolicyRetain {
			release = append(release, vol.ID)
			continue
		}
		del, _ := volumeFate(s, vol.Tags[ec2.TagDevice])
		if err := d.disposeFoundVolume(ctx, s, instanceID, vol, del); err != nil {
			return fmt.Errorf("volume %s: %w", vol.ID, err)
		}
	}
	if len(release) == 0 {
		return nil
	}
	return pass.ReleaseResources(ctx, d.EC2Of(s), instanceID, release...)
}

// unrecordedVolumes finds the data volumes the operator created for the object that
// status does not name. A CreateVolume whose answer was lost (a crash, a timeout)
// leaves only its client token in status; the volume carries the object's owner tag
// and the device tag, which only volumes created after launch have. Volumes attached
// to another instance are someone else's now and left out. Only an object that sent
// CreateVolume (a client token in status) is looked up, in one DescribeVolumes call.
func (d *Phase) unrecordedVolumes(ctx context.Context, s *pass.Scope, instanceID string) ([]ec2.Volume, error) {
	known := map[string]bool{}
	sent := false
	for _, v := range s.Obj.Status.Volumes {
		known[v.VolumeID] = true
		sent = sent || v.ClientToken != ""
	}
	if !sent {
		return nil, nil
	}
	found, err := d.EC2Of(s).FindVolumes(ctx, map[string]string{ec2.TagOwnerUID: string(s.Obj.UID)})
	if err != nil {
		return nil, err
	}
	var out []ec2.Volume
	for _, vol := range found {
		switch {
		case vol.Tags[ec2.TagDevice] == "", known[vol.ID], pass.ClaimOf(vol.Tags, string(s.Obj.UID), d.ClusterID) != pass.ClaimOurs:
		case vol.AttachedTo != "" && vol.AttachedTo != instanceID:
		default:
			out = append(out, vol)
		}
	}
	return out, nil
}

// releaseAddresses lets go of the object's Elastic IP before termination.
func (d *Phase) releaseAddresses(ctx context.Context, s *pass.Scope) error {
	var released string
	if eip := s.Obj.Status.ElasticIP; eip != nil {
		// The instance is about to be terminated: no need to forget its description.
		if err := d.Kernel.LetGoOfAddress(ctx, s, "", *eip); err != nil {
			return err
		}
		released = eip.AllocationID
		s.Obj.Status.ElasticIP = nil
	}
	spec := s.Obj.Spec.ElasticIP
	if spec != nil && !spec.Allocate && spec.AllocationID != "" {
		return d.letGoOfGivenAddress(ctx, s, spec.AllocationID)
	}
	if spec == nil || !spec.Allocate {
		return nil
	}
	// An address allocated by an earlier pass that crashed before recording it.
	owned, err := d.Kernel.OwnAddresses(ctx, s)
	if err != nil {
		return err
	}
	for _, a := range owned {
		if a.AllocationID == released {
			continue
		}
		if a.AssociationID != "" {
			if err := d.EC2Of(s).DisassociateAddress(ctx, a.AssociationID, ""); err != nil {
				return err
			}
		}
		if err := d.EC2Of(s).ReleaseAddress(ctx, a.AllocationID); err != nil {
			return err
		}
		s.Event(corev1.EventTypeNormal, "ElasticIPReleased", fmt.Sprintf("released Elastic IP %s (%s), which the operator allocated", a.PublicIP, a.AllocationID))
	}
	return nil
}

// letGoOfGivenAddress disassociates the given address from the object's instance as
// EC2 has it, not as status says: the object may be deleted right after a pass that
// associated the address, before the cache has seen that pass's status, and the
// address must not stay with an instance that is going.
func (d *Phase) letGoOfGivenAddress(ctx context.Context, s *pass.Scope, allocationID string) error {
	found, err := d.EC2Of(s).DescribeAddresses(ctx, []string{allocationID})
	if err != nil {
		return err
	}
	a, ok := found[allocationID]
	if !ok || a.AssociationID == "" || a.InstanceID == "" || a.InstanceID != s.Obj.Status.InstanceID {
		return nil
	}
	if err := d.EC2Of(s).DisassociateAddress(ctx, a.AssociationID, ""); err != nil {
		return err
	}
	s.Event(corev1.EventTypeNormal, "ElasticIPDisassociated", fmt.Sprintf("disassociated Elastic IP %s (%s); it stays allocated", a.PublicIP, a.AllocationID))
	return nil
}

// retainResources releases (rather than deletes) what the operator created besides the
// instance, for deletionPolicy Retain: an Elastic IP it allocated stays associated and
// data volumes not attached stay where they are, all without ownership tags; so do
// volumes whose CreateVolume answer was lost, found by their tags.
func (d *Phase) retainResources(ctx context.Context, s *pass.Scope, inst *ec2.Instance) error {
	var ids []string
	if eip := s.Obj.Status.ElasticIP; eip != nil && eip.AllocatedByOperator {
		ids = append(ids, eip.AllocationID)
	}
	attached := map[string]bool{}
	for _, id := range inst.VolumeIDs {
		attached[id] = true
	}
	for _, v := range s.Obj.Status.Volumes {
		if v.VolumeID != "" && !attached[v.VolumeID] {
			ids = append(ids, v.VolumeID)
		}
	}
	if len(ids) > 0 {
		if err := pass.ReleaseResources(ctx, d.EC2Of(s), inst.ID, ids...); err != nil {
			return err
		}
	}
	return d.settleUnrecordedVolumes(ctx, s, inst.ID)
}

// volumeDevices lists the devices of the spec's volumes and of the volumes in status.
func volumeDevices(s *pass.Scope) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s.Obj.Spec.Volumes {
		if !seen[v.DeviceName] {
			seen[v.DeviceName] = true
			out = append(out, v.DeviceName)
		}
	}
	for _, v := range s.Obj.Status.Volumes {
		if !seen[v.DeviceName] {
			seen[v.DeviceName] = true
			out = append(out, v.DeviceName)
		}
	}
	return out
}

// volumeFate says whether the volume at dev goes with the instance, and its ID when
// status knows it: the spec's deleteOnTermination, or for a volume being removed the
// one recorded when it was in the spec.
func volumeFate(s *pass.Scope, dev string) (bool, string) {
	var id string
	for _, v := range s.Obj.Status.Volumes {
		if v.DeviceName == dev {
			id = v.VolumeID
			if v.Removing {
				return v.DeleteOnTermination, id
			}
		}
	}
	if v := plan.SpecVolume(s.Obj, dev); v != nil {
		return plan.DeleteOnTermination(*v), id
	}
	return true, id
}
