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
	"fmt"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller/launch"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// TestAdoptionLateInitializesAndChangesNothing adopts instances made outside
// Kubernetes with every setting the operator would otherwise enforce from its launch
// defaults turned the other way (IMDSv1, detailed monitoring, termination protection,
// stopped, their own tags), from an object that names only the instance ID. The
// adoption writes the ownership tags (one CreateTags, the claim that keeps a second
// object or cluster off the instance) and nothing else; the spec is filled in from the
// instance; and a field the user then sets is converged.
func TestAdoptionLateInitializesAndChangesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.ec2Client()
	const fleet = 4
	ids := h.launchVariedFleet(c, fleet)
	h.stopOutside(c, ids[1])

	before := h.sim.CallCounts()
	for i, id := range ids {
		h.create(&computev1alpha1.EC2Instance{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("adopted-%d", i), Namespace: h.ns},
			Spec: computev1alpha1.EC2InstanceSpec{InstanceID: id}})
	}
	for i, id := range ids {
		name := fmt.Sprintf("adopted-%d", i)
		got := h.waitReady(name)
		h.waitEvent(name, launch.ReasonLateInitialized)
		s := got.Spec
		wantState := computev1alpha1.DesiredStateRunning
		if i == 1 {
			wantState = computev1alpha1.DesiredStateStopped
		}
		if s.InstanceType != "t3.small" || s.ImageID != ec2sim.DefaultImageID || s.MetadataOptions == nil ||
			s.MetadataOptions.HTTPTokens != computev1alpha1.HTTPTokensOptional || !s.WantsMonitoring() ||
			s.WantsTerminationProtection() != (i%2 == 0) || s.DesiredState != wantState ||
			s.Tags["Name"] != fmt.Sprintf("legacy-%d", i) || s.Tags["cost-center"] != "42" || len(s.SecurityGroupIDs) == 0 {
			t.Errorf("%s: spec not filled in from %s as it is: %+v", name, id, s)
		}
		inst := h.simInstance(id)
		if inst.Tags[ec2.TagOwnerUID] != string(got.UID) {
			t.Errorf("%s: %s not claimed: %v", name, id, inst.Tags)
		}
	}
	writes := mutatingSince(before, h.sim.CallCounts())
	if want := fmt.Sprintf("CreateTags=%d", fleet); writes != want {
		t.Errorf("adopting %d instances made these mutating calls: %s; want only the ownership claim, %s", fleet, writes, want)
	}

	// Taking control of one field: monitoring off on adopted-0 is converged, and
	// nothing else changes.
	before = h.sim.CallCounts()
	m := h.mark("adopted-0")
	h.update("adopted-0", func(o *computev1alpha1.EC2Instance) { o.Spec.Monitoring = ptr.To(false) })
	h.waitConditionSince(m, computev1alpha1.ConditionReady, metav1.ConditionTrue, computev1alpha1.ReasonAvailable)
	h.eventually(h.timeout, func() string {
		return unless(!h.simInstance(ids[0]).Monitoring, "monitoring still on")
	})
	if writes := mutatingSince(before, h.sim.CallCounts()); writes != "UnmonitorInstances=1" {
		t.Errorf("turning monitoring off made %s, want UnmonitorInstances=1", writes)
	}
}

// mutatingSince lists, sorted, the calls other than Describe* made between two
// snapshots of the emulator's call counts.
func mutatingSince(before, after map[string]int) string {
	var out []string
	for op, n := range after {
		if d := n - before[op]; d > 0 && !strings.HasPrefix(op, "Describe") {
			out = append(out, fmt.Sprintf("%s=%d", op, d))
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}
