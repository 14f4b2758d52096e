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
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// zoneA is the zone of DefaultSubnetIDs[0], where basicRun launches.
const zoneA = DefaultRegion + "a"

// createVol creates a volume and returns its id.
func createVol(t *testing.T, c *ec2.Client, in *ec2.CreateVolumeInput) string {
	t.Helper()
	out, err := c.CreateVolume(simtest.Ctx(t), in)
	if err != nil {
		t.Fatalf("CreateVolume: %v", err)
	}
	return aws.ToString(out.VolumeId)
}

// describeVol returns the single volume DescribeVolumes reports for id.
func describeVol(t *testing.T, c *ec2.Client, id string) types.Volume {
	t.Helper()
	out, err := c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{VolumeIds: []string{id}})
	if err != nil || len(out.Volumes) != 1 {
		t.Fatalf("DescribeVolumes(%s): %v %+v", id, err, out)
	}
	return out.Volumes[0]
}

// attachmentState is the state of a volume's only attachment, or "" when it has none.
func attachmentState(v types.Volume) types.VolumeAttachmentState {
	if len(v.Attachments) == 0 {
		return ""
	}
	return v.Attachments[0].State
}

// blockDevice returns the instance's mapping at device, if any.
func blockDevice(inst types.Instance, device string) (types.InstanceBlockDeviceMapping, bool) {
	for _, bd := range inst.BlockDeviceMappings {
		if aws.ToString(bd.DeviceName) == device {
			return bd, true
		}
	}
	return types.InstanceBlockDeviceMapping{}, false
}

// The EBS User Guide's volume lifecycle: CreateVolume answers creating and the
// volume becomes available; AttachVolume (API reference) answers attaching, the
// volume is in-use and the attachment becomes attached, showing in the instance's
// block device mapping with DeleteOnTermination false; DetachVolume answers
// detaching, then the volume is available and gone from the mapping; DeleteVolume
// removes it, after which DescribeVolumes by id reports InvalidVolume.NotFound.
func TestVolumeCreateAttachDetachDeleteWalksEBSStates(t *testing.T) {
	clock := newFakeClock()
	sim, c := newEnv(t, Config{Seed: 80, Now: clock.Now,
		VolumeCreateDuration: 10 * time.Second, VolumeAttachDuration: 5 * time.Second, VolumeDetachDuration: 7 * time.Second})
	inst := runOne(t, c, basicRun())

	created, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(20)})
	if err != nil {
		t.Fatal(err)
	}
	vol := aws.ToString(created.VolumeId)
	if created.State != types.VolumeStateCreating || aws.ToInt32(created.Size) != 20 || created.VolumeType != types.VolumeTypeGp2 ||
		aws.ToString(created.AvailabilityZone) != zoneA || created.CreateTime == nil {
		t.Fatalf("CreateVolume answered %+v", created)
	}
	// A volume still being created cannot be attached.
	_, err = c.AttachVolume(simtest.Ctx(t), &ec2.AttachVolumeInput{VolumeId: aws.String(vol), InstanceId: aws.String(inst), Device: aws.String("/dev/sdf")})
	simtest.WantCode(t, err, "IncorrectState")
	clock.Advance(9 * time.Second)
	if v := describeVol(t, c, vol); v.State != types.VolumeStateCreating {
		t.Fatalf("after 9s state = %s, want creating", v.State)
	}
	clock.Advance(time.Second)
	if v := describeVol(t, c, vol); v.State != types.VolumeStateAvailable || len(v.Attachments) != 0 {
		t.Fatalf("after 10s volume = %+v, want available", v)
	}

	att, err := c.AttachVolume(simtest.Ctx(t), &ec2.AttachVolumeInput{VolumeId: aws.String(vol), InstanceId: aws.String(inst), Device: aws.String("/dev/sdf")})
	if err != nil {
		t.Fatal(err)
	}
	if att.State != types.VolumeAttachmentStateAttaching || aws.ToString(att.InstanceId) != inst || aws.ToString(att.Device) != "/dev/sdf" ||
		aws.ToBool(att.DeleteOnTermination) {
		t.Fatalf("AttachVolume answered %+v", att)
	}
	v := describeVol(t, c, vol)
	if v.State != types.VolumeStateInUse || attachmentState(v) != types.VolumeAttachmentStateAttaching {
		t.Fatalf("while attaching volume = %+v", v)
	}
	if bd, ok := blockDevice(describeOne(t, c, inst), "/dev/sdf"); !ok || bd.Ebs.Status != types.AttachmentStatusAttaching ||
		aws.ToString(bd.Ebs.VolumeId) != vol || aws.ToBool(bd.Ebs.DeleteOnTermination) {
		t.Fatalf("instance mapping while attaching = %+v (found %v)", bd, ok)
	}
	clock.Advance(5 * time.Second)
	if v := describeVol(t, c, vol); attachmentState(v) != types.VolumeAttachmentStateAttached {
		t.Fatalf("after 5s attachment = %+v, want attached", v.Attachments)
	}
	if bd, _ := blockDevice(describeOne(t, c, inst), "/dev/sdf"); bd.Ebs == nil || bd.Ebs.Status != types.AttachmentStatusAttached {
		t.Fatalf("instance mapping after attach = %+v", bd)
	}
	_, err = c.DeleteVolume(simtest.Ctx(t), &ec2.DeleteVolumeInput{VolumeId: aws.String(vol)})
	simtest.WantCode(t, err, "VolumeInUse")

	det, err := c.DetachVolume(simtest.Ctx(t), &ec2.DetachVolumeInput{VolumeId: aws.String(vol)})
	if err != nil {
		t.Fatal(err)
	}
	if det.State != types.VolumeAttachmentStateDetaching || aws.ToString(det.InstanceId) != inst {
		t.Fatalf("DetachVolume answered %+v", det)
	}
	if v := describeVol(t, c, vol); v.State != types.VolumeStateInUse || attachmentState(v) != types.VolumeAttachmentStateDetaching {
		t.Fatalf("while detaching volume = %+v", v)
	}
	clock.Advance(7 * time.Second)
	if v := describeVol(t, c, vol); v.State != types.VolumeStateAvailable || len(v.Attachments) != 0 {
		t.Fatalf("after detaching volume = %+v, want available without attachments", v)
	}
	if _, ok := blockDevice(describeOne(t, c, inst), "/dev/sdf"); ok {
		t.Fatal("a detached volume is still in the instance's block device mapping")
	}

	if _, err := c.DeleteVolume(simtest.Ctx(t), &ec2.DeleteVolumeInput{VolumeId: aws.String(vol)}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{VolumeIds: []string{vol}})
	simtest.WantCode(t, err, "InvalidVolume.NotFound")
	if _, ok := sim.Volume(vol); ok {
		t.Error("Volume still reports the deleted volume")
	}
}

