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

// A volume whose creation fails is answered creating like any other; when its
// creation time is up it is gone (DescribeVolumes by id: InvalidVolume.NotFound) or in
// the error state, in which DeleteVolume may remove it. The next volume, with no
// failure armed, becomes available.
func TestFailedVolumeCreationVanishesOrEndsInTheErrorState(t *testing.T) {
	clock := newFakeClock()
	sim, c := newEnv(t, Config{Seed: 201, Now: clock.Now, VolumeCreateDuration: time.Minute})
	sim.FailNextVolumeCreation(VolumeVanishes)
	sim.FailNextVolumeCreation(VolumeErrors)
	create := func(token string) string {
		t.Helper()
		out, err := c.CreateVolume(simtest.Ctx(t), &ec2.CreateVolumeInput{AvailabilityZone: aws.String(zoneA), Size: aws.Int32(1), ClientToken: aws.String(token)})
		if err != nil {
			t.Fatalf("CreateVolume: %v", err)
		}
		if out.State != types.VolumeStateCreating {
			t.Fatalf("CreateVolume answered %s, want creating", out.State)
		}
		return aws.ToString(out.VolumeId)
	}
	gone := create("fails-1")
	if again := create("fails-1"); again != gone {
		t.Fatalf("a retry by token created %s, want %s", again, gone)
	}
	failed := create("fails-2")
	healthy := create("healthy")
	if got := describeVol(t, c, gone).State; got != types.VolumeStateCreating {
		t.Fatalf("volume %s is %s before its creation time is up, want creating", gone, got)
	}

	clock.Advance(time.Minute)
	_, err := c.DescribeVolumes(simtest.Ctx(t), &ec2.DescribeVolumesInput{VolumeIds: []string{gone}})
	simtest.WantCode(t, err, "InvalidVolume.NotFound")
	if got := describeVol(t, c, failed).State; got != types.VolumeStateError {
		t.Errorf("volume %s is %s, want error", failed, got)
	}
	if got := describeVol(t, c, healthy).State; got != types.VolumeStateAvailable {
		t.Errorf("volume %s is %s, want available: only two failures were armed", healthy, got)
	}
	if _, err := c.DeleteVolume(simtest.Ctx(t), &ec2.DeleteVolumeInput{VolumeId: aws.String(failed)}); err != nil {
		t.Fatalf("DeleteVolume of a volume in the error state: %v", err)
	}
	if _, ok := sim.Volume(failed); ok {
		t.Error("the volume in the error state was not deleted")
	}
}
