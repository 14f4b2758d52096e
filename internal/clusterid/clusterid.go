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

// Package clusterid finds the identity of the cluster the operator runs in. Every
// resource the operator creates in AWS is tagged with it (ec2-operator.dev:cluster),
// so that two clusters sharing an AWS account, with the same namespaces and names,
// never take each other's instances for their own; the IAM policy checks its value.
package clusterid

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Namespace is the Namespace whose UID identifies a cluster: every cluster has it,
// nobody deletes it, and its UID is new when the cluster is built again.
const Namespace = "kube-system"

// Env is the environment variable of the --cluster-id flag.
const Env = "CLUSTER_ID"

// patience bounds the wait for kube-system: a new API server creates it a moment
// after it starts serving (envtest, a fresh cluster).
const patience = 30 * time.Second

// Resolve returns override when it is set (a cluster rebuilt on purpose keeps the
// identity of the one it replaces), and otherwise the UID of the kube-system
// Namespace, read with reader (which needs get on namespaces).
func Resolve(ctx context.Context, reader client.Reader, override string) (string, error) {
	if override != "" {
		return override, nil
	}
	var ns corev1.Namespace
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, patience, true, func(ctx context.Context) (bool, error) {
		err := reader.Get(ctx, client.ObjectKey{Name: Namespace}, &ns)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return "", fmt.Errorf("reading the UID of Namespace %s, the cluster's identity (or set --cluster-id): %w", Namespace, err)
	}
	return string(ns.UID), nil
}