// The Config durations default to zero, which like instances' pending state means
// the transitional state is reported once and over by the next request.
func TestVolumeZeroDurationsCompleteOnTheNextRequest(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 81})
	inst := runOne(t, c, basicRun())
	vol := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)})
	if v, _ := sim.Volume(vol); v.State != VolumeAvailable {
		t.Fatalf("state after the next look = %s", v.State)
	}
	if _, err := c.AttachVolume(simtest.Ctx(t), &ec2.AttachVolumeInput{VolumeId: aws.String(vol), InstanceId: aws.String(inst), Device: aws.String("/dev/sdg")}); err != nil {
		t.Fatal(err)
	}
	if v, _ := sim.Volume(vol); v.Attachment == nil || v.Attachment.State != AttachmentAttached || v.State != VolumeInUse {
		t.Fatalf("volume after the next look = %+v", v)
	}
	if _, err := c.DetachVolume(simtest.Ctx(t), &ec2.DetachVolumeInput{VolumeId: aws.String(vol), InstanceId: aws.String(inst), Device: aws.String("/dev/sdg")}); err != nil {
		t.Fatal(err)
	}
	if v, _ := sim.Volume(vol); v.Attachment != nil || v.State != VolumeAvailable {
		t.Fatalf("volume after the next look = %+v", v)
	}
	if n := len(sim.Volumes()); n != 2 {
		t.Errorf("Volumes() lists %d volumes, want the root volume and the created one", n)
	}
}

// The EC2 API reference's "Ensure idempotency": a CreateVolume retried with the
// same ClientToken and parameters returns the same volume and creates nothing;
// the same token with other parameters fails with IdempotentParameterMismatch.
func TestCreateVolumeIsIdempotentByClientToken(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 82})
	in := &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(10), ClientToken: aws.String("tok-1")}
	first := createVol(t, c, in)
	second := createVol(t, c, in)
	if first != second {
		t.Fatalf("retry created %s, want the original %s", second, first)
	}
	if n := len(sim.Volumes()); n != 1 {
		t.Fatalf("%d volumes exist after a retried CreateVolume, want 1", n)
	}
	_, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(11), ClientToken: aws.String("tok-1")})
	simtest.WantCode(t, err, "IdempotentParameterMismatch")
	if n := len(sim.Volumes()); n != 1 {
		t.Fatalf("%d volumes exist after a mismatched token, want 1", n)
	}
}

// AttachVolume's API reference: "The volume and instance must be within the same
// Availability Zone"; EC2 answers InvalidVolume.ZoneMismatch otherwise.
func TestAttachVolumeInAnotherZoneIsZoneMismatch(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 83})
	inst := runOne(t, c, basicRun())
	vol := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(DefaultRegion + "b"), Size: aws.Int32(1)})
	_, err := c.AttachVolume(simtest.Ctx(t), &ec2.AttachVolumeInput{VolumeId: aws.String(vol), InstanceId: aws.String(inst), Device: aws.String("/dev/sdf")})
	simtest.WantCode(t, err, "InvalidVolume.ZoneMismatch")
}

