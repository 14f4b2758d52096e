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
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// A VPC besides the default one, with private subnets of different sizes and tagged
// groups, as a platform team's landing zone would have.
const (
	appVPC       = "vpc-0000000000000a001"
	smallSubnet  = "subnet-0000000000000a001" // /28: 11 usable addresses
	largeSubnet  = "subnet-0000000000000a002" // /24: 251
	publicSubnet = "subnet-0000000000000a003"
	webGroup     = "sg-0000000000000a001"
	dbGroup      = "sg-0000000000000a002"
	otherVPC     = "vpc-0000000000000b001"
	otherGroup   = "sg-0000000000000b001"
)

func seedAppVPC(sim *ec2sim.Sim) {
	sim.AddVPC(appVPC, "10.0.0.0/16")
	sim.AddSubnetInVPC(smallSubnet, appVPC, "us-east-1a", "10.0.1.0/28", map[string]string{"tier": "private"})
	sim.AddSubnetInVPC(largeSubnet, appVPC, "us-east-1b", "10.0.2.0/24", map[string]string{"tier": "private"})
	sim.AddSubnetInVPC(publicSubnet, appVPC, "us-east-1a", "10.0.3.0/24", map[string]string{"tier": "public"})
	sim.SetSubnetIPv6CIDR(largeSubnet, "2600:1f18:aaaa:200::/64")
	sim.AddSecurityGroupInVPC(webGroup, "web", appVPC, map[string]string{"role": "web"})
	sim.AddSecurityGroupInVPC(dbGroup, "db", appVPC, map[string]string{"role": "db"})
	sim.AddVPC(otherVPC, "10.1.0.0/16")
	sim.AddSecurityGroupInVPC(otherGroup, "web", otherVPC, map[string]string{"role": "web"})
}

// selectorInstance is an instance placed by selectors only.
func (h *harness) selectorInstance(name string) *computev1alpha1.EC2Instance {
	obj := h.instance(name)
	obj.Spec.SubnetID, obj.Spec.SecurityGroupIDs = "", nil
	obj.Spec.SubnetSelector = &computev1alpha1.SubnetSelector{Tags: map[string]string{"tier": "private"}}
	obj.Spec.SecurityGroupSelector = &computev1alpha1.SecurityGroupSelector{Tags: map[string]string{"role": "web"}}
	return obj
}

func TestSelectorsPickTheRoomiestSubnetAndTheTaggedGroupsOfItsVPC(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	seedAppVPC(h.sim)
	h.create(h.selectorInstance("picked"))
	got := h.waitReady("picked")
	inst := h.simInstance(got.Status.InstanceID)
	if inst.SubnetID != largeSubnet || got.Status.SubnetID != largeSubnet || got.Status.VPCID != appVPC {
		t.Errorf("launched into %s (status %s, VPC %s), want the subnet with the most free addresses, %s",
			inst.SubnetID, got.Status.SubnetID, got.Status.VPCID, largeSubnet)
	}
	// The web group of the other VPC carries the same tags and is left out.
	if !slices.Equal(inst.SecurityGroupIDs, []string{webGroup}) || !slices.Equal(got.Status.SecurityGroupIDs, []string{webGroup}) {
		t.Errorf("groups %v (status %v), want [%s]", inst.SecurityGroupIDs, got.Status.SecurityGroupIDs, webGroup)
	}
	if len(got.Status.NetworkInterfaces) != 1 || got.Status.NetworkInterfaces[0].NetworkInterfaceID == "" {
		t.Errorf("networkInterfaces = %+v", got.Status.NetworkInterfaces)
	}
	// The primary interface is tagged at launch like the instance.
	if n := h.sim.Calls("CreateTags"); n != 0 {
		t.Errorf("CreateTags called %d times: the interface should be tagged by RunInstances", n)
	}
}

