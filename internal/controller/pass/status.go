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

package pass

import (
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// ObserveInstance copies what EC2 reports into status. Values are normalised (launch
// time to whole seconds, as the API server stores it) so that an unchanged instance
// yields an unchanged status and no write.
func ObserveInstance(s *Scope, inst *ec2.Instance) {
	st := &s.Obj.Status
	st.InstanceID = inst.ID
	st.State = inst.State
	st.StateReason = inst.StateReason
	st.PrivateIP = inst.PrivateIP
	st.PublicIP = inst.PublicIP
	st.PrivateDNSName = inst.PrivateDNSName
	st.PublicDNSName = inst.PublicDNSName
	st.AvailabilityZone = inst.AvailabilityZone
	st.InstanceType = inst.InstanceType
	st.ImageID = inst.ImageID
	st.Region = s.Region
	st.Architecture = inst.Architecture
	st.Platform = inst.Platform
	st.VPCID = inst.VPCID
	if inst.SubnetID != "" {
		st.SubnetID = inst.SubnetID
	}
	if s.Obj.Spec.SecurityGroupSelector == nil {
		st.SecurityGroupIDs = sortedCopy(inst.SecurityGroupIDs)
	}
	st.NetworkInterfaces = interfaceStatus(inst)
	st.RootVolumeID = inst.RootVolumeID
	st.HTTPTokens = inst.MetadataOptions.HTTPTokens
	st.MetadataOptionsState = inst.MetadataOptionsState
	st.SpotInstanceRequestID = inst.SpotRequestID
	if inst.ClientToken != "" {
		st.ClientToken = inst.ClientToken
	}
	if !inst.LaunchTime.IsZero() {
		t := metav1.NewTime(inst.LaunchTime.UTC().Truncate(time.Second))
		st.LaunchTime = &t
	}
}

// ReadyReasonForState explains why an instance in a given state is not (yet) in the
// desired one.
func ReadyReasonForState(state string) string {
	switch state {
	case ec2.StatePending:
		return computev1alpha1.ReasonPending
	case ec2.StateStopping:
		return computev1alpha1.ReasonStopping
	case ec2.StateStopped:
		return computev1alpha1.ReasonStopped
	default:
		return computev1alpha1.ReasonUpdating
	}
}

// DeriveProgress sets Reconciling and Stalled from Ready, in one place, as kstatus
// reads them: Reconciling while the operator is moving the instance toward the spec
// or retrying something that may pass (throttling, capacity, an AWS error), Stalled
// when it needs the user, neither when Ready. Both carry the generation they describe.
func DeriveProgress(s *Scope) {
	ready := s.Condition(computev1alpha1.ConditionReady)
	if ready == nil && s.Obj.DeletionTimestamp.IsZero() {
		// Nothing is reported yet (an object waiting for the RunInstances budget): no
		// write for it. kstatus already reads the object as in progress, because the
		// CRD defaults status.observedGeneration to 0, behind metadata.generation.
		return
	}
	stalled, reconciling := false, true
	reason, message := computev1alpha1.ReasonSettled, "nothing in progress"
	switch {
	case !s.Obj.DeletionTimestamp.IsZero():
		reason, message = computev1alpha1.ReasonDeleting, "the object is being deleted"
	case ready.Status == metav1.ConditionTrue:
		reconciling = false
	case ReasonsNeedingTheUser[ready.Reason],
		ready.Reason == computev1alpha1.ReasonIdempotencyConflict && s.Obj.Status.LaunchAttempts >= MaxIdempotencyConflicts:
		stalled, reconciling = true, false
		reason, message = ready.Reason, ready.Message
	default:
		reason, message = ready.Reason, ready.Message
	}
	stalledReason, stalledMessage := reason, message
	if o := s.Condition(computev1alpha1.ConditionOutputsWritten); !stalled && s.Obj.DeletionTimestamp.IsZero() &&
		o != nil && o.Status == metav1.ConditionFalse && ReasonsNeedingTheUser[o.Reason] {
		// The instance may be fine, but the workloads waiting for its outputs wait for
		// the user too.
		stalled, stalledReason, stalledMessage = true, o.Reason, o.Message
	}
	if reconciling {
		s.SetCondition(computev1alpha1.ConditionReconciling, metav1.ConditionTrue, reason, message)
	} else {
		s.SetCondition(computev1alpha1.ConditionReconciling, metav1.ConditionFalse, computev1alpha1.ReasonSettled, "nothing in progress")
	}
	if stalled {
		s.SetCondition(computev1alpha1.ConditionStalled, metav1.ConditionTrue, stalledReason, stalledMessage)
	} else {
		s.SetCondition(computev1alpha1.ConditionStalled, metav1.ConditionFalse, computev1alpha1.ReasonSettled, "not waiting for the user")
	}
}

// interfaceStatus reports the instance's interfaces, the primary first.
func interfaceStatus(inst *ec2.Instance) []computev1alpha1.NetworkInterfaceStatus {
	var out []computev1alpha1.NetworkInterfaceStatus
	for _, n := range inst.NetworkInterfaces {
		ns := computev1alpha1.NetworkInterfaceStatus{
			NetworkInterfaceID: n.ID, DeviceIndex: n.DeviceIndex,
			PrivateIPAddresses: n.PrivateIPs, IPv6Addresses: n.IPv6s, PublicIP: n.PublicIP,
		}
		if n.DeviceIndex == 0 && inst.SourceDestCheck != nil {
			v := *inst.SourceDestCheck
			ns.SourceDestCheck = &v
		}
		out = append(out, ns)
	}
	return out
}

func sortedCopy(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}

// MaxIdempotencyConflicts is how many launches in a row EC2 may answer with
// IdempotentParameterMismatch before the operator stops launching.
const MaxIdempotencyConflicts = 5

// StatusTime is t as status records it: in whole seconds, as the API server stores
// it, so that writing an unchanged time causes no write.
func StatusTime(t time.Time) *metav1.Time {
	st := metav1.NewTime(t.UTC().Truncate(time.Second))
	return &st
}
