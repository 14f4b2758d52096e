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

// Package grants says who the operator is to a tenant namespace: the ClusterRoles a
// namespace's admin binds to the operator's ServiceAccount there to let its
// EC2Instances read user data or write outputs, the one command that binds them, and
// the operator's own Secrets, which no tenant may make it read or write.
package grants

import (
	"fmt"
	"slices"
)

// UserDataReaderRole is the ClusterRole (config/rbac/userdata_reader_role.yaml) that a
// namespace's admin binds to the operator's ServiceAccount in that namespace to let its
// EC2Instances take user data from Secrets and ConfigMaps there. The operator holds no
// Secret or ConfigMap rule of its own outside its namespace: what a tenant's Secret
// holds is the tenant's to share.
const UserDataReaderRole = "ec2-operator-userdata-reader"

// Identity says who the operator is in Kubernetes, for the refusals that name it: the
// command that grants access, and the Secrets that are its own.
type Identity struct {
	// Namespace and ServiceAccount are the manager's (the downward API's POD_NAMESPACE
	// and SERVICE_ACCOUNT_NAME); empty when it runs outside the cluster.
	Namespace, ServiceAccount string
	// OwnSecrets are the Secrets of Namespace that hold the operator's own credentials
	// and tokens, by the names the operator knows; outputs are never written to them.
	// userDataFrom goes further and never reads any Secret of Namespace (see
	// inOperatorNamespace): a credentials Secret can have any name (the Helm chart
	// takes one), and nobody who may create an EC2Instance there may ship it to an
	// instance they control.
	OwnSecrets []string
}

// grantCommand is the one line a namespace admin runs to bind the operator the
// ClusterRole role in namespace (UserDataReaderRole, OutputsWriterRole).
func (id Identity) GrantCommand(role, namespace string) string {
	ns, sa := id.Namespace, id.ServiceAccount
	if ns == "" {
		ns = "<operator-namespace>"
	}
	if sa == "" {
		sa = "<operator-service-account>"
	}
	return fmt.Sprintf("kubectl create rolebinding %s --namespace %s --clusterrole=%s --serviceaccount=%s:%s",
		role, namespace, role, ns, sa)
}

// inOperatorNamespace reports whether namespace is the operator's own, whose Secrets
// userDataFrom never reads, whatever their names and whatever RBAC allows.
func (id Identity) InOperatorNamespace(namespace string) bool {
	return id.Namespace != "" && namespace == id.Namespace
}

// ownSecret reports whether the Secret is one of the operator's own.
func (id Identity) OwnSecret(namespace, name string) bool {
	return id.Namespace != "" && namespace == id.Namespace && slices.Contains(id.OwnSecrets, name)
}

// OutputsWriterRole is the ClusterRole (config/rbac/outputs_writer_role.yaml) that a
// namespace's admin binds to the operator's ServiceAccount in that namespace to let its
// EC2Instances write spec.outputsTo there. As for user data, the operator holds no
// ConfigMap or Secret rule of its own in tenants' namespaces: writing there is the
// namespace's to allow.
const OutputsWriterRole = "ec2-operator-outputs-writer"