// A device name already used on the instance cannot take another volume: EC2
// answers InvalidParameterValue "Attachment point ... is already in use", both for
// the root device and for a device attached earlier. A volume already attached is
// VolumeInUse.
func TestAttachVolumeAtAUsedDeviceIsRefused(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 84})
	inst := runOne(t, c, basicRun())
	a := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)})
	b := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)})
	attach := func(vol, dev string) error {
		_, err := c.AttachVolume(simtest.Ctx(t), &ec2.AttachVolumeInput{VolumeId: aws.String(vol), InstanceId: aws.String(inst), Device: aws.String(dev)})
		return err
	}
	err := attach(a, "/dev/xvda")
	simtest.WantCode(t, err, "InvalidParameterValue")
	if want := "Invalid value '/dev/xvda' for unixDevice. Attachment point /dev/xvda is already in use"; simtest.ErrMessage(err) != want {
		t.Errorf("message = %q, want %q", simtest.ErrMessage(err), want)
	}
	if err := attach(a, "/dev/sdf"); err != nil {
		t.Fatal(err)
	}
	simtest.WantCode(t, attach(b, "/dev/sdf"), "InvalidParameterValue")
	simtest.WantCode(t, attach(a, "/dev/sdh"), "VolumeInUse")
}

// AttachVolume's API reference: volumes attach to "a running or stopped
// instance"; a terminated one is IncorrectInstanceState. Stopped instances are
// accepted.
func TestAttachVolumeNeedsARunningOrStoppedInstance(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 85})
	gone := runOne(t, c, basicRun())
	stopped := runOne(t, c, basicRun())
	describeOne(t, c, gone) // both are running now
	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{gone}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{stopped}}); err != nil {
		t.Fatal(err)
	}
	vol := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)})
	_, err := c.AttachVolume(simtest.Ctx(t), &ec2.AttachVolumeInput{VolumeId: aws.String(vol), InstanceId: aws.String(gone), Device: aws.String("/dev/sdf")})
	simtest.WantCode(t, err, "IncorrectInstanceState")
	if _, err := c.AttachVolume(simtest.Ctx(t), &ec2.AttachVolumeInput{VolumeId: aws.String(vol), InstanceId: aws.String(stopped), Device: aws.String("/dev/sdf")}); err != nil {
		t.Fatalf("attaching to a stopped instance: %v", err)
	}
}

// DetachVolume of a volume that is not attached is IncorrectState ("Volume '...'
// is in the 'available' state."), and naming another instance than the one it is
// attached to is InvalidAttachment.NotFound (EC2 error codes page).
func TestDetachVolumeThatIsNotAttachedIsIncorrectState(t *testing.T) {
	_, c := newEnv(t, Config{Seed: 86})
	inst := runOne(t, c, basicRun())
	vol := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)})
	_, err := c.DetachVolume(simtest.Ctx(t), &ec2.DetachVolumeInput{VolumeId: aws.String(vol)})
	simtest.WantCode(t, err, "IncorrectState")
	if want := "Volume '" + vol + "' is in the 'available' state."; simtest.ErrMessage(err) != want {
		t.Errorf("message = %q, want %q", simtest.ErrMessage(err), want)
	}
	if _, err := c.AttachVolume(simtest.Ctx(t), &ec2.AttachVolumeInput{VolumeId: aws.String(vol), InstanceId: aws.String(inst), Device: aws.String("/dev/sdf")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DetachVolume(simtest.Ctx(t), &ec2.DetachVolumeInput{VolumeId: aws.String(vol), InstanceId: aws.String("i-0000000000000dead")})
	simtest.WantCode(t, err, "InvalidAttachment.NotFound")
	_, err = c.DetachVolume(simtest.Ctx(t), &ec2.DetachVolumeInput{VolumeId: aws.String("vol-0000000000000dead")})
	simtest.WantCode(t, err, "InvalidVolume.NotFound")
}

// DetachVolume's API reference: "If an EBS volume is the root device of an
// instance, it can't be detached while the instance is running. To detach the
// root volume, stop the instance first." EC2 answers IncorrectState ("Unable to
// detach root volume ..."); once stopped, the root volume detaches.
func TestDetachRootVolumeOfARunningInstanceIsRefused(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 87})
	inst := runOne(t, c, basicRun())
	rec, _ := sim.Instance(inst)
	_, err := c.DetachVolume(simtest.Ctx(t), &ec2.DetachVolumeInput{VolumeId: aws.String(rec.RootVolumeID)})
	simtest.WantCode(t, err, "IncorrectState")
	if _, err := c.StopInstances(simtest.Ctx(t), &ec2.StopInstancesInput{InstanceIds: []string{inst}}); err != nil {
		t.Fatal(err)
	}
	describeOne(t, c, inst) // stopping completes
	if _, err := c.DetachVolume(simtest.Ctx(t), &ec2.DetachVolumeInput{VolumeId: aws.String(rec.RootVolumeID)}); err != nil {
		t.Fatalf("detaching the root volume of a stopped instance: %v", err)
	}
	if got, _ := sim.Instance(inst); len(got.BlockDevices) != 0 || got.RootVolumeID != "" {
		t.Fatalf("instance after root detach = %+v", got.BlockDevices)
	}
}

