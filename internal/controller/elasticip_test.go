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
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// waitAssociated waits until the object reports its Elastic IP associated and is
// Ready, and returns it.
func (h *harness) waitAssociated(name string) *computev1alpha1.EC2Instance {
	h.t.Helper()
	var obj *computev1alpha1.EC2Instance
	h.eventually(h.timeout, func() string {
		obj = h.get(name)
		c := findCondition(obj, computev1alpha1.ConditionElasticIPAssociated)
		if c.Status != metav1.ConditionTrue || !readyTrue(obj) || obj.Status.ElasticIP == nil {
			return fmt.Sprintf("%s: Elastic IP not associated: %+v, conditions %+v", name, obj.Status.ElasticIP, obj.Status.Conditions)
		}
		return ""
	})
	return obj
}

// ec2Client is the test's own client for changes made outside Kubernetes.
func (h *harness) ec2Client() ec2.Client {
	h.t.Helper()
	c, err := h.clients.ForRegion(context.Background(), ec2sim.DefaultRegion)
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

func TestAllocatedElasticIPIsTaggedAssociatedAndReleasedWithTheObject(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("eip")
	obj.Spec.ElasticIP = &computev1alpha1.ElasticIP{Allocate: true}
	h.create(obj)
	got := h.waitAssociated("eip")
	eip := got.Status.ElasticIP
	addr, ok := h.sim.Address(eip.AllocationID)
	if !ok || !eip.AllocatedByOperator || addr.InstanceID != got.Status.InstanceID || addr.Tags[ec2.TagOwnerUID] != string(got.UID) {
		t.Fatalf("address %+v, status %+v", addr, eip)
	}
	if got.Status.PublicIP != addr.PublicIP || eip.PublicIP != addr.PublicIP || eip.AssociationID == "" {
		t.Errorf("status publicIp %s / elasticIp %+v, want the Elastic IP %s", got.Status.PublicIP, eip, addr.PublicIP)
	}
	if got.Status.NetworkInterfaces[0].PublicIP != addr.PublicIP {
		t.Errorf("networkInterfaces %+v", got.Status.NetworkInterfaces)
	}
	// Settled: the next resyncs see the address on the instance without asking.
	calls := h.sim.Calls("DescribeAddresses")
	m := h.mark("eip")
	h.update("eip", func(o *computev1alpha1.EC2Instance) { o.Spec.Tags["touch"] = "1" })
	h.waitEventSince(m, "DriftCorrected")
	time.Sleep(1500 * time.Millisecond) // a resync or two
	if n := h.sim.Calls("DescribeAddresses") - calls; n != 0 {
		t.Errorf("a settled Elastic IP cost %d DescribeAddresses calls", n)
	}

	h.deleteObject("eip")
	h.waitGone("eip")
	if _, ok := h.sim.Address(eip.AllocationID); ok {
		t.Errorf("the operator's address %s was not released", eip.AllocationID)
	}
}

func TestGivenElasticIPIsOnlyDisassociatedWhenLetGo(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	addr, err := h.ec2Client().AllocateAddress(context.Background(), "", map[string]string{"owner": "network-team"})
	if err != nil {
		t.Fatal(err)
	}
	obj := h.instance("given")
	obj.Spec.ElasticIP = &computev1alpha1.ElasticIP{AllocationID: addr.AllocationID}
	h.create(obj)
	got := h.waitAssociated("given")
	if got.Status.ElasticIP.AllocatedByOperator || got.Status.PublicIP != addr.PublicIP {
		t.Errorf("status %+v, publicIp %s", got.Status.ElasticIP, got.Status.PublicIP)
	}

	// Removed from the spec: disassociated, never released.
	m := h.mark("given")
	h.update("given", func(o *computev1alpha1.EC2Instance) { o.Spec.ElasticIP = nil })
	h.waitEventSince(m, "ElasticIPDisassociated")
	h.eventually(h.timeout, func() string {
		a, ok := h.sim.Address(addr.AllocationID)
		if !ok {
			return "the given address was released"
		}
		if a.AssociationID != "" {
			return "still associated"
		}
		if obj := h.get("given"); obj.Status.ElasticIP != nil || findCondition(obj, computev1alpha1.ConditionElasticIPAssociated).Type != "" {
			return "status still reports the Elastic IP"
		}
		return ""
	})

	// Back in the spec, then the object deleted: disassociated and left.
	h.update("given", func(o *computev1alpha1.EC2Instance) {
		o.Spec.ElasticIP = &computev1alpha1.ElasticIP{AllocationID: addr.AllocationID}
	})
	h.eventually(h.timeout, func() string {
		if a, _ := h.sim.Address(addr.AllocationID); a.InstanceID == "" {
			return "not associated again"
		}
		return ""
	})
	h.deleteObject("given")
	h.waitGone("given")
	if a, ok := h.sim.Address(addr.AllocationID); !ok || a.AssociationID != "" || a.Tags["owner"] != "network-team" {
		t.Errorf("given address after deletion = %+v, %v; want it allocated, unassociated, untouched", a, ok)
	}
}

func TestElasticIPRemovedOutsideKubernetesIsAssociatedAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	obj := h.instance("reassoc")
	obj.Spec.ElasticIP = &computev1alpha1.ElasticIP{Allocate: true}
	h.create(obj)
	got := h.waitAssociated("reassoc")

	m := h.mark("reassoc")
	if err := h.ec2Client().DisassociateAddress(context.Background(), got.Status.ElasticIP.AssociationID, got.Status.InstanceID); err != nil {
		t.Fatal(err)
	}
	note := h.waitEventSince(m, "DriftCorrected")
	if !strings.Contains(note, "elasticIp") {
		t.Errorf("event %q does not name elasticIp", note)
	}
	h.eventually(h.timeout, func() string {
		a, _ := h.sim.Address(got.Status.ElasticIP.AllocationID)
		if a.InstanceID != got.Status.InstanceID {
			return "not associated again"
		}
		return ""
	})
	if n := len(h.sim.Addresses()); n != 1 {
		t.Errorf("%d addresses, want the one allocated at first", n)
	}
}

