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

package deletion

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/memory"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/controller/plan"
)

// Kernel is what the deletion phase needs from the rest of the pass: releasing the
// object (the reconciler owns the finalizer and the memory), what the launch phase
// knows of launches, and the cleanup of what converge created beside the instance.
type Kernel interface {
	// Release removes the finalizer and forgets the object; the pass ends there.
	Release(ctx context.Context, s *pass.Scope) pass.Step
	// NothingLaunched reports that no instance can exist for the object.
	NothingLaunched(s *pass.Scope) bool
	// FindOwnInstance finds an instance launched under token whose answer was lost.
	FindOwnInstance(ctx context.Context, s *pass.Scope, token string) (*ec2.Instance, error)
	// WithinVisibilityGrace reports that a launch may still be invisible to
	// DescribeInstances.
	WithinVisibilityGrace(s *pass.Scope) bool
	// TerminateExtras and ReleaseExtras deal with other instances carrying the
	// object's tags (managed is the object's own instance).
	TerminateExtras(ctx context.Context, s *pass.Scope, managed string) error
	ReleaseExtras(ctx context.Context, s *pass.Scope, managed string) error
	// DisposeVolume deletes (del) or releases a data volume the operator created.
	DisposeVolume(ctx context.Context, s *pass.Scope, instanceID, volumeID string, del bool) error
	// LetGoOfAddress disassociates the Elastic IP and releases it when the operator
	// allocated it; OwnAddresses lists the addresses tagged as the object's.
	LetGoOfAddress(ctx context.Context, s *pass.Scope, instanceID string, eip computev1alpha1.ElasticIPStatus) error
	OwnAddresses(ctx context.Context, s *pass.Scope) ([]ec2.Address, error)
}

// Phase runs an EC2Instance's deletion: the uninstall guard (uninstall.go), then
// termination or release as the deletion policy says, with the volumes and addresses
// the operator created (teardown.go). It holds no state between passes.
type Phase struct {
	Kernel Kernel
	// EC2Of is the EC2 client of a pass (FromScope); tests give the phase a fake.
	EC2Of func(*pass.Scope) EC2
	// Launches are the launches not recorded in status yet.
	Launches *memory.Launches
	// Batches are the sets' batch launches this process knows of.
	Batches *memory.Batches
	// CRDReader reads the operator's CRDs past the cache, for the uninstall guard.
	CRDReader client.Reader
	// ClusterID is this cluster's identity in the ownership tags.
	ClusterID    string
	PollInterval time.Duration
}

// Run runs while the object is being deleted. It keeps the finalizer until
// the instance is terminating (Delete) or released (Retain), so an instance is never
// leaked; when it cannot proceed, the Ready condition and an event say why.
func (d *Phase) Run(ctx context.Context, s *pass.Scope) pass.Step {
	if !controllerutil.ContainsFinalizer(s.Obj, computev1alpha1.Finalizer) {
		return pass.DoneAfter(0)
	}
	inst, err := d.instanceForDeletion(ctx, s)
	if err != nil {
		return pass.Failed("finding the instance to delete", err)
	}
	if inst == nil || inst.State == ec2.StateShuttingDown || inst.State == ec2.StateTerminated {
		return d.releaseAfterInstance(ctx, s, inst)
	}
	if owner := ec2.OwnerTag(inst.Tags, ec2.TagOwnerUID); owner != "" && owner != string(s.Obj.UID) {
		// Another object manages this instance (two adoptions raced and the other
		// won): deleting this object must not terminate or release it.
		s.Event(corev1.EventTypeNormal, "Released", fmt.Sprintf("instance %s is managed by EC2Instance %s/%s; left untouched",
			inst.ID, ec2.OwnerTag(inst.Tags, ec2.TagOwnerNamespace), ec2.OwnerTag(inst.Tags, ec2.TagOwnerName)))
		return d.Kernel.Release(ctx, s)
	}
	if pass.ClaimOf(inst.Tags, string(s.Obj.UID), d.ClusterID) == pass.ClaimOtherCluster {
		// That cluster's operator manages it; deleting this object must not touch it.
		s.Event(corev1.EventTypeNormal, "Released", pass.OtherClusterMessage(inst, d.ClusterID, "left untouched"))
		return d.Kernel.Release(ctx, s)
	}

	if s.Obj.Spec.DeletionPolicy == computev1alpha1.DeletionPolicyRetain {
		return d.retain(ctx, s, inst)
	}
	return d.terminate(ctx, s, inst)
}

// terminate terminates the object's instance (deletionPolicy Delete), lifting its
// termination protection when EC2 refuses for it, and releases the object once the
// instance is shutting down.
func (d *Phase) terminate(ctx context.Context, s *pass.Scope, inst *ec2.Instance) pass.Step {
	s.NotReady(computev1alpha1.ReasonDeleting, "terminating instance "+inst.ID)
	if err := d.prepareTermination(ctx, s, inst); err != nil {
		return pass.Failed("preparing instance "+inst.ID+" for termination", err)
	}
	// A persistent Spot request would relaunch the instance once it is terminated.
	if inst.SpotRequestID != "" {
		if err := d.EC2Of(s).CancelSpotRequest(ctx, inst.SpotRequestID); err != nil && !awserrors.IsNotFound(err) {
			return pass.Failed("cancelling Spot request "+inst.SpotRequestID, err)
		}
	}
	// Termination protection is not read first (DescribeInstanceAttribute for every
	// deletion): EC2 refuses a protected instance with OperationNotPermitted, and only
	// then is it lifted.
	state, err := d.EC2Of(s).TerminateInstance(ctx, inst.ID)
	if awserrors.TerminationProtected(err) {
		if err := d.EC2Of(s).ModifyTerminationProtection(ctx, inst.ID, false); err != nil {
			return pass.Failed("lifting termination protection", err)
		}
		s.Event(corev1.EventTypeNormal, "TerminationProtectionLifted",
			"lifted termination protection of instance "+inst.ID+" because the EC2Instance is deleted with deletionPolicy Delete")
		state, err = d.EC2Of(s).TerminateInstance(ctx, inst.ID)
	}
	if err != nil {
		return pass.Failed("terminating instance "+inst.ID, err)
	}
	s.Event(corev1.EventTypeNormal, "Terminating", "terminating instance "+inst.ID)
	// TerminateInstances answers with the instance's new state: once it is shutting
	// down, nothing can bring it back, and the object can go, with any other instance
	// that carries its tags.
	if state == ec2.StateShuttingDown || state == ec2.StateTerminated {
		if err := d.Kernel.TerminateExtras(ctx, s, inst.ID); err != nil {
			return pass.Failed("terminating the extra instances", err)
		}
		return d.Kernel.Release(ctx, s)
	}
	return pass.DoneAfter(d.PollInterval)
}