// DeleteVolume's API reference: "The volume must be in the available state (not
// attached to an instance)"; an attached one is VolumeInUse, and an unknown id is
// InvalidVolume.NotFound.
func TestDeleteVolumeInUseOrUnknownIsRefused(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 88})
	inst := runOne(t, c, basicRun())
	rec, _ := sim.Instance(inst)
	_, err := c.DeleteVolume(simtest.Ctx(t), &ec2.DeleteVolumeInput{VolumeId: aws.String(rec.RootVolumeID)})
	simtest.WantCode(t, err, "VolumeInUse")
	if want := "Volume " + rec.RootVolumeID + " is currently attached to " + inst; simtest.ErrMessage(err) != want {
		t.Errorf("message = %q, want %q", simtest.ErrMessage(err), want)
	}
	_, err = c.DeleteVolume(simtest.Ctx(t), &ec2.DeleteVolumeInput{VolumeId: aws.String("vol-0000000000000dead")})
	simtest.WantCode(t, err, "InvalidVolume.NotFound")
	_, err = c.DeleteVolume(simtest.Ctx(t), &ec2.DeleteVolumeInput{VolumeId: aws.String("vol-nope")})
	simtest.WantCode(t, err, "InvalidVolumeID.Malformed")
}

// ModifyInstanceAttribute's BlockDeviceMapping (API reference: "Modifies the
// DeleteOnTermination attribute for volumes that are currently attached"): an
// attached volume, kept at termination by default, is deleted with the instance
// once its DeleteOnTermination is set; an unmapped device is refused.
func TestDeleteOnTerminationModificationDeletesTheVolumeAtTermination(t *testing.T) {
	sim, c := newEnv(t, Config{Seed: 89})
	inst := runOne(t, c, basicRun())
	kept := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)})
	doomed := createVol(t, c, &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1)})
	for vol, dev := range map[string]string{kept: "/dev/sdf", doomed: "/dev/sdg"} {
		if _, err := c.AttachVolume(simtest.Ctx(t), &ec2.AttachVolumeInput{VolumeId: aws.String(vol), InstanceId: aws.String(inst), Device: aws.String(dev)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(inst),
		BlockDeviceMappings: []types.InstanceBlockDeviceMappingSpecification{{
			DeviceName: aws.String("/dev/sdg"), Ebs: &types.EbsInstanceBlockDeviceSpecification{DeleteOnTermination: aws.Bool(true)},
		}},
	}); err != nil {
		t.Fatal(err)
	}
	if bd, _ := blockDevice(describeOne(t, c, inst), "/dev/sdg"); bd.Ebs == nil || !aws.ToBool(bd.Ebs.DeleteOnTermination) {
		t.Fatalf("mapping after the modification = %+v", bd)
	}
	if v := describeVol(t, c, doomed); !aws.ToBool(v.Attachments[0].DeleteOnTermination) {
		t.Fatalf("attachment after the modification = %+v", v.Attachments)
	}
	_, err := c.ModifyInstanceAttribute(simtest.Ctx(t), &ec2.ModifyInstanceAttributeInput{
		InstanceId: aws.String(inst),
		BlockDeviceMappings: []types.InstanceBlockDeviceMappingSpecification{{
			DeviceName: aws.String("/dev/sdz"), Ebs: &types.EbsInstanceBlockDeviceSpecification{DeleteOnTermination: aws.Bool(true)},
		}},
	})
	simtest.WantCode(t, err, "InvalidInstanceAttributeValue")

	if _, err := c.TerminateInstances(simtest.Ctx(t), &ec2.TerminateInstancesInput{InstanceIds: []string{inst}}); err != nil {
		t.Fatal(err)
	}
	describeOne(t, c, inst) // shutting-down completes
	if _, ok := sim.Volume(doomed); ok {
		t.Error("the DeleteOnTermination volume survived termination")
	}
	if v, ok := sim.Volume(kept); !ok || v.State != VolumeAvailable || v.Attachment != nil {
		t.Errorf("the kept volume after termination = %+v (exists %v), want available", v, ok)
	}
}
