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
	"maps"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/credentials"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// The tests of this file try the paths a tenant used to get past the guardrails on,
// with the shipped resync periods: what a launch leaves to EC2, another region, a
// selector edited on a running object, and an instance adopted or observed from
// outside the allowed VPCs. Each counts the calls the emulator answered.

// platformGuardrails are a platform team's: one region, one subnet, its VPC and one
// security group.
func platformGuardrails() *computev1alpha1.Guardrails {
	return &computev1alpha1.Guardrails{
		Regions: []string{ec2sim.DefaultRegion}, SubnetIDs: []string{ec2sim.DefaultSubnetIDs[0]},
		VPCIDs: []string{ec2sim.DefaultVPCID}, SecurityGroupIDs: []string{ec2sim.DefaultSecurityGroupID},
	}
}

// mutatingCalls are the calls in counts that change something in EC2.
func mutatingCalls(counts map[string]int) map[string]int {
	out := map[string]int{}
	for op, n := range counts {
		if !strings.HasPrefix(op, "Describe") && !strings.HasPrefix(op, "Get") {
			out[op] = n
		}
	}
	return out
}

// waitRefused waits for an object's GuardrailViolation and checks that its message
// names every part of want.
func (h *harness) waitRefused(name string, want ...string) *computev1alpha1.EC2Instance {
	h.t.Helper()
	got := h.waitCondition(name, computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonGuardrailViolation)
	msg := findCondition(got, computev1alpha1.ConditionReady).Message
	for _, w := range want {
		if !strings.Contains(msg, w) {
			h.t.Errorf("%s: Ready says %q; want it to name %q", name, msg, w)
		}
	}
	h.waitEvent(name, computev1alpha1.ReasonGuardrailViolation)
	return got
}

func TestGuardrailsRefuseWhatALaunchLeavesToEC2AndOtherRegions(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{accounts: true, tweak: shippedTimings})
	acct := h.guardedAccount(platformGuardrails())
	before := mutatingCalls(h.sim.CallCounts())
	cases := map[string]struct {
		change func(*computev1alpha1.EC2Instance)
		want   []string
	}{
		// EC2 would pick the default subnet of the default VPC, public IP on.
		"nosubnet": {func(o *computev1alpha1.EC2Instance) { o.Spec.SubnetID = "" },
			[]string{"the subnet unset (EC2's default)", "spec.guardrails.subnetIds"}},
		// EC2 would attach the VPC's default group.
		"nogroups": {func(o *computev1alpha1.EC2Instance) { o.Spec.SecurityGroupIDs = nil },
			[]string{"the security groups unset (EC2's default)", "spec.guardrails.securityGroupIds"}},
		"west": {func(o *computev1alpha1.EC2Instance) { o.Spec.Region = "us-west-2" },
			[]string{`spec.region "us-west-2"`, "spec.guardrails.regions"}},
	}
	for name, tc := range cases {
		obj := h.instance(name)
		obj.Spec.AccountRef = &computev1alpha1.AccountReference{Name: acct.Name}
		tc.change(obj)
		h.create(obj)
	}
	for name, tc := range cases {
		got := h.waitRefused(name, tc.want...)
		if got.Status.LastLaunchAttempt != nil || got.Status.InstanceID != "" {
			t.Errorf("%s: a refused launch left a launch record (%v, %q)", name, got.Status.LastLaunchAttempt, got.Status.InstanceID)
		}
	}
	if after := mutatingCalls(h.sim.CallCounts()); !maps.Equal(before, after) {
		t.Errorf("refused objects changed something in EC2: calls before %v, after %v", before, after)
	}
}

