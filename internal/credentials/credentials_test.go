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

package credentials

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

const (
	roleARN   = "arn:aws:iam::123456789012:role/ec2-operator"
	managerNS = "ec2-operator-system"
	managerSA = "ec2-operator-controller-manager"
)

var (
	env   *testenv.Environment
	admin client.Client
	// manager is a client that authenticates as the manager's service account, so the
	// tests exercise the RBAC generated from this package's markers.
	manager client.Client
)

func TestMain(m *testing.M) {
	if testenv.UnitTier() {
		// The package's tests share one API server with the shipped RBAC granted;
		// make test runs them.
		fmt.Println("internal/credentials: tests need a kube-apiserver; not in the unit tier")
		os.Exit(0)
	}
	code, err := run(m)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	var err error
	env, err = testenv.Start()
	if err != nil {
		return 0, err
	}
	defer func() { _ = env.Stop() }()
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{
		Paths:              []string{filepath.Join("testdata", "credentialsrequest-crd.yaml"), filepath.Join("testdata", "cloudcredential-crd.yaml")},
		ErrorIfPathMissing: true,
	}); err != nil {
		return 0, err
	}
	if admin, err = client.New(env.Config, client.Options{Scheme: scheme.Scheme}); err != nil {
		return 0, err
	}
	ctx := context.Background()
	for _, ns := range []string{managerNS, DefaultRequestNamespace} {
		if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return 0, err
		}
	}
	if err := grantGeneratedRBAC(ctx); err != nil {
		return 0, err
	}
	impersonated := rest.CopyConfig(env.Config)
	impersonated.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + managerNS + ":" + managerSA}
	if manager, err = client.New(impersonated, client.Options{Scheme: scheme.Scheme}); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// deleteRequest deletes the manager's CredentialsRequest, as an administrator would.
func deleteRequest(t *testing.T) {
	req := &unstructured.Unstructured{}
	req.SetGroupVersionKind(CredentialsRequestGVK)
	req.SetNamespace(DefaultRequestNamespace)
	req.SetName(DefaultRequestName)
	if err := admin.Delete(context.Background(), req); client.IgnoreNotFound(err) != nil {
		t.Error(err)
	}
}

// grantGeneratedRBAC applies config/rbac/role.yaml (controller-gen's output from the
// markers) and the Role of the manager's own namespace
// (config/rbac/own-namespace/own_namespace_role.yaml), and binds them to the manager's
// service account, as kustomize and OLM do.
func grantGeneratedRBAC(ctx context.Context) error {
	var data []byte
	for _, f := range []string{"role.yaml", "own-namespace/own_namespace_role.yaml"} {
		b, err := os.ReadFile(filepath.Join(testenv.ProjectRoot(), "config", "rbac", f))
		if err != nil {
			return err
		}
		data = append(append(data, b...), []byte("\n---\n")...)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(string(data)), 4096)
	subject := []rbacv1.Subject{{Kind: "ServiceAccount", Name: managerSA, Namespace: managerNS}}
	for {
		var role rbacv1.ClusterRole
		if err := dec.Decode(&role); err != nil {
			break
		}
		switch role.Kind {
		case "ClusterRole":
			role.Name = "test-manager-role"
			if err := admin.Create(ctx, &role); err != nil {
				return err
			}
			if err := admin.Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "test-manager-role"},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
				Subjects:   subject,
			}); err != nil {
				return err
			}
		case "Role":
			r := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "test-" + role.Name, Namespace: managerNS}, Rules: role.Rules}
			if err := admin.Create(ctx, r); err != nil {
				return err
			}
			if err := admin.Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: r.Name, Namespace: managerNS},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: r.Name},
				Subjects:   subject,
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

// testOptions are the manager's options for one test. Every test uses the one request
// name the manager's RBAC lets it read and update, so each deletes it afterwards.
func testOptions(t *testing.T) Options {
	t.Cleanup(func() { deleteRequest(t) })
	return Options{
		RoleARN:            roleARN,
		Namespace:          managerNS,
		ServiceAccountName: managerSA,
		RequestName:        DefaultRequestName,
		Dir:                t.TempDir(),
		PollInterval:       50 * time.Millisecond,
		Timeout:            20 * time.Second,
	}
}

