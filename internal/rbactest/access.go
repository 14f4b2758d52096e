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

// Package rbactest asks the API server, with SubjectAccessReviews, what the operator's
// ServiceAccount may do under the RBAC an install really created. test/olm uses it on
// the RBAC each install mode grants (rendered as OLM renders it) and test/release on
// what OLM's own operators created.
package rbactest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ec2-operator/ec2-operator/internal/credentials"
	"github.com/ec2-operator/ec2-operator/internal/monitoring"
)

// ManagerSA is the operator's ServiceAccount, as the bundle and config/ name it.
const ManagerSA = "ec2-operator-controller-manager"

// The CRDs the uninstall guards read (internal/uninstall), spelt out here so that a
// misspelling there shows as a denial.
const (
	crdGroup        = "apiextensions.k8s.io"
	crds            = "customresourcedefinitions"
	ec2InstancesCRD = "ec2instances.compute.ec2-operator.dev"
	// OpenShift's cluster configuration, of which the manager reads the APIServer.
	openshiftConfig = "config.openshift.io"
	apiservers      = "apiservers"
)

// Access is one request the manager might make.
type Access struct {
	Verb, Group, Resource, Subresource, Namespace, Name string
}

func (a Access) String() string {
	where := "cluster-wide"
	if a.Namespace != "" {
		where = "in " + a.Namespace
	}
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	return strings.Join(strings.Fields(fmt.Sprintf("%s %s %s %s", a.Verb, res, a.Name, where)), " ")
}

// May asks whether the manager of opNS may make the request.
func May(t testing.TB, c client.Client, opNS string, a Access) bool {
	t.Helper()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   "system:serviceaccount:" + opNS + ":" + ManagerSA,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + opNS, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource, Namespace: a.Namespace, Name: a.Name,
		},
	}}
	if err := c.Create(context.Background(), sar); err != nil {
		t.Fatal(err)
	}
	return sar.Status.Allowed
}

// CheckManager fails the test when the manager of opNS, watching target, may create
// Secrets or tokens, list or watch Secrets or ConfigMaps, read Secrets outside its
// namespace (other is a namespace that granted nothing), or touch objects of its own
// kind that are not its own; and when it may not do what it needs.
func CheckManager(t testing.TB, c client.Client, mode, opNS, target, other string) {
	t.Helper()
	// What it needs first, waiting for the API server's RBAC caches to see the grants
	// just made: a denial read from a stale cache would prove nothing.
	for _, a := range managerNeeds(opNS, target) {
		if !Eventually(t, c, opNS, a) {
			t.Errorf("%s install: the manager may not %s, which it needs", mode, a)
		}
	}
	for _, a := range managerMustNot(opNS, target, other) {
		if May(t, c, opNS, a) {
			t.Errorf("%s install: the manager may %s", mode, a)
		}
	}
}

// managerLease is the leader-election Lease the manager holds.
const managerLease = "ec2-operator.ec2-operator.dev"

