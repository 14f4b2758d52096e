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

package mustgather

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// scope says where a resource is gathered from.
type scope int

const (
	// clusterScoped resources are gathered whole (filtered by keep, when set).
	clusterScoped scope = iota
	// everyNamespace resources are the operator's API: gathered from all namespaces.
	everyNamespace
	// operatorNamespaces resources are gathered only from the namespaces the operator
	// runs in, where they describe its installation.
	operatorNamespaces
)

// target is one resource the gather collects.
type target struct {
	gvr   schema.GroupVersionResource
	scope scope
	// keep selects the objects that belong to the operator, where a resource is shared
	// with others (RBAC, CRDs, and everything in a namespace such as
	// openshift-operators, where many operators run); nil keeps every object.
	keep func(obj *unstructured.Unstructured) bool
}

var (
	ec2InstancesGVR = schema.GroupVersionResource{Group: "compute.ec2-operator.dev", Version: "v1alpha1", Resource: "ec2instances"}
	awsAccountsGVR  = schema.GroupVersionResource{Group: "compute.ec2-operator.dev", Version: "v1alpha1", Resource: "awsaccounts"}
	setsGVR         = schema.GroupVersionResource{Group: "compute.ec2-operator.dev", Version: "v1alpha1", Resource: "ec2instancesets"}
	csvGVR          = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "clusterserviceversions"}
	deploymentsGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

// targets are what the gather collects. Secrets and ConfigMaps are absent on purpose:
// they hold credentials and user data, which never leave the cluster in a support
// archive. ServiceAccounts are gathered for their IRSA and Pod Identity annotations.
var targets = []target{
	{gvr: awsAccountsGVR, scope: clusterScoped},
	{gvr: ec2InstancesGVR, scope: everyNamespace},
	{gvr: setsGVR, scope: everyNamespace},
	{gvr: schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
		scope: clusterScoped, keep: func(obj *unstructured.Unstructured) bool {
			return strings.HasSuffix(obj.GetName(), ".compute.ec2-operator.dev")
		}},
	{gvr: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, scope: clusterScoped, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}, scope: clusterScoped, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clusterextensions"}, scope: clusterScoped, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"}, scope: clusterScoped, keep: operatorOwned},
	{gvr: deploymentsGVR, scope: operatorNamespaces, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}, scope: operatorNamespaces, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, scope: operatorNamespaces, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "services"}, scope: operatorNamespaces, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, scope: operatorNamespaces, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "events"}, scope: operatorNamespaces, keep: aboutOperator},
	{gvr: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, scope: operatorNamespaces, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, scope: operatorNamespaces, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"}, scope: operatorNamespaces, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, scope: operatorNamespaces, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}, scope: operatorNamespaces, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}, scope: operatorNamespaces, keep: operatorOwned},
	{gvr: csvGVR, scope: operatorNamespaces, keep: operatorOwned},
	{gvr: schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "subscriptions"}, scope: operatorNamespaces, keep: subscribesOperator},
	{gvr: schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "installplans"}, scope: operatorNamespaces, keep: installsOperator},
	{gvr: schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1", Resource: "operatorgroups"}, scope: operatorNamespaces},
}

// operatorOwned keeps the objects an installation of ec2-operator creates: named
// after it by kustomize, Helm and OLM v1 (and so the pods and ReplicaSets of its
// Deployment), labelled app.kubernetes.io/name=ec2-operator, or labelled by OLM v0
// (olm.owner is the CSV's name).
func operatorOwned(obj *unstructured.Unstructured) bool {
	labels := obj.GetLabels()
	return strings.Contains(obj.GetName(), "ec2-operator") || strings.HasPrefix(labels["olm.owner"], "ec2-operator.") ||
		labels["app.kubernetes.io/name"] == "ec2-operator"
}

// aboutOperator keeps the events of the operator's own objects (its pods, Deployment,
// CSV, lease).
func aboutOperator(obj *unstructured.Unstructured) bool {
	name, _, _ := unstructured.NestedString(obj.Object, "involvedObject", "name")
	return strings.Contains(name, "ec2-operator")
}

// subscribesOperator keeps the Subscriptions to the ec2-operator package, whatever
// the Subscription's own name.
func subscribesOperator(obj *unstructured.Unstructured) bool {
	pkg, _, _ := unstructured.NestedString(obj.Object, "spec", "name")
	return pkg == "ec2-operator"
}

// installsOperator keeps the InstallPlans that install an ec2-operator CSV.
func installsOperator(obj *unstructured.Unstructured) bool {
	names, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "clusterServiceVersionNames")
	for _, n := range names {
		if strings.HasPrefix(n, "ec2-operator.") {
			return true
		}
	}
	return false
}
