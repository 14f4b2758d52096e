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

	corev1 "k8s.io/api/core/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// codeVolumeCreationFailed marks a volume whose creation EBS gave up after CreateVolume
// answered (it vanished, or ended in the error state); reasonsByCode maps it to
// VolumeNotFound.
const codeVolumeCreationFailed = "VolumeCreationFailed"

// createVolume creates a volume added to the spec after launch, in the instance's
// zone. Its client token is derived from everything the call sends, so that a retry of
// the same request finds the volume of the first, and a request the spec changed
// since gets a token of its own (EC2 refuses a token reused with other parameters for
// ever). The token is written to status before CreateVolume and its answer right
// after, so that a crash anywhere between them finds the same volume again instead of
// creating a second one.
func (ph *Phase) createVolume(ctx context.Context, p *volumePass, v computev1alpha1.DataVolume, e *computev1alpha1.VolumeStatus) error {
	s, inst := p.s, p.inst
	tags := plan.DesiredTags(s.Obj, ph.ClusterID)
	tags[ec2.TagDevice] = v.DeviceName
	req := plan.VolumeRequest(v)
	token := ec2.VolumeClientToken(string(s.Obj.UID), inst.ID, s.Obj.Status.VolumeRemovals, inst.AvailabilityZone, req, tags)
	if e.ClientToken != token {
		if e.ClientToken != "" {
			// An earlier request, with other parameters, may have created a volume whose
			// answer was lost: that one is taken instead of a second.
			if found, err := ph.adoptUnrecordedVolume(ctx, p, e); found || err != nil {
				return err
			}
		}
		e.ClientToken = token
		p.writeStatus()
		if err := s.PatchStatus(ctx, ph.Client); err != nil {
			return err
		}
	}
	vol, err := ph.EC2Of(s).CreateVolume(ctx, inst.AvailabilityZone, token, req, tags)
	if awserrors.KindOf(err) == awserrors.KindIdempotencyConflict {
		// EC2 will refuse this token whatever is asked again. Counting it as a removal
		// gives the next pass a new token, which first looks for a volume the refused
		// one may have created; the refusal is reported and backed off from meanwhile.
		s.Obj.Status.VolumeRemovals++
		return err
	}
	if err != nil {
		return err
	}
	e.VolumeID, e.State, e.SizeGiB, e.Type, e.IOPS, e.Throughput = vol.ID, vol.State, vol.SizeGiB, vol.Type, vol.IOPS, vol.Throughput
	s.Event(corev1.EventTypeNormal, "VolumeCreated", fmt.Sprintf("created volume %s for %s in %s", vol.ID, v.DeviceName, inst.AvailabilityZone))
	p.writeStatus()
	p.busy = true
	return s.PatchStatus(ctx, ph.Client)
}

// adoptUnrecordedVolume looks for a volume created for the entry's device by a
// CreateVolume whose answer was lost, by the object's owner and device tags, and
// records it in the entry: it is then attached and changed in place to match the spec
// like a volume whose answer came. It reports whether it found one.
func (ph *Phase) adoptUnrecordedVolume(ctx context.Context, p *volumePass, e *computev1alpha1.VolumeStatus) (bool, error) {
	s, inst := p.s, p.inst
	found, err := ph.EC2Of(s).FindVolumes(ctx, map[string]string{ec2.TagOwnerUID: string(s.Obj.UID), ec2.TagDevice: e.DeviceName})
	if err != nil {
		return false, err
	}
	for _, vol := range found {
		usable := vol.State == "creating" || vol.State == "available"
		if pass.ClaimOf(vol.Tags, string(s.Obj.UID), ph.ClusterID) != pass.ClaimOurs || vol.AttachedTo != "" || vol.AvailabilityZone != inst.AvailabilityZone || !usable {
			continue
		}
		e.VolumeID, e.State, e.SizeGiB, e.Type, e.IOPS, e.Throughput = vol.ID, vol.State, vol.SizeGiB, vol.Type, vol.IOPS, vol.Throughput
		p.described[vol.ID] = vol
		s.Event(corev1.EventTypeNormal, "VolumeCreated", fmt.Sprintf(
			"found volume %s for %s, created by an earlier CreateVolume whose answer was lost; it is changed to match the spec", vol.ID, e.DeviceName))
		p.writeStatus()
		p.busy = true
		return true, s.PatchStatus(ctx, ph.Client)
	}
	return false, nil
}

// volumeMissing handles a volume status names that DescribeVolumes did not show, or
// showed in the error state. One recorded as being created may not be visible yet
// (CreateVolume's answer can come before DescribeVolumes shows the volume), and is
// waited for as long as a new instance is; after that, or in the error state, EBS gave
// up creating it. That is reported like a failed call (Ready False with
// VolumeNotFound, a Warning event, the workqueue's backoff) and the volume is created
// again under a new client token: EC2 would answer the old one with the failed
// volume. A volume gone after it was created (deleted outside Kubernetes) is created
// again at once, with an event.
func (ph *Phase) volumeMissing(ctx context.Context, p *volumePass, v computev1alpha1.DataVolume, e *computev1alpha1.VolumeStatus, inError bool) error {
	s := p.s
	p.busy = true
	var msg string
	switch {
	case inError:
		if err := ph.EC2Of(s).DeleteVolume(ctx, e.VolumeID); err != nil {
			return err
		}
		msg = fmt.Sprintf("EBS could not create volume %s for %s (it is in the error state) and it was deleted", e.VolumeID, v.DeviceName)
	case e.State == "creating":
		if first := ph.Creating.Missing(s.Obj.UID, e.VolumeID, ph.now()); ph.now().Sub(first) < ph.VisibilityGracePeriod {
			return nil
		}
		msg = fmt.Sprintf("volume %s for %s vanished while EBS was creating it", e.VolumeID, v.DeviceName)
	default:
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonVolumeNotFound,
			fmt.Sprintf("volume %s at %s is gone; creating a new one", e.VolumeID, v.DeviceName))
		ph.renewVolume(s, e)
		return nil
	}
	ph.renewVolume(s, e)
	return &pass.ReasonedError{Reason: computev1alpha1.ReasonVolumeNotFound, Err: &awserrors.Error{Kind: awserrors.KindNotFound, Operation: "CreateVolume",
		Code: codeVolumeCreationFailed, Message: msg + "; creating a new one under a new client token (a KMS key EBS cannot use fails every one)"}}
}

// renewVolume empties the entry of a volume that is gone, so that the next pass
// creates a new one; counting it as removed gives that one a new client token.
func (ph *Phase) renewVolume(s *pass.Scope, e *computev1alpha1.VolumeStatus) {
	ph.Creating.Seen(s.Obj.UID, e.VolumeID)
	s.Obj.Status.VolumeRemovals++
	*e = computev1alpha1.VolumeStatus{DeviceName: e.DeviceName, DeleteOnTermination: e.DeleteOnTermination}
}
