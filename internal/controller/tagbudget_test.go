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
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/controller/converge"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// TestTagsPastEC2sLimitAreRefusedWithoutACall: tags added outside Kubernetes fill the
// instance to EC2's 50; a tag the spec adds then cannot be set. It is refused with
// TagLimitExceeded naming the counts, without a CreateTags call that could only fail,
// and it goes through once tags are removed. Shipped resync periods: the spec edit is
// the event.
func TestTagsPastEC2sLimitAreRefusedWithoutACall(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{tweak: func(r *EC2InstanceReconciler) {
		r.ResyncPeriod, r.AttributeResyncPeriod = DefaultResyncPeriod, DefaultAttributeResyncPeriod
	}})
	h.create(h.instance("full"))
	got := h.waitReady("full")
	outside := map[string]string{}
	for i := len(h.simInstance(got.Status.InstanceID).Tags); i < converge.MaxInstanceTags; i++ {
		outside[fmt.Sprintf("cost-center-%d", i)] = "x"
	}
	if err := h.sim.SetTags(got.Status.InstanceID, outside); err != nil {
		t.Fatal(err)
	}
	before := h.sim.Calls("CreateTags")
	m := h.mark("full")
	h.update("full", func(o *computev1alpha1.EC2Instance) { o.Spec.Tags["owner"] = "payments" })
	h.waitConditionSince(m, computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonTagLimitExceeded)
	// The pass that still had the instance's tags from before the outside ones may ask
	// EC2 once (EC2 refuses, as the emulator does); every pass after that counts the
	// tags it read afresh and refuses without a call.
	h.eventually(h.timeout, func() string {
		if msg := findCondition(h.get("full"), computev1alpha1.ConditionReady).Message; !strings.Contains(msg, "would make 51") {
			return "Ready says " + msg
		}
		return ""
	})
	asked := h.sim.Calls("CreateTags") - before
	if asked > 1 {
		t.Errorf("CreateTags called %d times for tags that cannot fit, want at most the one before the tags were read again", asked)
	}
	time.Sleep(3 * time.Second) // several backoff periods of the refused pass
	if n := h.sim.Calls("CreateTags") - before; n != asked {
		t.Errorf("CreateTags called %d more times while the tags could not fit", n-asked)
	}

	// Someone removes the outside tags: the spec's tag is set at the next pass (the
	// failure's backoff), without another edit.
	if err := h.sim.ModifyInstance(got.Status.InstanceID, func(rec *ec2sim.InstanceRecord) {
		for k := range outside {
			delete(rec.Tags, k)
		}
	}); err != nil {
		t.Fatal(err)
	}
	h.eventually(h.timeout, func() string {
		if v := h.simInstance(got.Status.InstanceID).Tags["owner"]; v != "payments" {
			return "the spec's tag is not set yet"
		}
		return ""
	})
}