// profile is what the Cloud Credential Operator writes in STS mode.
func profile(role string) string {
	return "[default]\nsts_regional_endpoints = regional\nrole_arn = " + role + "\nweb_identity_token_file = " + CloudTokenPath + "\n"
}

// simulateCCO waits for the CredentialsRequest and writes the Secret it asks for,
// as the Cloud Credential Operator does.
func simulateCCO(t *testing.T, ctx context.Context, name, credentials string) {
	t.Helper()
	go func() {
		req := &unstructured.Unstructured{}
		req.SetGroupVersionKind(CredentialsRequestGVK)
		for ctx.Err() == nil {
			if err := admin.Get(ctx, client.ObjectKey{Namespace: DefaultRequestNamespace, Name: name}, req); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		secretName, _, _ := unstructured.NestedString(req.Object, "spec", "secretRef", "name")
		secretNS, _, _ := unstructured.NestedString(req.Object, "spec", "secretRef", "namespace")
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: secretNS},
			Data:       map[string][]byte{SecretKey: []byte(credentials)},
		}
		if err := admin.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) && ctx.Err() == nil {
			t.Errorf("simulated CCO: %v", err)
		}
	}()
}

func deleteSecret(t *testing.T) {
	t.Helper()
	err := admin.Delete(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: DefaultSecretName, Namespace: managerNS}})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
}

func TestSetupRequestsCredentialsAndWritesCCOsProfile(t *testing.T) {
	t.Cleanup(func() { deleteSecret(t) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := testOptions(t)
	simulateCCO(t, ctx, opts.RequestName, profile(roleARN))

	path, err := Setup(ctx, manager, opts)
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}

	// The request carries what CCO needs in STS mode.
	req := &unstructured.Unstructured{}
	req.SetGroupVersionKind(CredentialsRequestGVK)
	if err := admin.Get(ctx, client.ObjectKey{Namespace: DefaultRequestNamespace, Name: opts.RequestName}, req); err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]string{
		"spec.providerSpec.kind":          "AWSProviderSpec",
		"spec.providerSpec.apiVersion":    "cloudcredential.openshift.io/v1",
		"spec.providerSpec.stsIAMRoleARN": roleARN,
		"spec.cloudTokenPath":             CloudTokenPath,
		"spec.secretRef.name":             DefaultSecretName,
		"spec.secretRef.namespace":        managerNS,
	} {
		got, _, _ := unstructured.NestedString(req.Object, strings.Split(field, ".")...)
		if got != want {
			t.Errorf("%s = %q, want %q", field, got, want)
		}
	}
	sas, _, _ := unstructured.NestedStringSlice(req.Object, "spec", "serviceAccountNames")
	if len(sas) != 1 || sas[0] != managerSA {
		t.Errorf("serviceAccountNames = %v", sas)
	}
	entries, _, _ := unstructured.NestedSlice(req.Object, "spec", "providerSpec", "statementEntries")
	actions := map[string]bool{}
	for _, e := range entries {
		entry := e.(map[string]any)
		if r, _ := entry["resource"].(string); r == "" || strings.Contains(r, ",") {
			t.Errorf("statement entry resource %q is not one ARN", r)
		}
		for _, a := range entry["action"].([]any) {
			actions[a.(string)] = true
		}
	}
	for _, a := range requiredActions(t) {
		if !actions[a] {
			t.Errorf("the CredentialsRequest does not ask for %s", a)
		}
	}

	// The profile is written privately, and the AWS SDK reads it as web identity.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != profile(roleARN) {
		t.Errorf("written profile = %q", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("profile mode = %v, want 0600", fi.Mode().Perm())
	}
	cfg, err := config.LoadDefaultConfig(ctx,
		config.WithSharedConfigFiles([]string{path}), config.WithSharedCredentialsFiles([]string{path}),
		config.WithRegion("us-east-1"))
	if err != nil {
		t.Fatalf("the AWS SDK cannot load the profile: %v", err)
	}
	cache, ok := cfg.Credentials.(*aws.CredentialsCache)
	if !ok || !cache.IsCredentialsProvider(&stscreds.WebIdentityRoleProvider{}) {
		t.Errorf("the AWS SDK does not use web identity with this profile (provider %T)", cfg.Credentials)
	}
}

