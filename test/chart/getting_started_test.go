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
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ec2-operator/ec2-operator/internal/docblocks"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// eksPage is the linear EKS walkthrough whose marked blocks these tests run.
var eksPage = filepath.Join(testenv.ProjectRoot(), "docs", "getting-started-eks.md")

// eksBlock returns a checked block of the EKS page.
func eksBlock(t *testing.T, name string) string {
	t.Helper()
	text, err := docblocks.Block(eksPage, name)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// The page's policy command, run as written from a checkout, writes the policy with
// the cluster's ID in every place of the placeholder, as JSON.
func TestTheEKSPagesPolicyCommandFillsInTheClusterID(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(testenv.ProjectRoot(), "docs"), filepath.Join(dir, "docs")); err != nil {
		t.Fatal(err)
	}
	const clusterID = "5b0c7a4e-2f1d-4c3b-9a8e-7d6f5e4c3b2a"
	cmd := exec.Command("sh", "-ec", eksBlock(t, "eks-policy-command"))
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "CLUSTER_ID="+clusterID)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the page's command: %v\n%s", err, out)
	}
	policy, err := os.ReadFile(filepath.Join(dir, "ec2-operator-policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(policy) || strings.Contains(string(policy), "EC2_OPERATOR_CLUSTER_ID") || !strings.Contains(string(policy), clusterID) {
		t.Errorf("the policy the page writes is not valid JSON with the cluster ID in place of the placeholder:\n%.400s", policy)
	}
}

// The role's trust policy is what EKS Pod Identity assumes roles with.
func TestTheEKSPagesTrustPolicyIsPodIdentitys(t *testing.T) {
	var trust struct {
		Statement []struct {
			Effect    string
			Principal struct{ Service string }
			Action    []string
		}
	}
	if err := json.Unmarshal([]byte(eksBlock(t, "eks-trust-policy")), &trust); err != nil {
		t.Fatal(err)
	}
	if len(trust.Statement) != 1 || trust.Statement[0].Effect != "Allow" || trust.Statement[0].Principal.Service != "pods.eks.amazonaws.com" ||
		!slices.Contains(trust.Statement[0].Action, "sts:AssumeRole") || !slices.Contains(trust.Statement[0].Action, "sts:TagSession") {
		t.Errorf("trust policy %+v: want pods.eks.amazonaws.com allowed sts:AssumeRole and sts:TagSession", trust)
	}
}

// The page's values install (the API server validates every object the chart renders
// from them), put the operator's service account where the page's Pod Identity
// association names it, set the region, and the page's first instance is one the API
// server accepts.
func TestTheEKSPagesValuesInstallAndItsFirstInstanceIsAccepted(t *testing.T) {
	page := eksBlock(t, "eks-values")
	values := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(values, []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	r := rendered{t: t, objs: mustRender(t, "-f", values)}
	r.want(r.find("ServiceAccount", defaultNS, serviceAccount) != nil, "no ServiceAccount %s/%s, which the page's association names", defaultNS, serviceAccount)
	r.wantEnv(defaultNS, "AWS_REGION", "eu-west-1")

	c := apiClient(t)
	install(t, c, nil, "-f", values, "--set", "namespace=gs-eks")
	first := decodeOne(t, eksBlock(t, "eks-first-instance"))
	if err := c.Create(context.Background(), first, client.DryRunAll); err != nil {
		t.Errorf("the API server refuses the page's first instance: %v", err)
	}
}

// decodeOne decodes a manifest of one object.
func decodeOne(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	objs, err := decodeAll([]byte(manifest))
	if err != nil || len(objs) != 1 {
		t.Fatalf("decoding %q: %d objects, %v", manifest, len(objs), err)
	}
	return objs[0]
}
