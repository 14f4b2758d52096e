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

package chart

import (
	"context"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ec2-operator/ec2-operator/internal/rbactest"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

var (
	envOnce sync.Once
	env     *testenv.Environment
	envErr  error
)

// apiClient starts one envtest control plane for the package and returns an
// administrator's client.
func apiClient(t *testing.T) client.Client {
	t.Helper()
	envOnce.Do(func() { env, envErr = testenv.Start() })
	if envErr != nil {
		t.Fatalf("starting the test API server: %v", envErr)
	}
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func stopEnv() {
	if env != nil {
		_ = env.Stop()
	}
}

// install applies what the chart renders with args, as helm install would, creating
// the namespaces it expects to exist.
func install(t *testing.T, c client.Client, namespaces []string, args ...string) {
	t.Helper()
	ctx := context.Background()
	for _, ns := range namespaces {
		err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	for _, obj := range mustRender(t, args...) {
		if err := c.Patch(ctx, obj, client.Apply, client.FieldOwner("helm"), client.ForceOwnership); err != nil {
			t.Fatalf("the API server refuses %s: %v", key(obj), err)
		}
	}
}

// TestRenderedObjectsInstall applies the chart, watching two namespaces with access
// keys from a Secret, to a real API server, which validates every object, and asks it
// what the manager's service account may then do: what the manager needs where it
// watches, nothing on EC2Instances where it does not, and none of the Secret and
// token access rbactest.CheckManager forbids.
func TestRenderedObjectsInstall(t *testing.T) {
	c := apiClient(t)
	const opNS, target, other = "chart-operator", "chart-team-a", "chart-team-z"
	install(t, c, []string{target, "chart-team-b", other}, "--set", "namespace="+opNS,
		"--set-json", `watchNamespaces=["`+target+`","chart-team-b"]`,
		"--set", "credentials.mode=secret", "--set", "credentials.secret.name=aws-keys",
		"--set-json", `tolerations=[{"key":"infra","operator":"Exists","effect":"NoSchedule"}]`,
		"--set-json", `resources={"requests":{"cpu":"50m","memory":"128Mi"},"limits":{"memory":"1Gi"}}`)
	rbactest.CheckManager(t, c, "helm, watching two namespaces", opNS, target, other)
	watchOther := rbactest.Access{Verb: "watch", Group: "compute.ec2-operator.dev", Resource: "ec2instances", Namespace: other}
	if rbactest.May(t, c, opNS, watchOther) {
		t.Errorf("watching two namespaces, the manager may %s", watchOther)
	}
	watchAll := rbactest.Access{Verb: "watch", Group: "compute.ec2-operator.dev", Resource: "ec2instances"}
	if rbactest.May(t, c, opNS, watchAll) {
		t.Errorf("watching two namespaces, the manager may %s", watchAll)
	}
}

// TestDefaultInstall applies the chart with its default values (every namespace) in a
// namespace of its own and checks the manager's access there.
func TestDefaultInstall(t *testing.T) {
	c := apiClient(t)
	const opNS, target, other = "chart-default-operator", "chart-default-team", "chart-default-other"
	install(t, c, []string{target, other}, "--set", "namespace="+opNS)
	rbactest.CheckManager(t, c, "helm, every namespace", opNS, target, other)
	watchAll := rbactest.Access{Verb: "watch", Group: "compute.ec2-operator.dev", Resource: "ec2instances"}
	if !rbactest.Eventually(t, c, opNS, watchAll) {
		t.Errorf("watching every namespace, the manager may not %s", watchAll)
	}
	sa := &corev1.ServiceAccount{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: opNS, Name: serviceAccount}, sa); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sa.Labels["app.kubernetes.io/managed-by"], "Helm") {
		t.Errorf("service account labels %v", sa.Labels)
	}
}