func TestSetupIsIdempotentAndFollowsARoleChange(t *testing.T) {
	t.Cleanup(func() { deleteSecret(t) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := testOptions(t)
	simulateCCO(t, ctx, opts.RequestName, profile(roleARN))
	if _, err := Setup(ctx, manager, opts); err != nil {
		t.Fatal(err)
	}
	get := func() *unstructured.Unstructured {
		req := &unstructured.Unstructured{}
		req.SetGroupVersionKind(CredentialsRequestGVK)
		if err := admin.Get(ctx, client.ObjectKey{Namespace: DefaultRequestNamespace, Name: opts.RequestName}, req); err != nil {
			t.Fatal(err)
		}
		return req
	}
	first := get().GetResourceVersion()
	if _, err := Setup(ctx, manager, opts); err != nil {
		t.Fatal(err)
	}
	if rv := get().GetResourceVersion(); rv != first {
		t.Errorf("a second Setup rewrote the unchanged request (resourceVersion %s -> %s)", first, rv)
	}

	// A new role ARN updates the request; the old Secret is not accepted for it.
	opts.RoleARN = "arn:aws:iam::123456789012:role/other"
	opts.Timeout = time.Second
	_, err := Setup(ctx, manager, opts)
	if err == nil || !strings.Contains(err.Error(), "role_arn") {
		t.Errorf("Setup accepted a profile for another role: %v", err)
	}
	if arn, _, _ := unstructured.NestedString(get().Object, "spec", "providerSpec", "stsIAMRoleARN"); arn != opts.RoleARN {
		t.Errorf("stsIAMRoleARN = %q after a role change, want %q", arn, opts.RoleARN)
	}

	// When CCO catches up while Setup waits, Setup succeeds instead of exiting early.
	go func() {
		time.Sleep(500 * time.Millisecond)
		s := &corev1.Secret{}
		if err := admin.Get(ctx, client.ObjectKey{Namespace: managerNS, Name: DefaultSecretName}, s); err != nil {
			t.Errorf("simulated CCO: %v", err)
			return
		}
		s.Data[SecretKey] = []byte(profile(opts.RoleARN))
		if err := admin.Update(ctx, s); err != nil {
			t.Errorf("simulated CCO: %v", err)
		}
	}()
	opts.Timeout = 10 * time.Second
	if _, err := Setup(ctx, manager, opts); err != nil {
		t.Errorf("Setup gave up on a Secret that CCO was about to rewrite: %v", err)
	}
}

func TestSetupFailsClearlyWhenCCONeverAnswers(t *testing.T) {
	opts := testOptions(t)
	opts.Timeout = 300 * time.Millisecond
	_, err := Setup(context.Background(), manager, opts)
	if err == nil || !strings.Contains(err.Error(), "did not write Secret") {
		t.Fatalf("want a timeout error naming the Secret, got %v", err)
	}
}

func TestSetupRejectsInvalidInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Options)
	}{
		{"a role ARN that is not an IAM role", func(o *Options) { o.RoleARN = "arn:aws:iam::123456789012:user/bob" }},
		{"no namespace", func(o *Options) { o.Namespace = "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions(t)
			tc.mutate(&opts)
			if _, err := Setup(context.Background(), manager, opts); err == nil {
				t.Error("Setup accepted it")
			}
		})
	}
}

func TestOptionsFromEnvIsOffWithoutROLEARN(t *testing.T) {
	t.Setenv(RoleARNEnv, "")
	if _, ok := OptionsFromEnv(); ok {
		t.Error("token-auth-aws is on without ROLEARN")
	}
	t.Setenv(RoleARNEnv, " "+roleARN+" ")
	t.Setenv(NamespaceEnv, managerNS)
	t.Setenv(ServiceAccountEnv, managerSA)
	opts, ok := OptionsFromEnv()
	if !ok || opts.RoleARN != roleARN || opts.Namespace != managerNS || opts.ServiceAccountName != managerSA {
		t.Errorf("OptionsFromEnv = %+v, %v", opts, ok)
	}
}
