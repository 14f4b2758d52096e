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

package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
)

// kubeconfigWithTwoContexts writes a kubeconfig whose current context has the
// namespace payments and whose other context has batch, and points KUBECONFIG and HOME
// away from the user's own.
func kubeconfigWithTwoContexts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("KUBECONFIG", filepath.Join(dir, "none"))
	path := filepath.Join(dir, "config")
	cfg := `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443"}
users:
- name: u
  user: {token: t}
contexts:
- name: prod
  context: {cluster: c, user: u, namespace: payments}
- name: jobs
  context: {cluster: c, user: u, namespace: batch}
current-context: prod
`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The namespace follows kubectl's rules: -n, else the kubeconfig context's (the
// current one, or --context), else default.
func TestTheNamespaceIsKubectlsUnlessGiven(t *testing.T) {
	kubeconfig := kubeconfigWithTwoContexts(t)
	testCases := []struct {
		args []string
		want string
	}{
		{[]string{"--kubeconfig", kubeconfig}, "payments"},
		{[]string{"--kubeconfig", kubeconfig, "--context", "jobs"}, "batch"},
		{[]string{"--kubeconfig", kubeconfig, "-n", "imported"}, "imported"},
		{[]string{"--namespace=imported"}, "imported"},
		{nil, "default"},
	}
	for _, tc := range testCases {
		cfg, err := parseImportFlags(append([]string{"--all"}, tc.args...), io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if cfg.opts.Namespace != tc.want {
			t.Errorf("%v: namespace %q, want %q", tc.args, cfg.opts.Namespace, tc.want)
		}
	}
	t.Setenv("KUBECONFIG", kubeconfig)
	if cfg, err := parseImportFlags([]string{"--all"}, io.Discard); err != nil || cfg.opts.Namespace != "payments" {
		t.Errorf("KUBECONFIG: %+v %v, want payments", cfg, err)
	}
}

// -o chooses the format, as kubectl's does; a file name given to it, as --output took
// before, is refused with the flag that takes one.
func TestOutputFormats(t *testing.T) {
	kubeconfigWithTwoContexts(t)
	objs := []computev1alpha1.EC2Instance{
		{TypeMeta: metav1.TypeMeta{APIVersion: "compute.ec2-operator.dev/v1alpha1", Kind: "EC2Instance"},
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "apps"}, Spec: computev1alpha1.EC2InstanceSpec{InstanceID: "i-0123456789abcdef0"}},
		{TypeMeta: metav1.TypeMeta{APIVersion: "compute.ec2-operator.dev/v1alpha1", Kind: "EC2Instance"},
			ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "apps"}, Spec: computev1alpha1.EC2InstanceSpec{InstanceID: "i-0fedcba9876543210"}},
	}
	var out strings.Builder
	if err := writeManifests(objs, "json", "-", "", &out); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Kind  string     `json:"kind"`
		Items []manifest `json:"items"`
	}
	if err := json.Unmarshal([]byte(out.String()), &list); err != nil || list.Kind != "List" || len(list.Items) != 2 || list.Items[1].Metadata.Name != "db" {
		t.Errorf("-o json wrote %q (%v), want a v1 List of both", out.String(), err)
	}
	out.Reset()
	if err := writeManifests(objs, "yaml", "-", "", &out); err != nil || strings.Count(out.String(), "kind: EC2Instance") != 2 || !strings.Contains(out.String(), "\n---\n") {
		t.Errorf("-o yaml wrote %q (%v), want two documents", out.String(), err)
	}
	out.Reset()
	if err := writeManifests(objs, "name", "-", "", &out); err != nil || out.String() != "ec2instance.compute.ec2-operator.dev/web\nec2instance.compute.ec2-operator.dev/db\n" {
		t.Errorf("-o name wrote %q (%v), want kubectl's kind/name lines", out.String(), err)
	}
	dir := t.TempDir()
	if err := writeManifests(objs, "json", "", dir, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "web.json")); err != nil {
		t.Errorf("--output-dir with -o json: %v", err)
	}
	if _, err := parseImportFlags([]string{"--all", "--output", "fleet.yaml"}, io.Discard); err == nil || !strings.Contains(err.Error(), "--output-file") {
		t.Errorf("--output fleet.yaml: %v, want an error naming --output-file", err)
	}
}
