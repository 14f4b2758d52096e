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
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// convergeElasticIP moves the Elastic IP one step toward spec.elasticIp: it lets go of
// an address the spec no longer names, allocates one when asked to (finding one it
// allocated earlier first, since AllocateAddress takes no client token), and associates
// the address with the primary interface once the instance can take it. A settled
// address costs no call: the instance's public IP, from DescribeInstances, shows it.
// It reports whether the association is still to come.
func (ph *Phase) convergeElasticIP(ctx context.Context, s *pass.Scope, inst *ec2.Instance) (bool, error) {
	spec, st := s.Obj.Spec.ElasticIP, &s.Obj.Status
	if st.ElasticIP != nil && (spec == nil || !addressWanted(spec, st.ElasticIP)) {
		if err := ph.LetGoOfAddress(ctx, s, inst.ID, *st.ElasticIP); err != nil {
			return false, err
		}
		st.ElasticIP = nil
	}
	if spec == nil {
		meta.RemoveStatusCondition(&st.Conditions, computev1alpha1.ConditionElasticIPAssociated)
		return false, nil
	}
	if st.ElasticIP == nil {
		addr, err := ph.chooseAddress(ctx, s)
		if err != nil {
			return false, addressRefused(s, err)
		}
		// Recorded with the pass's status write; an address whose record is lost to a
		// crash is found again by its ownership tag.
		st.ElasticIP = addr
	}
	eip := st.ElasticIP
	nic := inst.PrimaryInterface()
	if nic != nil && eip.PublicIP != "" && nic.PublicIP == eip.PublicIP && nic.PublicIPOwner != "amazon" && eip.AssociationID != "" {
		s.SetCondition(computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionTrue, computev1alpha1.ReasonAssociated,
			fmt.Sprintf("%s (%s) is associated with %s", eip.PublicIP, eip.AllocationID, nic.ID))
		return false, nil
	}
	if nic == nil || (inst.State != ec2.StateRunning && inst.State != ec2.StateStopped) {
		s.SetCondition(computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionFalse, computev1alpha1.ReasonAssociationPending,
			fmt.Sprintf("%s waits for instance %s to run", eip.AllocationID, inst.ID))
		return true, nil
	}
	return ph.associateAddress(ctx, s, inst, nic)
}

// associateAddress associates the recorded address with the interface. It does not
// describe the address first: AssociateAddress itself answers whether the address
// exists and whether it is associated elsewhere (the operator never takes it from
// there, AllowReassociation false), and associating it again with the same interface
// is harmless. On success the status shows the address at once; the instance's
// cached description was dropped, so the next resync reads it afresh.
func (ph *Phase) associateAddress(ctx context.Context, s *pass.Scope, inst *ec2.Instance, nic *ec2.NetworkInterface) (bool, error) {
	eip := s.Obj.Status.ElasticIP
	id, err := ph.EC2Of(s).AssociateAddress(ctx, eip.AllocationID, inst.ID, nic.ID)
	switch {
	case awserrors.AddressNotFound(err) && eip.AllocatedByOperator:
		// The operator's own address is gone (released outside Kubernetes): forget it;
		// the next pass allocates another.
		s.Event(corev1.EventTypeWarning, computev1alpha1.ReasonAddressNotFound, "Elastic IP "+eip.AllocationID+" no longer exists; allocating another")
		s.Obj.Status.ElasticIP = nil
		return true, nil
	case awserrors.AddressAssociatedElsewhere(err):
		return false, addressRefused(s, &awserrors.Error{Kind: awserrors.KindTerminal, Operation: "AssociateAddress", Code: awserrors.CodeOf(err),
			Message: fmt.Sprintf("Elastic IP %s is associated with another instance or network interface; the operator does not take it from there (%s)",
				eip.AllocationID, pass.ErrorMessage(err))})
	case err != nil:
		return false, addressRefused(s, err)
	}
	if eip.AssociationID != "" {
		ph.driftCorrected(s, plan.Drift{Field: "elasticIp", Actual: "not associated", Desired: plan.OrNone(eip.PublicIP) + " associated"})
	} else {
		s.Event(corev1.EventTypeNormal, "ElasticIPAssociated", fmt.Sprintf("associated %s (%s) with %s", plan.OrNone(eip.PublicIP), eip.AllocationID, nic.ID))
	}
	eip.AssociationID = id
	if eip.PublicIP != "" {
		// What DescribeInstances will show from now on, so that the next look at the
		// instance finds nothing new to write.
		s.Obj.Status.PublicIP, s.Obj.Status.PublicDNSName = eip.PublicIP, publicDNSName(eip.PublicIP, s.Region)
		for i := range s.Obj.Status.NetworkInterfaces {
			if s.Obj.Status.NetworkInterfaces[i].NetworkInterfaceID == nic.ID {
				s.Obj.Status.NetworkInterfaces[i].PublicIP = eip.PublicIP
			}
		}
	}
	s.SetCondition(computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionTrue, computev1alpha1.ReasonAssociated,
		fmt.Sprintf("%s (%s) is associated with %s", plan.OrNone(eip.PublicIP), eip.AllocationID, nic.ID))
	return false, nil
}