func TestElasticIPRefusalsAreReportedAndTheInstanceKeepsRunning(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})

	// The account's address quota is used up.
	h.sim.SetAddressLimit(0)
	limited := h.instance("limited")
	limited.Spec.ElasticIP = &computev1alpha1.ElasticIP{Allocate: true}
	h.create(limited)
	got := h.waitCondition("limited", computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionFalse, computev1alpha1.ReasonAddressLimitExceeded)
	h.waitCondition("limited", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonAddressLimitExceeded)
	h.waitEvent("limited", computev1alpha1.ReasonAddressLimitExceeded)
	if c := findCondition(got, computev1alpha1.ConditionElasticIPAssociated); !strings.Contains(c.Message, "maximum number of addresses") {
		t.Errorf("condition %+v, want AWS's message", c)
	}
	if inst := h.simInstance(h.waitRecorded("limited")); inst.State == ec2sim.StateTerminated {
		t.Error("the instance was given up because of its address")
	}

	// An address another object's operator allocated is not taken from it: refused
	// before any AssociateAddress (it is that object's, associated or not).
	h.sim.SetAddressLimit(5)
	other := h.instance("other")
	other.Spec.ElasticIP = &computev1alpha1.ElasticIP{Allocate: true}
	h.create(other)
	taken := h.waitAssociated("other").Status.ElasticIP.AllocationID
	associations := h.sim.Calls("AssociateAddress")
	thief := h.instance("thief")
	thief.Spec.ElasticIP = &computev1alpha1.ElasticIP{AllocationID: taken}
	h.create(thief)
	h.waitCondition("thief", computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionFalse, computev1alpha1.ReasonOwnedByAnother)
	h.waitCondition("thief", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonOwnedByAnother)
	if a, _ := h.sim.Address(taken); a.InstanceID != h.get("other").Status.InstanceID {
		t.Errorf("the address moved to %s", a.InstanceID)
	}
	if n := h.sim.Calls("AssociateAddress") - associations; n != 0 {
		t.Errorf("AssociateAddress called %d times for another object's address", n)
	}

	// An address nobody owns, associated with an instance outside Kubernetes, is not
	// taken either: EC2 refuses the association (AllowReassociation is false).
	loose, err := h.ec2Client().AllocateAddress(context.Background(), "", map[string]string{"owner": "network-team"})
	if err != nil {
		t.Fatal(err)
	}
	outside := h.launchOutsideKubernetes("outside", ec2sim.DefaultSubnetIDs[0])
	h.eventually(h.timeout, func() string {
		return unless(h.simInstance(outside).State == ec2sim.StateRunning, "instance %s is %s", outside, h.simInstance(outside).State)
	})
	described, err := h.ec2Client().GetInstance(context.Background(), outside)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ec2Client().AssociateAddress(context.Background(), loose.AllocationID, outside, described.NetworkInterfaces[0].ID); err != nil {
		t.Fatal(err)
	}
	inUse := h.instance("inuse")
	inUse.Spec.ElasticIP = &computev1alpha1.ElasticIP{AllocationID: loose.AllocationID}
	h.create(inUse)
	h.waitCondition("inuse", computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionFalse, computev1alpha1.ReasonAddressInUse)
	h.waitCondition("inuse", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonAddressInUse)
	if a, _ := h.sim.Address(loose.AllocationID); a.InstanceID != outside {
		t.Errorf("the address moved to %s", a.InstanceID)
	}

	// An allocation that does not exist.
	missing := h.instance("missing")
	missing.Spec.ElasticIP = &computev1alpha1.ElasticIP{AllocationID: "eipalloc-0123456789abcdef0"}
	h.create(missing)
	h.waitCondition("missing", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonAddressNotFound)
}

func TestCrashAfterAllocateAddressUsesTheAddressAllocatedBefore(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	gate := h.sim.BlockResponse("AllocateAddress")
	obj := h.instance("lost")
	obj.Spec.ElasticIP = &computev1alpha1.ElasticIP{Allocate: true}
	h.create(obj)
	select {
	case <-gate.Arrived():
	case <-time.After(20 * time.Second):
		t.Fatal("AllocateAddress never arrived")
	}
	// EC2 allocated the address, but the operator dies before hearing about it.
	h.stopManager()
	gate.Release()
	if n := len(h.sim.Addresses()); n != 1 {
		t.Fatalf("%d addresses after the lost answer", n)
	}
	h.startManager()
	got := h.waitAssociated("lost")
	if n := len(h.sim.Addresses()); n != 1 {
		t.Errorf("%d addresses after the restart, want the one allocated before the crash", n)
	}
	if got.Status.ElasticIP.AllocationID != h.sim.Addresses()[0].AllocationID {
		t.Errorf("status names %s", got.Status.ElasticIP.AllocationID)
	}
}
