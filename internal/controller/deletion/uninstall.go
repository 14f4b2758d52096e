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

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/controller/pass"
	"github.com/ec2-operator/ec2-operator/internal/uninstall"
)

// This file is the uninstall guard. Uninstalling the operator through OLM v1 (deleting
// its ClusterExtension), or `kubectl delete crd`, deletes the CRDs, and the API server
// then deletes every EC2Instance and AWSAccount. Those deletions are not the user's
// wish to terminate the fleet: an object deleted because its CRD is being deleted is
// released without calling AWS, whatever its deletionPolicy, and its instance keeps
// running with the operator's ownership tags, so that a reinstall and a re-created
// object (a backup restore, a GitOps re-sync) take it over (package launch) instead
// of launching a second one.
//
// Whether a CRD is being deleted is internal/uninstall's question. When the CRD cannot
// be read, nothing is terminated: the pass fails (CRDUnreadable) and backs off.

// ReasonReleasedOnUninstall is the reason of the Warning event on an EC2Instance
// released because its CRD is being deleted.
const ReasonReleasedOnUninstall = "ReleasedOnUninstall"

// GuardUninstall runs first in a deletion pass of an object that may have an
// instance, before the account and the client are resolved: during an uninstall the
// AWSAccount may be gone already, and nothing is asked of AWS anyway. It releases the
// object when the EC2Instance CRD is being deleted, and lets the deletion go on as its
// deletionPolicy says otherwise.
func (d *Phase) GuardUninstall(ctx context.Context, s *pass.Scope) pass.Step {
	for _, crd := range crdsOf(s.Obj) {
		deleting, err := uninstall.Deleting(ctx, d.CRDReader, crd)
		if err != nil {
			return pass.Failed("reading CustomResourceDefinition "+crd+
				" to tell an uninstall from the deletion of this object (nothing is terminated or released until it can be read)", crdUnreadable(err))
		}
		if deleting {
			s.Event(corev1.EventTypeWarning, ReasonReleasedOnUninstall, uninstallMessage(s.Obj, crd))
			return d.Kernel.Release(ctx, s)
		}
	}
	return pass.Proceed()
}

// crdsOf are the CRDs whose deletion deletes the object: its own, and for an
// instance of an EC2InstanceSet, the sets' (the garbage collector deletes a deleted
// set's instances). Deleting one set is the wish to delete its instances; deleting
// the CRD that holds every set is not.
func crdsOf(o *computev1alpha1.EC2Instance) []string {
	crds := []string{uninstall.EC2InstancesCRD}
	if owner := metav1.GetControllerOf(o); owner != nil && owner.Kind == "EC2InstanceSet" &&
		owner.APIVersion == computev1alpha1.GroupVersion.String() {
		crds = append(crds, uninstall.EC2InstanceSetsCRD)
	}
	return crds
}

// uninstallMessage says, in the event and the log, why the instance was left running
// and how to delete it for real.
func uninstallMessage(o *computev1alpha1.EC2Instance, crd string) string {
	inst := "any instance launched for it"
	if id := o.Status.InstanceID; id != "" {
		inst = "instance " + id
	} else if o.Spec.InstanceID != "" {
		inst = "instance " + o.Spec.InstanceID
	}
	return fmt.Sprintf("CustomResourceDefinition %s is being deleted (the operator is being uninstalled), so %s was released, not terminated, "+
		"whatever the deletionPolicy: it keeps running with the operator's ownership tags and nothing was called in AWS. "+
		"To delete a fleet, delete its EC2Instances and wait until they are gone before uninstalling; "+
		"now, terminate the instance in AWS, or reinstall the operator, re-create this EC2Instance (it takes the instance over) and delete it",
		crd, inst)
}

// crdUnreadable names a failed read of a CRD by its own Ready reason, with the API
// server's reason (Forbidden, say) as the code, as an EC2 error would show its code.
func crdUnreadable(err error) error {
	code := string(apierrors.ReasonForError(err))
	if code == "" {
		code = "Error"
	}
	return &pass.ReasonedError{Reason: computev1alpha1.ReasonCRDUnreadable, Err: &awserrors.Error{
		Operation: "GetCustomResourceDefinition", Code: code, Message: err.Error(), Err: err}}
}
