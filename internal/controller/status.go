package controller

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// observeInstance copies what EC2 reports into status. Values are normalised (launch
// time to whole seconds, as the API server stores it) so that an unchanged instance
// yields an unchanged status and no write.
func observeInstance(s *instanceScope, inst *ec2.Instance) {
	st := &s.obj.Status
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
	st.Region = s.region
	if inst.ClientToken != "" {
		st.ClientToken = inst.ClientToken
	}
	if !inst.LaunchTime.IsZero() {
		t := metav1.NewTime(inst.LaunchTime.UTC().Truncate(time.Second))
		st.LaunchTime = &t
	}
}

// readyReasonForState explains why an instance in a given state is not (yet) in the
// desired one.
func readyReasonForState(state string) string {
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
