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
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
)

// This file is the uninstall guard. Uninstalling the operator through OLM v1 (deleting
// its ClusterExtension), or `kubectl delete crd`, deletes the CRDs, and the API server
// then deletes every EC2Instance and AWSAccount. Those deletions are not the user's
// wish to terminate the fleet: an object deleted because its CRD is being deleted is
// released without calling AWS, whatever its deletionPolicy, and its instance keeps
// running with the operator's ownership tags, so that a reinstall and a re-created
// object (a backup restore, a GitOps re-sync) take it over (launch_restore.go) instead
// of launching a second one.
//
// The guard reads the CRD afresh on every deletion pass, past the cache: one GET of
// one CRD's metadata by name, only for an object being deleted. A CRD's deletion
// cannot be undone, so what one pass sees holds for every later one, and a crash at
// any line leaves a state the next pass decides the same way. An informer would need
// list and watch on every CRD of the cluster. When the CRD cannot be read, nothing is
// terminated: the pass fails (CRDUnreadable) and backs off.

// The guard may get, by name, the operator's own two CRDs and no other: it reads only
// whether they are being deleted. resourceNames cannot restrict list or watch, which it
// does not need.
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,resourceNames=ec2instances.compute.ec2-operator.dev;awsaccounts.compute.ec2-operator.dev,verbs=get

// The operator's CRDs, named as the API server names them: plural.group. The RBAC
// marker above spells them out (markers cannot use constants); a test checks both.
var (
	ec2InstancesCRD = "ec2instances." + computev1alpha1.GroupVersion.Group
	awsAccountsCRD  = "awsaccounts." + computev1alpha1.GroupVersion.Group
)

// crdKind is the CustomResourceDefinition's kind. Only its metadata is read, so the
// type need not be in the manager's scheme and its large schema is not transferred.
var crdKind = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// reasonReleasedOnUninstall is the reason of the Warning event on an EC2Instance
// released because its CRD is being deleted.
const reasonReleasedOnUninstall = "ReleasedOnUninstall"

// crdDeleting reads the CRD's metadata from the API server and reports whether it is
// being deleted.
func crdDeleting(ctx context.Context, reader client.Reader, name string) (bool, error) {
	if reader == nil {
		return false, errors.New("no API reader to read CustomResourceDefinitions with")
	}
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(crdKind)
	return crdDeletion(crd, reader.Get(ctx, client.ObjectKey{Name: name}, crd))
}

// crdDeletion is the guard's rule, from what the GET of the CRD answered: a deletion
// timestamp means it is being deleted. So does its absence: an object cannot outlive
// its CRD, so an object seen while the CRD is gone is one the API server is removing
// (the release's patch, with optimistic locking, then finds it gone or changed). Any
// other error is returned: the caller must not terminate on a guess.
func crdDeletion(crd *metav1.PartialObjectMetadata, err error) (bool, error) {
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, err
	}
	return !crd.DeletionTimestamp.IsZero(), nil
}

// uninstalling reports which of the operator's CRDs is being deleted, "" for none.
func uninstalling(ctx context.Context, reader client.Reader) (string, error) {
	for _, name := range []string{awsAccountsCRD, ec2InstancesCRD} {
		deleting, err := crdDeleting(ctx, reader, name)
		if err != nil {
			return "", fmt.Errorf("reading CustomResourceDefinition %s: %w", name, err)
		}
		if deleting {
			return name, nil
		}
	}
	return "", nil
}

// guardUninstall runs first in a deletion pass of an object that may have an
// instance, before the account and the client are resolved: during an uninstall the
// AWSAccount may be gone already, and nothing is asked of AWS anyway. It releases the
// object when the EC2Instance CRD is being deleted, and lets the deletion go on as its
// deletionPolicy says otherwise.
func (r *EC2InstanceReconciler) guardUninstall(ctx context.Context, s *instanceScope) step {
	deleting, err := crdDeleting(ctx, r.crdReader, ec2InstancesCRD)
	if err != nil {
		return failed("reading CustomResourceDefinition "+ec2InstancesCRD+
			" to tell an uninstall from the deletion of this object (nothing is terminated or released until it can be read)", crdUnreadable(err))
	}
	if !deleting {
		return proceed()
	}
	r.event(s, corev1.EventTypeWarning, reasonReleasedOnUninstall, uninstallMessage(s.obj))
	return r.release(ctx, s)
}

// uninstallMessage says, in the event and the log, why the instance was left running
// and how to delete it for real.
func uninstallMessage(o *computev1alpha1.EC2Instance) string {
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
		ec2InstancesCRD, inst)
}

// crdUnreadable names a failed read of a CRD by its own Ready reason, with the API
// server's reason (Forbidden, say) as the code, as an EC2 error would show its code.
func crdUnreadable(err error) error {
	code := string(apierrors.ReasonForError(err))
	if code == "" {
		code = "Error"
	}
	return &reasonedError{reason: computev1alpha1.ReasonCRDUnreadable, err: &ec2.Error{
		Operation: "GetCustomResourceDefinition", Code: code, Message: err.Error(), Err: err}}
}
