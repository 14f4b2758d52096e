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

// Package uninstall tells an uninstall of the operator from the deletion of its
// objects. Uninstalling through OLM v1 (deleting its ClusterExtension), or `kubectl
// delete crd`, deletes the CRDs, and the API server then deletes every EC2Instance and
// AWSAccount. Those deletions are not the user's wish to terminate the fleet or revoke
// an account; both reconcilers ask this package before acting on a deletion.
//
// A CRD is read afresh on every question, past the cache: one GET of one CRD's
// metadata by name, only for an object being deleted. A CRD's deletion cannot be
// undone, so what one pass sees holds for every later one, and a crash at any line
// leaves a state the next pass decides the same way. An informer would need list and
// watch on every CRD of the cluster.
package uninstall

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// The operator may get, by name, its own three CRDs and no other: it reads only whether
// they are being deleted. resourceNames cannot restrict list or watch, which it does
// not need.
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,resourceNames=ec2instances.compute.ec2-operator.dev;awsaccounts.compute.ec2-operator.dev;ec2instancesets.compute.ec2-operator.dev,verbs=get

// The operator's CRDs, named as the API server names them: plural.group. The RBAC
// marker above spells them out (markers cannot use constants); a test checks both.
var (
	EC2InstancesCRD = "ec2instances." + computev1alpha1.GroupVersion.Group
	AWSAccountsCRD  = "awsaccounts." + computev1alpha1.GroupVersion.Group
	// EC2InstanceSetsCRD is read for an EC2Instance a set owns: deleting that CRD
	// deletes every set, and the garbage collector then deletes their EC2Instances.
	EC2InstanceSetsCRD = "ec2instancesets." + computev1alpha1.GroupVersion.Group
)

// CRDKind is the CustomResourceDefinition's kind. Only its metadata is read, so the
// type need not be in the manager's scheme and its large schema is not transferred.
var CRDKind = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// Deleting reads the CRD's metadata from the API server and reports whether it is
// being deleted.
func Deleting(ctx context.Context, reader client.Reader, name string) (bool, error) {
	if reader == nil {
		return false, errors.New("no API reader to read CustomResourceDefinitions with")
	}
	crd := &metav1.PartialObjectMetadata{}
	crd.SetGroupVersionKind(CRDKind)
	return deletion(crd, reader.Get(ctx, client.ObjectKey{Name: name}, crd))
}

// deletion is the rule, from what the GET of the CRD answered: a deletion timestamp
// means it is being deleted. So does its absence: an object cannot outlive its CRD, so
// an object seen while the CRD is gone is one the API server is removing (the
// caller's patch, with optimistic locking, then finds it gone or changed). Any other
// error is returned: the caller must not act on a guess.
func deletion(crd *metav1.PartialObjectMetadata, err error) (bool, error) {
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil:
		return false, err
	}
	return !crd.DeletionTimestamp.IsZero(), nil
}

// Which reports which of the operator's CRDs is being deleted, "" for none.
func Which(ctx context.Context, reader client.Reader) (string, error) {
	for _, name := range []string{AWSAccountsCRD, EC2InstancesCRD} {
		deleting, err := Deleting(ctx, reader, name)
		if err != nil {
			return "", fmt.Errorf("reading CustomResourceDefinition %s: %w", name, err)
		}
		if deleting {
			return name, nil
		}
	}
	return "", nil
}