func TestTheChosenSubnetNeverChangesForTheInstance(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	seedAppVPC(h.sim)
	h.create(h.selectorInstance("sticky"))
	first := h.waitReady("sticky").Status.SubnetID

	// A roomier subnet gains the tag; resyncs (every second here) keep the instance
	// and its recorded subnet.
	h.sim.AddSubnetInVPC("subnet-0000000000000a009", appVPC, "us-east-1c", "10.0.16.0/20", map[string]string{"tier": "private"})
	m := h.mark("sticky")
	h.update("sticky", func(o *computev1alpha1.EC2Instance) { o.Spec.Tags["touch"] = "1" })
	h.waitEventSince(m, "DriftCorrected")
	if got := h.get("sticky").Status.SubnetID; got != first {
		t.Errorf("status.subnetId changed from %s to %s", first, got)
	}
	if n := h.sim.Calls("RunInstances"); n != 1 {
		t.Errorf("RunInstances called %d times", n)
	}
}

func TestGroupsFollowTheSecurityGroupSelector(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	seedAppVPC(h.sim)
	h.create(h.selectorInstance("follow"))
	id := h.waitReady("follow").Status.InstanceID

	// The db group gains the selector's tag outside Kubernetes.
	c, err := h.clients.ForRegion(context.Background(), ec2sim.DefaultRegion)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTags(context.Background(), []string{dbGroup}, map[string]string{"role": "web"}); err != nil {
		t.Fatal(err)
	}
	h.eventually(h.timeout, func() string {
		groups := h.simInstance(id).SecurityGroupIDs
		slices.Sort(groups)
		if !slices.Equal(groups, []string{webGroup, dbGroup}) && !slices.Equal(groups, []string{dbGroup, webGroup}) {
			return fmt.Sprintf("instance groups %v", groups)
		}
		if got := h.get("follow").Status.SecurityGroupIDs; len(got) != 2 {
			return fmt.Sprintf("status groups %v", got)
		}
		return ""
	})
}

func TestSelectorsThatMatchNothingOrSeveralVPCsAreReportedBeforeAnyLaunch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	seedAppVPC(h.sim)

	none := h.selectorInstance("nosubnet")
	none.Spec.SubnetSelector.Tags = map[string]string{"tier": "nowhere"}
	h.create(none)
	got := h.waitCondition("nosubnet", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonSubnetNotFound)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "tier=nowhere") {
		t.Errorf("Ready = %+v, want the selector named", c)
	}

	// Without a subnet, the groups' VPC is unknown: groups in two VPCs match.
	wide := h.instance("twovpcs")
	wide.Spec.SubnetID, wide.Spec.SecurityGroupIDs = "", nil
	wide.Spec.SecurityGroupSelector = &computev1alpha1.SecurityGroupSelector{Names: []string{"web"}}
	h.create(wide)
	got = h.waitCondition("twovpcs", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonInvalidSpec)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "VPCs (") || !strings.Contains(c.Message, otherVPC) {
		t.Errorf("Ready = %+v, want the VPCs named", c)
	}
	h.waitEvent("twovpcs", computev1alpha1.ReasonInvalidSpec)
	if n := h.sim.Calls("RunInstances"); n != 0 {
		t.Errorf("RunInstances called %d times", n)
	}
}

