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

package controller

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// TestALaunchWhoseAnswerWasLostAndWhoseRetryWasRefusedIsFoundAndTerminated: RunInstances
// launches but its answer is lost (HTTP 500), and the SDK's retry is refused
// (AuthFailure, as after a rotated key). The instance exists, so the operator must
// neither forget the launch nor release the object at deletion while it runs: it finds
// the instance by its client token, manages it, and terminates it when the object is
// deleted. Before, the refusal counted as "nothing launched": the next pass launched
// again (refused for ever) and a deletion released the object at once, the instance
// left running untracked.
func TestALaunchWhoseAnswerWasLostAndWhoseRetryWasRefusedIsFoundAndTerminated(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.sim.InjectFault(ec2sim.Fault{Operation: "RunInstances", Code: "InternalError", HTTPStatus: 500, AfterEffect: true, Times: 1})
	h.sim.InjectFault(ec2sim.Fault{Operation: "RunInstances", Code: "AuthFailure", HTTPStatus: 401,
		Message: "AWS was not able to validate the provided access credentials"})
	h.create(h.instance("lost"))
	got := h.waitReady("lost")
	if live := h.sim.Instances(); len(live) != 1 || live[0].ID != got.Status.InstanceID {
		t.Fatalf("instances %+v, want the one launched, recorded as %s", live, got.Status.InstanceID)
	}

	if err := h.k8s.Delete(context.Background(), got); err != nil {
		t.Fatal(err)
	}
	h.eventually(h.timeout, func() string {
		if err := h.k8s.Get(context.Background(), client.ObjectKeyFromObject(got), &computev1alpha1.EC2Instance{}); err == nil {
			return "the object is not deleted yet"
		}
		if state := h.simInstance(got.Status.InstanceID).State; state != "shutting-down" && state != "terminated" {
			return "the object is gone but its instance is " + state
		}
		return ""
	})
}
