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

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/credentials"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// TestOnOpenShiftInMintModeTheManagerWaitsReadyForTheCCOsKeyThenUsesIt runs the
// manager as OLM runs it on OpenShift on AWS whose Cloud Credential Operator is in its
// default (mint or passthrough) mode and no credentials are configured: it asks CCO
// for an access key with a CredentialsRequest, keeps running while the Secret is not
// there (readiness failing with the reason, objects waiting without a launch), and
// once the Secret appears it becomes ready and launches with it.
func TestOnOpenShiftInMintModeTheManagerWaitsReadyForTheCCOsKeyThenUsesIt(t *testing.T) {
	ctx := context.Background()
	testdata := filepath.Join(projectRoot, "internal", "credentials", "testdata")
	if _, err := envtest.InstallCRDs(env.Kube.Config, envtest.CRDInstallOptions{
		Paths:              []string{filepath.Join(testdata, "credentialsrequest-crd.yaml"), filepath.Join(testdata, "cloudcredential-crd.yaml")},
		ErrorIfPathMissing: true,
	}); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: credentials.DefaultRequestNamespace}}); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	cc := &unstructured.Unstructured{}
	cc.SetGroupVersionKind(credentials.CloudCredentialGVK)
	cc.SetName("cluster")
	cc.Object["spec"] = map[string]any{"credentialsMode": ""}
	if err := k8s.Create(ctx, cc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), cc) })
	ns := newNamespace(t, "mint")

	// The manager's environment on the cluster: no AWS credentials of its own.
	var environ []string
	for _, kv := range env.ManagerEnv() {
		if !strings.HasPrefix(kv, "AWS_ACCESS_KEY_ID=") && !strings.HasPrefix(kv, "AWS_SECRET_ACCESS_KEY=") && !strings.HasPrefix(kv, "AWS_SESSION_TOKEN=") {
			environ = append(environ, kv)
		}
	}
	environ = append(environ, credentials.NamespaceEnv+"="+ns, credentials.ServiceAccountEnv+"=ec2-operator-controller-manager")
	m := launchManager(t, "mint", ns, 1, environ, nil)

	// It asks CCO for an access key, and stays up but not ready while none comes.
	req := &unstructured.Unstructured{}
	req.SetGroupVersionKind(credentials.CredentialsRequestGVK)
	reqKey := client.ObjectKey{Namespace: credentials.DefaultRequestNamespace, Name: credentials.DefaultRequestName}
	t.Cleanup(func() {
		// The request has the one name the manager may read; the next test's manager
		// makes its own.
		_ = k8s.Delete(context.Background(), req)
	})
	eventually(t, 60*time.Second, func() string {
		if m.HasExited() {
			t.Fatalf("the manager exited while waiting for credentials:\n%s", m.Log())
		}
		if err := k8s.Get(ctx, reqKey, req); err != nil {
			return "no CredentialsRequest: " + err.Error()
		}
		return ""
	})
	if arn, found, _ := unstructured.NestedString(req.Object, "spec", "providerSpec", "stsIAMRoleARN"); found {
		t.Errorf("the request carries a role ARN %q in mint mode", arn)
	}
	obj := &computev1alpha1.EC2Instance{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "waits-for-keys"},
		Spec: computev1alpha1.EC2InstanceSpec{
			ImageID: ec2sim.DefaultImageID, InstanceType: "t3.micro", SubnetID: ec2sim.DefaultSubnetIDs[0],
		},
	}
	if err := k8s.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	// controller-runtime's readyz answers 500 while a check fails.
	if code, err := probe(m.probeAddr, "/readyz"); err != nil || code == http.StatusOK {
		t.Errorf("readyz without credentials: %d %v, want a failure", code, err)
	}
	if m.HasExited() {
		t.Fatalf("the manager exited while waiting for credentials:\n%s", m.Log())
	}
	got := &computev1alpha1.EC2Instance{}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.InstanceID != "" || got.Status.LastLaunchAttempt != nil {
		t.Errorf("the object launched without credentials: %+v", got.Status)
	}

	// CCO writes the Secret the request names: the manager becomes ready and the
	// object's instance is launched with that key.
	secretName, _, _ := unstructured.NestedString(req.Object, "spec", "secretRef", "name")
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: secretName},
		Data: map[string][]byte{
			credentials.AccessKeyIDKey:     []byte("AKIAMINTEDBYCCO"),
			credentials.SecretAccessKeyKey: []byte("minted-secret"),
		},
	}
	// The key is one AWS knows: STS answers who it is (the manager reads its own
	// account before it launches), in the emulator's account.
	env.STS.AddUser(ec2sim.DefaultAccountID, "AKIAMINTEDBYCCO", "minted-secret")
	if err := k8s.Create(ctx, secret); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if err := m.WaitReady(ctx, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, func() string {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
			return err.Error()
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, computev1alpha1.ConditionReady) {
			return fmt.Sprintf("not Ready: %+v", got.Status.Conditions)
		}
		return ""
	})
	if !strings.Contains(m.Log(), "asked the Cloud Credential Operator for AWS credentials") {
		t.Errorf("the manager's log does not say where its credentials come from:\n%s", m.Log())
	}
}
