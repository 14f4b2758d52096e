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

package uninstall

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// TestACRDIsBeingDeletedOnlyWhenReadSoOrGone is the rule both reconcilers' uninstall
// guards follow: only a CRD read without error and without a deletion timestamp lets a
// deletion act on AWS; a CRD that is gone, or being deleted, is an uninstall; any other
// answer is an error, never a guess.
func TestACRDIsBeingDeletedOnlyWhenReadSoOrGone(t *testing.T) {
	crdResource := schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
	now := metav1.NewTime(time.Now())
	for _, tc := range []struct {
		name         string
		deletion     *metav1.Time
		err          error
		wantDeleting bool
		wantErr      bool
	}{
		{name: "served", wantDeleting: false},
		{name: "being deleted", deletion: &now, wantDeleting: true},
		{name: "gone", err: apierrors.NewNotFound(crdResource, EC2InstancesCRD), wantDeleting: true},
		{name: "forbidden", err: apierrors.NewForbidden(crdResource, EC2InstancesCRD, errors.New("RBAC")), wantErr: true},
		{name: "API server unavailable", err: apierrors.NewServiceUnavailable("etcd"), wantErr: true},
		{name: "connection refused", err: errors.New("dial tcp: connection refused"), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: EC2InstancesCRD, DeletionTimestamp: tc.deletion}}
			deleting, err := deletion(crd, tc.err)
			if (err != nil) != tc.wantErr || deleting != tc.wantDeleting {
				t.Fatalf("deletion = %v, %v; want deleting %v, error %v", deleting, err, tc.wantDeleting, tc.wantErr)
			}
		})
	}
}

// TestTheUninstallGuardReadsTheCRDsTheRBACNames: the names the guards read are those
// of the generated CRDs, and exactly those the generated ClusterRole lets it get. A
// misspelt name would read as a CRD that is gone (release, never terminate), or be
// forbidden (every deletion stuck with CRDUnreadable).
func TestTheUninstallGuardReadsTheCRDsTheRBACNames(t *testing.T) {
	root := testenv.ProjectRoot()
	for file, want := range map[string]string{
		"compute.ec2-operator.dev_ec2instances.yaml":    EC2InstancesCRD,
		"compute.ec2-operator.dev_awsaccounts.yaml":     AWSAccountsCRD,
		"compute.ec2-operator.dev_ec2instancesets.yaml": EC2InstanceSetsCRD,
	} {
		var crd metav1.PartialObjectMetadata
		readYAML(t, filepath.Join(root, "config", "crd", "bases", file), &crd)
		if crd.Name != want {
			t.Errorf("%s defines %q; the guards read %q", file, crd.Name, want)
		}
	}
	raw, err := os.ReadFile(filepath.Join(root, "config", "rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var granted []rbacv1.PolicyRule
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal([]byte(doc), &role); err != nil {
			t.Fatal(err)
		}
		for _, rule := range role.Rules {
			if slices.Contains(rule.Resources, "customresourcedefinitions") {
				granted = append(granted, rule)
			}
		}
	}
	want := []string{AWSAccountsCRD, EC2InstancesCRD, EC2InstanceSetsCRD}
	if len(granted) != 1 || !slices.Equal(granted[0].Verbs, []string{"get"}) || !slices.Equal(granted[0].APIGroups, []string{"apiextensions.k8s.io"}) ||
		!slices.Equal(slices.Sorted(slices.Values(granted[0].ResourceNames)), want) {
		t.Errorf("config/rbac/role.yaml grants %+v on CRDs; want one rule: get, in apiextensions.k8s.io, of %v only", granted, want)
	}
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
