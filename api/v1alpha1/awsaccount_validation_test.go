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

package v1alpha1_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// These cases cover AWSAccount (the STS AssumeRole parameter constraints, from the
// STS API reference) and EC2Instance.spec.accountRef.

func validAccount(name string) *v1alpha1.AWSAccount {
	return &v1alpha1.AWSAccount{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.AWSAccountSpec{
			RoleARN:           "arn:aws:iam::123456789012:role/ec2-operator",
			AllowedNamespaces: v1alpha1.AllowedNamespaces{Names: []string{"team-a"}},
		},
	}
}

func TestCreateRejectsInvalidAccounts(t *testing.T) {
	testCases := []struct {
		name      string
		mutate    func(*v1alpha1.AWSAccount)
		wantField string
	}{
		{"an external ID without a role", func(a *v1alpha1.AWSAccount) { a.Spec.RoleARN, a.Spec.ExternalID = "", "team-a-7f3c" }, "externalId and sessionName apply only with a roleArn"},
		{"a session name without a role", func(a *v1alpha1.AWSAccount) { a.Spec.RoleARN, a.Spec.SessionName = "", "ops" }, "externalId and sessionName apply only with a roleArn"},
		{"the default account with a role", func(a *v1alpha1.AWSAccount) { a.Name = v1alpha1.DefaultAccountName }, "the AWSAccount named default stands for the operator's own credentials"},
		{"an image owner alias that is not one", func(a *v1alpha1.AWSAccount) {
			a.Spec.Guardrails = &v1alpha1.Guardrails{ImageOwners: []string{"amazonx"}}
		}, "spec.guardrails.imageOwners[0]"},
		{"an empty instance type pattern", func(a *v1alpha1.AWSAccount) {
			a.Spec.Guardrails = &v1alpha1.Guardrails{InstanceTypes: []string{""}}
		}, "spec.guardrails.instanceTypes[0]"},
		{"a user instead of a role", func(a *v1alpha1.AWSAccount) { a.Spec.RoleARN = "arn:aws:iam::123456789012:user/ops" }, "spec.roleArn"},
		{"an account ID of eleven digits", func(a *v1alpha1.AWSAccount) { a.Spec.RoleARN = "arn:aws:iam::12345678901:role/x" }, "spec.roleArn"},
		{"an external ID of one character", func(a *v1alpha1.AWSAccount) { a.Spec.ExternalID = "x" }, "spec.externalId"},
		{"an external ID with a space", func(a *v1alpha1.AWSAccount) { a.Spec.ExternalID = "team a" }, "spec.externalId"},
		{"a session name of 65 characters", func(a *v1alpha1.AWSAccount) { a.Spec.SessionName = strings.Repeat("s", 65) }, "spec.sessionName"},
		{"a session name with a slash", func(a *v1alpha1.AWSAccount) { a.Spec.SessionName = "ops/x" }, "spec.sessionName"},
		{"a region that is not one", func(a *v1alpha1.AWSAccount) { a.Spec.DefaultRegion = "useast1" }, "spec.defaultRegion"},
	}
	for i, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			a := validAccount(fmt.Sprintf("invalid-account-%d", i))
			tc.mutate(a)
			err := k8sClient.Create(context.Background(), a)
			if err == nil {
				_ = k8sClient.Delete(context.Background(), a)
				t.Fatal("the API server accepted an invalid AWSAccount")
			}
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.wantField) {
				t.Errorf("want an Invalid error naming %s, got %v", tc.wantField, err)
			}
		})
	}
}

// TestAnAccountWithoutARoleStandsForTheOperatorsCredentials: the default account, and
// any other without roleArn, with guardrails, is accepted.
func TestAnAccountWithoutARoleStandsForTheOperatorsCredentials(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{v1alpha1.DefaultAccountName, "own-credentials-team-a"} {
		a := validAccount(name)
		a.Spec.RoleARN = ""
		a.Spec.Guardrails = &v1alpha1.Guardrails{InstanceProfiles: []string{"arn:aws:iam::*:instance-profile/ec2-operator/*"},
			ImageOwners: []string{"amazon", "self", "123456789012"}, InstanceTypes: []string{"t3.*"}}
		if err := k8sClient.Create(ctx, a); err != nil {
			t.Fatalf("the API server rejected AWSAccount %s without a role: %v", name, err)
		}
		t.Cleanup(func() { _ = k8sClient.Delete(ctx, a) })
	}
}

func TestAccountsAreClusterScopedAndAcceptTheShippedSample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "samples", "compute_v1alpha1_awsaccount.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sample := &v1alpha1.AWSAccount{}
	if err := yaml.UnmarshalStrict(data, sample); err != nil {
		t.Fatal(err)
	}
	sample.Name = "sample-account"
	ctx := context.Background()
	if err := k8sClient.Create(ctx, sample); err != nil {
		t.Fatalf("the API server rejected the shipped sample: %v", err)
	}
	t.Cleanup(func() { _ = k8sClient.Delete(ctx, sample) })
	if sample.Namespace != "" {
		t.Errorf("AWSAccount was created in namespace %q; it is cluster-scoped", sample.Namespace)
	}
}

func TestAccountRefIsValidatedAndImmutable(t *testing.T) {
	bad := validInstance("bad-account-ref")
	bad.Spec.AccountRef = &v1alpha1.AccountReference{Name: "Not_A_Name"}
	expectCreateRejected(t, bad, "spec.accountRef.name", "should match")

	withRef := func(name string) *v1alpha1.EC2Instance {
		o := validInstance(name)
		o.Spec.AccountRef = &v1alpha1.AccountReference{Name: "team-a"}
		return o
	}
	expectUpdateRejected(t, withRef("account-ref-changed"), func(o *v1alpha1.EC2Instance) {
		o.Spec.AccountRef.Name = "team-b"
	}, "spec.accountRef", "accountRef is immutable")
	expectUpdateRejected(t, withRef("account-ref-removed"), func(o *v1alpha1.EC2Instance) {
		o.Spec.AccountRef = nil
	}, "spec", "accountRef is immutable")
	expectUpdateRejected(t, validInstance("account-ref-added"), func(o *v1alpha1.EC2Instance) {
		o.Spec.AccountRef = &v1alpha1.AccountReference{Name: "team-a"}
	}, "spec", "accountRef is immutable")
}