func TestPrimaryInterfaceAddressingAndSourceDestCheck(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	seedAppVPC(h.sim)
	obj := h.instance("nat")
	obj.Spec.SubnetID, obj.Spec.SecurityGroupIDs = largeSubnet, []string{webGroup}
	obj.Spec.PrivateIPAddress = "10.0.2.50"
	obj.Spec.SecondaryPrivateIPAddressCount = ptr.To[int32](2)
	obj.Spec.IPv6AddressCount = ptr.To[int32](1)
	obj.Spec.SourceDestCheck = ptr.To(false)
	h.create(obj)
	got := h.waitReady("nat")
	nic := got.Status.NetworkInterfaces[0]
	if got.Status.PrivateIP != "10.0.2.50" || len(nic.PrivateIPAddresses) != 3 || nic.PrivateIPAddresses[0] != "10.0.2.50" ||
		len(nic.IPv6Addresses) != 1 || !strings.HasPrefix(nic.IPv6Addresses[0], "2600:1f18:aaaa:200:") {
		t.Errorf("addresses: privateIp %s, interface %+v", got.Status.PrivateIP, nic)
	}
	if nic.SourceDestCheck == nil || *nic.SourceDestCheck {
		t.Errorf("sourceDestCheck %v, want false as the spec says", nic.SourceDestCheck)
	}

	// More secondary addresses, then fewer: changed in place, the primary kept.
	h.update("nat", func(o *computev1alpha1.EC2Instance) { o.Spec.SecondaryPrivateIPAddressCount = ptr.To[int32](3) })
	h.eventually(h.timeout, func() string {
		if n := len(h.get("nat").Status.NetworkInterfaces[0].PrivateIPAddresses); n != 4 {
			return fmt.Sprintf("%d private addresses, want the primary and 3", n)
		}
		return ""
	})
	h.update("nat", func(o *computev1alpha1.EC2Instance) { o.Spec.SecondaryPrivateIPAddressCount = ptr.To[int32](1) })
	h.eventually(h.timeout, func() string {
		ips := h.get("nat").Status.NetworkInterfaces[0].PrivateIPAddresses
		if len(ips) != 2 || ips[0] != "10.0.2.50" {
			return fmt.Sprintf("private addresses %v, want 10.0.2.50 and one more", ips)
		}
		return ""
	})
	if n := h.sim.Calls("StopInstances"); n != 0 {
		t.Errorf("StopInstances called %d times for an in-place change", n)
	}

	// Turned back on outside Kubernetes: corrected.
	m := h.mark("nat")
	c, _ := h.clients.ForRegion(context.Background(), ec2sim.DefaultRegion)
	if err := c.SetSourceDestCheck(context.Background(), got.Status.InstanceID, true); err != nil {
		t.Fatal(err)
	}
	note := h.waitEventSince(m, "DriftCorrected")
	if !strings.Contains(note, "sourceDestCheck") {
		t.Errorf("event %q does not name sourceDestCheck", note)
	}
}

func TestPrivateAddressesEC2RefusesAreReportedWithoutLeavingAnInstance(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	seedAppVPC(h.sim)
	first := h.instance("first")
	first.Spec.SubnetID, first.Spec.SecurityGroupIDs, first.Spec.PrivateIPAddress = largeSubnet, []string{webGroup}, "10.0.2.60"
	h.create(first)
	h.waitReady("first")

	taken := h.instance("taken")
	taken.Spec.SubnetID, taken.Spec.SecurityGroupIDs, taken.Spec.PrivateIPAddress = largeSubnet, []string{webGroup}, "10.0.2.60"
	h.create(taken)
	h.waitCondition("taken", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonIPAddressInUse)
	h.waitEvent("taken", computev1alpha1.ReasonIPAddressInUse)

	outside := h.instance("outside")
	outside.Spec.SubnetID, outside.Spec.SecurityGroupIDs, outside.Spec.PrivateIPAddress = largeSubnet, []string{webGroup}, "10.9.9.9"
	h.create(outside)
	got := h.waitCondition("outside", computev1alpha1.ConditionStalled, metav1.ConditionTrue, computev1alpha1.ReasonInvalidSpec)
	if c := findCondition(got, computev1alpha1.ConditionReady); !strings.Contains(c.Message, "does not fall within the subnet") {
		t.Errorf("Ready = %+v, want AWS's message", c)
	}
	if n := len(h.liveInstances()); n != 1 {
		t.Errorf("%d live instances, want only the first", n)
	}
	// Deleting a refused object needs nothing from EC2.
	h.deleteObject("taken")
	h.waitGone("taken")
}

func TestRichStatusReportsArchitecturePlatformRootVolumeAndIMDS(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.create(h.instance("rich"))
	st := h.waitReady("rich").Status
	inst := h.simInstance(st.InstanceID)
	if st.Architecture != "x86_64" || st.Platform != "Linux/UNIX" || st.RootVolumeID != inst.RootVolumeID ||
		st.HTTPTokens != "required" || st.MetadataOptionsState != "applied" || st.VPCID != ec2sim.DefaultVPCID ||
		st.SubnetID != ec2sim.DefaultSubnetIDs[0] || !slices.Equal(st.SecurityGroupIDs, []string{ec2sim.DefaultSecurityGroupID}) {
		t.Errorf("status = %+v", st)
	}
	if st.ImageID != ec2sim.DefaultImageID {
		t.Errorf("imageId %s", st.ImageID)
	}
	_ = ec2.StateRunning
}