// instanceForDeletion finds the instance to clean up, including one whose launch was
// never recorded: the client token in status shows a launch may have happened. While
// a launch may still be invisible to DescribeInstances (EC2 is eventually consistent),
// it waits rather than release the object and leak the instance.
func (d *Phase) instanceForDeletion(ctx context.Context, s *pass.Scope) (*ec2.Instance, error) {
	st := &s.Obj.Status
	if st.InstanceID == "" {
		// An instance this process launched and has not recorded yet.
		if id, ok := d.Launches.Get(s.Obj.UID, st.ClientToken); ok {
			st.InstanceID = id
		} else if id, none := d.batchInstance(s); none {
			return nil, nil
		} else if id != "" {
			st.InstanceID = id
		}
	}
	if st.InstanceID != "" {
		inst, err := d.EC2Of(s).GetInstance(ctx, st.InstanceID)
		if !awserrors.IsNotFound(err) {
			return inst, err
		}
		if s.Obj.Spec.InstanceID != "" || !d.Kernel.WithinVisibilityGrace(s) {
			return nil, nil // long gone
		}
	} else if d.Kernel.NothingLaunched(s) {
		return nil, nil // no launch was ever sent, or EC2 refused it outright
	}
	found, err := d.Kernel.FindOwnInstance(ctx, s, st.ClientToken)
	if err != nil || found != nil {
		return found, err
	}
	if d.Kernel.WithinVisibilityGrace(s) {
		return nil, &awserrors.Error{Kind: awserrors.KindNotFound, Operation: "DescribeInstances", Code: "NotVisibleYet",
			Message: "a launch may have happened but the instance is not visible yet; waiting before releasing the object"}
	}
	return nil, nil
}

// batchInstance settles a batch member's deletion with what this process knows of
// its batch: the instance the batch launched at its index, or none (the batch was
// abandoned here before it was sent, and the member was created after this process
// started, so no earlier process sent it either; or the batch launched no instance
// at its index). Abandoning keeps the batch from being sent after the member is
// gone. A member whose launch record an earlier process may have written does not
// abandon the batch: that process may have sent it, and the other members must find
// their instances rather than launch alone. Otherwise ("", false) the member is
// looked for by its token and index, with the visibility grace.
func (d *Phase) batchInstance(s *pass.Scope) (id string, none bool) {
	b, ok := plan.BatchOf(s.Obj)
	if !ok || s.Obj.Status.ClientToken != b.Token {
		return "", false
	}
	fresh := s.Obj.CreationTimestamp.Time.After(d.Batches.Started().Add(time.Second))
	if fresh || d.Batches.RecordedHere(b.Token, s.Obj.UID) {
		if d.Batches.Abandon(b.Token) {
			return "", fresh
		}
	}
	state, launched := d.Batches.State(b.Token)
	if state != memory.BatchLaunched {
		return "", false
	}
	id, ok = launched[b.Index]
	return id, !ok
}

// retain releases the instance: the ownership tags go, so another EC2Instance can adopt
// it, and the instance keeps running.
func (d *Phase) retain(ctx context.Context, s *pass.Scope, inst *ec2.Instance) pass.Step {
	if err := d.EC2Of(s).DeleteTags(ctx, append([]string{inst.ID}, pass.LaunchVolumes(s, inst)...), ec2.OwnershipTagKeys()); err != nil {
		return pass.Failed("removing ownership tags from instance "+inst.ID, err)
	}
	if err := d.retainResources(ctx, s, inst); err != nil {
		return pass.Failed("releasing the Elastic IP and volumes of instance "+inst.ID, err)
	}
	if err := d.Kernel.ReleaseExtras(ctx, s, inst.ID); err != nil {
		return pass.Failed("releasing the extra instances", err)
	}
	s.Event(corev1.EventTypeNormal, "Retained", "left instance "+inst.ID+" running and removed its ownership tags (deletionPolicy Retain)")
	return d.Kernel.Release(ctx, s)
}

// releaseAfterInstance releases an object whose instance is gone or going (nil when
// there never was one). A data volume whose CreateVolume answer was lost was never
// attached, so it does not go with the instance: it is dealt with first, as the
// deletion policy says.
func (d *Phase) releaseAfterInstance(ctx context.Context, s *pass.Scope, inst *ec2.Instance) pass.Step {
	id := s.Obj.Status.InstanceID
	if inst != nil {
		id = inst.ID
	}
	if err := d.settleUnrecordedVolumes(ctx, s, id); err != nil {
		return pass.Failed("settling the data volumes of instance "+id, err)
	}
	return d.Kernel.Release(ctx, s)
}