func TestASelectorEditCannotAttachAGroupOutsideTheGuardrails(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{accounts: true, tweak: shippedTimings})
	h.sim.AddSecurityGroupInVPC("sg-0a1b2c3d4e5f6f001", "other-team", ec2sim.DefaultVPCID, map[string]string{"team": "other"})
	acct := h.guardedAccount(platformGuardrails())
	obj := h.instance("web")
	obj.Spec.AccountRef = &computev1alpha1.AccountReference{Name: acct.Name}
	h.create(obj)
	id := h.waitReady("web").Status.InstanceID

	m := h.mark("web")
	h.update("web", func(o *computev1alpha1.EC2Instance) {
		o.Spec.SecurityGroupSelector = &computev1alpha1.SecurityGroupSelector{Names: []string{"other-team"}}
	})
	h.waitConditionSince(m, computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonGuardrailViolation)
	h.waitRefused("web", `the security group "sg-0a1b2c3d4e5f6f001"`, "spec.guardrails.securityGroupIds", "the instance is left as it is")
	if n := h.sim.Calls("ModifyInstanceAttribute"); n != 0 {
		t.Errorf("ModifyInstanceAttribute called %d times for a refused group change", n)
	}
	if groups := h.simInstance(id).SecurityGroupIDs; len(groups) != 1 || groups[0] != ec2sim.DefaultSecurityGroupID {
		t.Errorf("the instance's groups are %v, want only %s", groups, ec2sim.DefaultSecurityGroupID)
	}
}

func TestAnInstanceOutsideTheGuardrailsIsNeitherAdoptedNorObserved(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{accounts: true, tweak: shippedTimings})
	const otherVPC, otherSubnet = "vpc-0a1b2c3d4e5f6f002", "subnet-0a1b2c3d4e5f6f003"
	h.sim.AddVPC(otherVPC, "10.9.0.0/16")
	h.sim.AddSubnetInVPC(otherSubnet, otherVPC, "us-east-1a", "10.9.1.0/24", nil)
	foreign := h.launchOutsideKubernetes("foreign", otherSubnet)
	acct := h.guardedAccount(platformGuardrails())
	before := mutatingCalls(h.sim.CallCounts())

	for _, policy := range []computev1alpha1.ManagementPolicy{computev1alpha1.ManagementPolicyFull, computev1alpha1.ManagementPolicyObserve} {
		name := strings.ToLower(string(policy))
		obj := h.instance(name)
		obj.Spec.AccountRef = &computev1alpha1.AccountReference{Name: acct.Name}
		obj.Spec.InstanceID = foreign
		obj.Spec.ManagementPolicy = policy
		h.create(obj)
		got := h.waitRefused(name, "instance "+foreign, `the VPC "`+otherVPC+`"`, "spec.guardrails.vpcIds")
		if got.Status.InstanceID != "" || got.Status.PrivateIP != "" || got.Status.VPCID != "" {
			t.Errorf("%s: status shows the refused instance: %+v", name, got.Status)
		}
	}
	if after := mutatingCalls(h.sim.CallCounts()); !maps.Equal(before, after) {
		t.Errorf("a refused adoption changed something in EC2: calls before %v, after %v", before, after)
	}
	if tags := h.simInstance(foreign).Tags; tags[ec2.TagOwnerUID] != "" {
		t.Errorf("the refused instance was claimed: %v", tags)
	}
}

// TestAnElasticIPByAllocationIDMustBeFreeToTake gives objects Elastic IPs by allocation
// ID: one another object's operator allocated (unassociated, as during that object's
// replacement), one nobody tagged, and one an administrator tagged adoptable, under an
// account with guardrails. Only the last is associated; the others are refused
// without an AssociateAddress call.
func TestAnElasticIPByAllocationIDMustBeFreeToTake(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{accounts: true, tweak: shippedTimings})
	acct := h.guardedAccount(platformGuardrails())
	ctx := context.Background()
	allocate := func(tags map[string]string) string {
		a, err := h.ec2Client().AllocateAddress(ctx, "", tags)
		if err != nil {
			t.Fatal(err)
		}
		return a.AllocationID
	}
	addresses := map[string]string{
		"taker":   allocate(ec2.OwnershipTags(h.ns, "replaced", "uid-of-another-object", "")),
		"untaged": allocate(map[string]string{"owner": "network-team"}),
		"adopter": allocate(map[string]string{credentials.AdoptableTagKey: "true"}),
	}
	for name, id := range addresses {
		obj := h.instance(name)
		obj.Spec.AccountRef = &computev1alpha1.AccountReference{Name: acct.Name}
		obj.Spec.ElasticIP = &computev1alpha1.ElasticIP{AllocationID: id}
		h.create(obj)
	}
	h.waitAssociated("adopter")
	got := h.waitCondition("taker", computev1alpha1.ConditionReady, metav1.ConditionFalse, computev1alpha1.ReasonOwnedByAnother)
	if msg := findCondition(got, computev1alpha1.ConditionReady).Message; !strings.Contains(msg, "EC2Instance "+h.ns+"/replaced's") {
		t.Errorf("Ready says %q; want the owner named", msg)
	}
	h.waitRefused("untaged", credentials.AdoptableTagKey)
	if n := h.sim.Calls("AssociateAddress"); n != 1 {
		t.Errorf("AssociateAddress called %d times, want once (the adoptable address)", n)
	}
	for _, name := range []string{"taker", "untaged"} {
		if a, _ := h.sim.Address(addresses[name]); a.AssociationID != "" {
			t.Errorf("%s: the refused address %s was associated", name, addresses[name])
		}
	}
}