// managerMustNot is what the manager of opNS, watching target, must not be allowed;
// other is a namespace that granted nothing.
func managerMustNot(opNS, target, other string) []Access {
	objects := monitoring.DefaultObjects(opNS)
	lease := managerLease
	denied := []Access{
		{Verb: "create", Resource: "secrets", Namespace: opNS},
		{Verb: "create", Resource: "secrets", Namespace: target},
		{Verb: "create", Resource: "secrets", Namespace: "kube-system"},
		{Verb: "create", Resource: "secrets"},
		{Verb: "create", Resource: "serviceaccounts", Subresource: "token", Namespace: opNS, Name: "default"},
		{Verb: "create", Resource: "serviceaccounts", Subresource: "token", Namespace: "kube-system", Name: "default"},
		{Verb: "get", Resource: "secrets", Namespace: opNS, Name: "some-other-secret"},
		{Verb: "get", Resource: "secrets", Namespace: other, Name: credentials.DefaultSecretName},
		{Verb: "get", Resource: "secrets", Namespace: other, Name: objects.TokenSecret},
		{Verb: "get", Resource: "secrets", Namespace: target, Name: "tenant-secret"},
		{Verb: "update", Resource: "secrets", Namespace: other, Name: objects.TokenSecret},
		{Verb: "update", Group: "monitoring.coreos.com", Resource: "servicemonitors", Namespace: other, Name: objects.ServiceMonitor},
		{Verb: "get", Group: "cloudcredential.openshift.io", Resource: "credentialsrequests", Namespace: credentials.DefaultRequestNamespace, Name: "another-operator"},
		{Verb: "update", Group: "cloudcredential.openshift.io", Resource: "credentialsrequests", Namespace: credentials.DefaultRequestNamespace, Name: "another-operator"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: other, Name: lease},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: opNS, Name: "another-lease"},
		// The uninstall guard reads its own CRDs by name, and nothing else about CRDs.
		{Verb: "get", Group: crdGroup, Resource: crds, Name: "widgets.example.com"},
		{Verb: "list", Group: crdGroup, Resource: crds},
		{Verb: "watch", Group: crdGroup, Resource: crds},
		{Verb: "update", Group: crdGroup, Resource: crds, Name: ec2InstancesCRD},
		{Verb: "delete", Group: crdGroup, Resource: crds, Name: ec2InstancesCRD},
		// A set never changes a set's spec, and never deletes one.
		{Verb: "update", Group: "compute.ec2-operator.dev", Resource: "ec2instancesets", Namespace: target},
		{Verb: "delete", Group: "compute.ec2-operator.dev", Resource: "ec2instancesets", Namespace: target},
		// The TLS profile follower reads OpenShift's APIServer named cluster, and
		// nothing else of the cluster's configuration.
		{Verb: "list", Group: openshiftConfig, Resource: apiservers},
		{Verb: "watch", Group: openshiftConfig, Resource: apiservers},
		{Verb: "get", Group: openshiftConfig, Resource: apiservers, Name: "another"},
		{Verb: "update", Group: openshiftConfig, Resource: apiservers, Name: "cluster"},
		{Verb: "patch", Group: openshiftConfig, Resource: apiservers, Name: "cluster"},
		{Verb: "get", Group: openshiftConfig, Resource: "proxies", Name: "cluster"},
	}
	for _, verb := range []string{"list", "watch"} {
		for _, ns := range []string{"", opNS, target, other} {
			denied = append(denied, Access{Verb: verb, Resource: "secrets", Namespace: ns}, Access{Verb: verb, Resource: "configmaps", Namespace: ns})
		}
	}
	return denied
}

// managerNeeds is what the manager of opNS, watching target, must be allowed.
func managerNeeds(opNS, target string) []Access {
	objects := monitoring.DefaultObjects(opNS)
	lease := managerLease
	return []Access{
		{Verb: "get", Resource: "secrets", Namespace: opNS, Name: credentials.DefaultSecretName},
		{Verb: "update", Resource: "secrets", Namespace: opNS, Name: objects.TokenSecret},
		{Verb: "update", Group: "monitoring.coreos.com", Resource: "servicemonitors", Namespace: opNS, Name: objects.ServiceMonitor},
		{Verb: "update", Group: "cloudcredential.openshift.io", Resource: "credentialsrequests", Namespace: credentials.DefaultRequestNamespace, Name: credentials.DefaultRequestName},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: opNS, Name: lease},
		{Verb: "watch", Group: "compute.ec2-operator.dev", Resource: "ec2instances", Namespace: target},
		{Verb: "patch", Group: "compute.ec2-operator.dev", Resource: "ec2instances", Subresource: "status", Namespace: target},
		{Verb: "get", Group: crdGroup, Resource: crds, Name: ec2InstancesCRD},
		{Verb: "get", Group: crdGroup, Resource: crds, Name: "awsaccounts.compute.ec2-operator.dev"},
		{Verb: "get", Group: crdGroup, Resource: crds, Name: "ec2instancesets.compute.ec2-operator.dev"},
		// EC2InstanceSets: the set's instances are EC2Instances the operator creates and
		// deletes in the set's namespace; the set itself is only read and its status
		// written, and its finalizers rule lets instances block its deletion.
		{Verb: "create", Group: "compute.ec2-operator.dev", Resource: "ec2instances", Namespace: target},
		{Verb: "delete", Group: "compute.ec2-operator.dev", Resource: "ec2instances", Namespace: target},
		{Verb: "watch", Group: "compute.ec2-operator.dev", Resource: "ec2instancesets", Namespace: target},
		{Verb: "patch", Group: "compute.ec2-operator.dev", Resource: "ec2instancesets", Subresource: "status", Namespace: target},
		{Verb: "update", Group: "compute.ec2-operator.dev", Resource: "ec2instancesets", Subresource: "finalizers", Namespace: target},
		{Verb: "get", Group: openshiftConfig, Resource: apiservers, Name: "cluster"},
		{Verb: "list", Group: openshiftConfig, Resource: apiservers, Name: "cluster"},
		{Verb: "watch", Group: openshiftConfig, Resource: apiservers, Name: "cluster"},
	}
}

// Eventually reports whether the request is allowed within ten seconds: RBAC objects
// reach the API server's authorizer through its informers, a moment after they are
// written.
func Eventually(t testing.TB, c client.Client, opNS string, a Access) bool {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if May(t, c, opNS, a) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}
