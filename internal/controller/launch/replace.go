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

package launch

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
)

// instanceTerminated handles an instance that was terminated while its object still
// wants it. A launched instance is replaced under a new client token; an adopted one
// cannot be, since the spec names that very instance.
func (l *Phase) instanceTerminated(ctx context.Context, s *pass.Scope, inst *ec2.Instance) pass.Step {
	st := &s.Obj.Status
	if s.Obj.Spec.InstanceID != "" {
		pass.ObserveInstance(s, inst)
		msg := "adopted instance " + inst.ID + " is " + inst.State + "; delete this EC2Instance"
		s.NotReady(computev1alpha1.ReasonInstanceNotFound, msg)
		return pass.DoneAfter(l.ResyncPeriod)
	}
	reason, msg, launchFailed := terminationCause(s, inst)
	// A persistent Spot request would launch an instance of its own, next to ours.
	if inst.SpotRequestID != "" {
		if err := l.EC2Of(s).CancelSpotRequest(ctx, inst.SpotRequestID); err != nil && !awserrors.IsNotFound(err) {
			return pass.Failed("cancelling Spot request "+inst.SpotRequestID, err)
		}
	}
	backoff := RecreationBackoff(st.Recreations, l.MinBackoff, l.MaxBackoff)
	if st.LaunchTime != nil && l.now().Sub(st.LaunchTime.Time) > time.Hour {
		// The instance served for a long time: this is not a crash loop.
		backoff = l.MinBackoff
	}
	msg += fmt.Sprintf("; launching a replacement in %s", backoff)
	s.Event(corev1.EventTypeWarning, reason, msg)
	if launchFailed {
		l.Metrics.ReconcileError(reason)
	} else {
		l.Metrics.DriftCorrected("instance")
	}
	l.Metrics.InstanceState(s.Obj.UID, "")
	l.Attributes.Forget(s.Obj.UID)
	resetForReplacement(s)
	s.SetCondition(computev1alpha1.ConditionInstanceLaunched, metav1.ConditionFalse, reason, msg)
	s.NotReady(reason, msg)
	if err := s.PatchStatus(ctx, l.Client); err != nil {
		return pass.Errored(err)
	}
	return pass.DoneAfter(backoff)
}

// terminationCause names why the instance is gone. An instance that died before it
// ever ran failed to launch (for example Client.InternalError for an unusable KMS
// key); that is not drift, and relaunching it quickly would fail the same way.
func terminationCause(s *pass.Scope, inst *ec2.Instance) (reason, msg string, launchFailed bool) {
	neverRan := s.Before.Status.State == "" || s.Before.Status.State == ec2.StatePending
	launchFailed = neverRan && inst.StoppedByFailure()
	reason, msg = computev1alpha1.ReasonTerminatedOutOfBand, fmt.Sprintf("instance %s was terminated outside Kubernetes", inst.ID)
	if launchFailed {
		reason, msg = computev1alpha1.ReasonLaunchFailed, fmt.Sprintf("instance %s failed to launch", inst.ID)
	}
	if inst.StateReason != "" {
		msg += " (" + inst.StateReason + ")"
	}
	return reason, msg, launchFailed
}

// resetForReplacement clears the status of the terminated instance for its
// replacement. The replacement keeps the subnet and security groups chosen by the
// selectors and the Elastic IP (EC2 disassociated it at termination); the data
// volumes are launched anew with it.
func resetForReplacement(s *pass.Scope) {
	st := &s.Obj.Status
	eip := st.ElasticIP
	if eip != nil {
		eip.AssociationID = ""
	}
	var subnetID string
	var groups []string
	if s.Obj.Spec.SubnetSelector != nil {
		subnetID = st.SubnetID
	}
	if s.Obj.Spec.SecurityGroupSelector != nil {
		groups = st.SecurityGroupIDs
	}
	*st = computev1alpha1.EC2InstanceStatus{
		Region:            st.Region,
		LastLaunchAttempt: st.LastLaunchAttempt,
		Recreations:       st.Recreations + 1,
		ManagedTagKeys:    st.ManagedTagKeys,
		Conditions:        st.Conditions,
		ElasticIP:         eip,
		SubnetID:          subnetID,
		SecurityGroupIDs:  groups,
		VolumeRemovals:    st.VolumeRemovals,
	}
}

// RecreationBackoff spaces replacements out: minBackoff doubled for each earlier
// replacement, up to maxBackoff, so that an instance that keeps dying cannot make the
// operator launch in a loop.
func RecreationBackoff(recreations int32, minBackoff, maxBackoff time.Duration) time.Duration {
	d := minBackoff
	for range min(recreations, 20) {
		d *= 2
		if d >= maxBackoff {
			return maxBackoff
		}
	}
	return d
}