// TestADataVolumeFromAnotherAccountsSnapshotIsRefused lets volumes come only from the
// account's own snapshots: a volume restored from a snapshot another account shared
// is refused before RunInstances, and one from the account's own launches.
func TestADataVolumeFromAnotherAccountsSnapshotIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{accounts: true, tweak: shippedTimings})
	h.sim.AddSharedSnapshot("snap-0a1b2c3d4e5f6f010", 20, "210987654321", "")
	h.sim.AddSnapshot("snap-0a1b2c3d4e5f6f011", 20)
	g := platformGuardrails()
	g.Volumes = &computev1alpha1.VolumeGuardrails{SnapshotOwners: []string{"self"}}
	acct := h.guardedAccount(g)
	for name, snap := range map[string]string{"shared": "snap-0a1b2c3d4e5f6f010", "own": "snap-0a1b2c3d4e5f6f011"} {
		obj := h.instance(name)
		obj.Spec.AccountRef = &computev1alpha1.AccountReference{Name: acct.Name}
		obj.Spec.Volumes = []computev1alpha1.DataVolume{{DeviceName: "/dev/sdf", SnapshotID: snap}}
		h.create(obj)
	}
	h.waitReady("own")
	h.waitRefused("shared", `the owner of snapshot snap-0a1b2c3d4e5f6f010 for the volume at /dev/sdf "210987654321"`, "spec.guardrails.volumes.snapshotOwners")
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("RunInstances called %d times, want once (the own snapshot's object)", n)
	}
}

// TestARestoreTakesOverOnlyUnderTodaysGuardrails deletes an object without its
// finalizer (a namespace force-cleaned), tightens its account's guardrails, and
// re-creates the object: the earlier object's instance, outside them now, is neither
// taken over nor replaced by a launch.
func TestARestoreTakesOverOnlyUnderTodaysGuardrails(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{accounts: true, tweak: shippedTimings})
	acct := h.guardedAccount(platformGuardrails())
	obj := h.instance("restored")
	obj.Spec.AccountRef = &computev1alpha1.AccountReference{Name: acct.Name}
	h.create(obj.DeepCopy())
	first := h.waitReady("restored")
	h.update("restored", func(o *computev1alpha1.EC2Instance) { o.Finalizers = nil })
	h.deleteObject("restored")
	h.waitGone("restored")

	tighter := platformGuardrails()
	tighter.Tenancies = []string{"dedicated"}
	h.setGuardrails(acct.Name, tighter)
	before := mutatingCalls(h.sim.CallCounts())
	h.create(obj.DeepCopy())
	h.waitRefused("restored", "instance "+first.Status.InstanceID, `the tenancy "default"`, "spec.guardrails.tenancies")
	if after := mutatingCalls(h.sim.CallCounts()); !maps.Equal(before, after) {
		t.Errorf("the refused restore changed something in EC2: calls before %v, after %v", before, after)
	}
	if tags := h.simInstance(first.Status.InstanceID).Tags; tags[ec2.TagOwnerUID] != string(first.UID) {
		t.Errorf("the instance was taken over: %v", tags)
	}
}
