package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// createVolume creates a volume added to the spec after launch, in the instance's
// zone. Its client token is derived from everything the call sends, so that a retry of
// the same request finds the volume of the first, and a request the spec changed
// since gets a token of its own (EC2 refuses a token reused with other parameters for
// ever). The token is written to status before CreateVolume and its answer right
// after, so that a crash anywhere between them finds the same volume again instead of
// creating a second one.
func (r *EC2InstanceReconciler) createVolume(ctx context.Context, p *volumePass, v computev1alpha1.DataVolume, e *computev1alpha1.VolumeStatus) error {
	s, inst := p.s, p.inst
	tags := desiredTags(s.obj, r.ClusterID)
	tags[ec2.TagDevice] = v.DeviceName
	req := volumeRequest(v)
	token := ec2.VolumeClientToken(string(s.obj.UID), inst.ID, s.obj.Status.VolumeRemovals, inst.AvailabilityZone, req, tags)
	if e.ClientToken != token {
		if e.ClientToken != "" {
			// An earlier request, with other parameters, may have created a volume whose
			// answer was lost: that one is taken instead of a second.
			if found, err := r.adoptUnrecordedVolume(ctx, p, e); found || err != nil {
				return err
			}
		}
		e.ClientToken = token
		p.writeStatus()
		if err := s.patchStatus(ctx, r.Client); err != nil {
			return err
		}
	}
	vol, err := s.ec2.CreateVolume(ctx, inst.AvailabilityZone, token, req, tags)
	if ec2.KindOf(err) == ec2.KindIdempotencyConflict {
		// EC2 will refuse this token whatever is asked again. Counting it as a removal
		// gives the next pass a new token, which first looks for a volume the refused
		// one may have created; the refusal is reported and backed off from meanwhile.
		s.obj.Status.VolumeRemovals++
		return err
	}
	if err != nil {
		return err
	}
	e.VolumeID, e.State, e.SizeGiB, e.Type, e.IOPS, e.Throughput = vol.ID, vol.State, vol.SizeGiB, vol.Type, vol.IOPS, vol.Throughput
	r.event(s, corev1.EventTypeNormal, "VolumeCreated", fmt.Sprintf("created volume %s for %s in %s", vol.ID, v.DeviceName, inst.AvailabilityZone))
	p.writeStatus()
	p.busy = true
	return s.patchStatus(ctx, r.Client)
}

// adoptUnrecordedVolume looks for a volume created for the entry's device by a
// CreateVolume whose answer was lost, by the object's owner and device tags, and
// records it in the entry: it is then attached and changed in place to match the spec
// like a volume whose answer came. It reports whether it found one.
func (r *EC2InstanceReconciler) adoptUnrecordedVolume(ctx context.Context, p *volumePass, e *computev1alpha1.VolumeStatus) (bool, error) {
	s, inst := p.s, p.inst
	found, err := s.ec2.FindVolumes(ctx, map[string]string{ec2.TagOwnerUID: string(s.obj.UID), ec2.TagDevice: e.DeviceName})
	if err != nil {
		return false, err
	}
	for _, vol := range found {
		usable := vol.State == "creating" || vol.State == "available"
		if r.claimOf(s, vol.Tags) != claimOurs || vol.AttachedTo != "" || vol.AvailabilityZone != inst.AvailabilityZone || !usable {
			continue
		}
		e.VolumeID, e.State, e.SizeGiB, e.Type, e.IOPS, e.Throughput = vol.ID, vol.State, vol.SizeGiB, vol.Type, vol.IOPS, vol.Throughput
		p.described[vol.ID] = vol
		r.event(s, corev1.EventTypeNormal, "VolumeCreated", fmt.Sprintf(
			"found volume %s for %s, created by an earlier CreateVolume whose answer was lost; it is changed to match the spec", vol.ID, e.DeviceName))
		p.writeStatus()
		p.busy = true
		return true, s.patchStatus(ctx, r.Client)
	}
	return false, nil
}