// chooseAddress returns the address the spec asks for: the given allocation, the
// address the operator allocated for this object earlier (found by its ownership tag
// in the namespace's listing, which the objects created together share), or a new one.
func (ph *Phase) chooseAddress(ctx context.Context, s *pass.Scope) (*computev1alpha1.ElasticIPStatus, error) {
	spec := s.Obj.Spec.ElasticIP
	if !spec.Allocate {
		// The address is needed to recognise it on the instance later without asking.
		found, err := ph.EC2Of(s).DescribeAddresses(ctx, []string{spec.AllocationID})
		if err != nil {
			return nil, err
		}
		a, ok := found[spec.AllocationID]
		if !ok {
			return nil, &awserrors.Error{Kind: awserrors.KindInvalidInput, Operation: "DescribeAddresses", Code: "InvalidAllocationID.NotFound",
				Message: fmt.Sprintf("The allocation ID '%s' does not exist", spec.AllocationID)}
		}
		return &computev1alpha1.ElasticIPStatus{AllocationID: a.AllocationID, PublicIP: a.PublicIP}, nil
	}
	owned, err := ph.OwnAddresses(ctx, s)
	if err != nil {
		return nil, err
	}
	for _, a := range owned {
		if a.AssociationID == "" || a.InstanceID == s.Obj.Status.InstanceID {
			return &computev1alpha1.ElasticIPStatus{AllocationID: a.AllocationID, PublicIP: a.PublicIP, AllocatedByOperator: true}, nil
		}
	}
	a, err := ph.EC2Of(s).AllocateAddress(ctx, spec.PublicIPv4Pool, plan.DesiredTags(s.Obj, ph.ClusterID))
	if err != nil {
		return nil, err
	}
	s.Event(corev1.EventTypeNormal, "ElasticIPAllocated", fmt.Sprintf("allocated Elastic IP %s (%s)", a.PublicIP, a.AllocationID))
	return &computev1alpha1.ElasticIPStatus{AllocationID: a.AllocationID, PublicIP: a.PublicIP, AllocatedByOperator: true}, nil
}

// LetGoOfAddress disassociates an address the spec no longer wants and releases it
// when the operator allocated it. instanceID is empty when the instance is about to be
// terminated (its remembered description then stays; see Client.DisassociateAddress).
func (ph *Phase) LetGoOfAddress(ctx context.Context, s *pass.Scope, instanceID string, eip computev1alpha1.ElasticIPStatus) error {
	if eip.AssociationID != "" {
		if err := ph.EC2Of(s).DisassociateAddress(ctx, eip.AssociationID, instanceID); err != nil {
			return err
		}
	}
	if !eip.AllocatedByOperator {
		s.Event(corev1.EventTypeNormal, "ElasticIPDisassociated", fmt.Sprintf("disassociated Elastic IP %s (%s); it stays allocated", eip.PublicIP, eip.AllocationID))
		return nil
	}
	if err := ph.EC2Of(s).ReleaseAddress(ctx, eip.AllocationID); err != nil {
		return err
	}
	s.Event(corev1.EventTypeNormal, "ElasticIPReleased", fmt.Sprintf("released Elastic IP %s (%s), which the operator allocated", eip.PublicIP, eip.AllocationID))
	return nil
}

// addressRefused records on the ElasticIPAssociated condition why the address cannot
// be associated, and returns err for the pass's report (Ready, an Event, backoff).
func addressRefused(s *pass.Scope, err error) error {
	if !awserrors.HeldBack(err) {
		s.SetCondition(computev1alpha1.ConditionElasticIPAssociated, metav1.ConditionFalse, pass.ReasonFor(err), pass.ErrorMessage(err))
	}
	return err
}

// addressWanted reports whether the recorded address is the one the spec asks for.
func addressWanted(spec *computev1alpha1.ElasticIP, eip *computev1alpha1.ElasticIPStatus) bool {
	if spec.Allocate {
		return eip.AllocatedByOperator
	}
	return !eip.AllocatedByOperator && eip.AllocationID == spec.AllocationID
}

// OwnAddresses returns the Elastic IPs tagged with this object's UID in this cluster.
// One allocated before the operator tagged clusters gets the cluster tag here, so
// that the IAM policy lets the operator associate and release it.
func (ph *Phase) OwnAddresses(ctx context.Context, s *pass.Scope) ([]ec2.Address, error) {
	listed, err := ph.EC2Of(s).OwnedAddresses(ctx, s.Obj.Namespace)
	if err != nil {
		return nil, err
	}
	var out []ec2.Address
	for _, a := range listed {
		if pass.ClaimOf(a.Tags, string(s.Obj.UID), ph.ClusterID) != pass.ClaimOurs {
			continue
		}
		if _, tagged := a.Tags[ec2.TagCluster]; !tagged {
			if err := ph.EC2Of(s).CreateTags(ctx, []string{a.AllocationID}, map[string]string{ec2.TagCluster: ph.ClusterID}); err != nil {
				return nil, fmt.Errorf("adding the cluster tag to Elastic IP %s: %w", a.AllocationID, err)
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// publicDNSName is the public hostname EC2 gives an address, in the form the EC2 User
// Guide documents ("Amazon EC2 instance hostname types"): ec2-<address>.compute-1.
// amazonaws.com in us-east-1, ec2-<address>.<region>.compute.amazonaws.com elsewhere.
// In a VPC without DNS hostnames EC2 reports none, which the next resync records.
func publicDNSName(ip, region string) string {
	host := "ec2-" + strings.ReplaceAll(ip, ".", "-")
	if region == "us-east-1" {
		return host + ".compute-1.amazonaws.com"
	}
	return host + "." + region + ".compute.amazonaws.com"
}
