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

package olm

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/credentials"
	"github.com/ec2-operator/ec2-operator/internal/docblocks"
)

// openshiftPage is the linear OpenShift walkthrough whose marked blocks these tests read.
const openshiftPage = "docs/getting-started-openshift.md"

func openshiftBlock(t *testing.T, name string) string {
	t.Helper()
	text, err := docblocks.Block(path(openshiftPage), name)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// The page's install subscribes to what the catalog serves (the bundle's package and
// default channel, from config/catalogsource.yaml's source), in an install mode the
// CSV supports, and hands the operator the role through the variable it reads.
func TestTheOpenShiftPagesSubscriptionMatchesTheCatalogAndTheBundle(t *testing.T) {
	objs := decodeAll(t, []byte(openshiftBlock(t, "openshift-subscription")))
	var sub operatorsv1alpha1.Subscription
	var group operatorsv1.OperatorGroup
	into(t, find(t, objs, "Subscription", "ec2-operator").Object, &sub)
	into(t, find(t, objs, "OperatorGroup", "ec2-operator").Object, &group)

	annotations := map[string]map[string]string{}
	data, err := os.ReadFile(path("bundle/metadata/annotations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &annotations); err != nil {
		t.Fatal(err)
	}
	meta := annotations["annotations"]
	source := find(t, decodeAll(t, readFile(t, "config/catalogsource.yaml")), "CatalogSource", sub.Spec.CatalogSource)
	if sub.Spec.Package != meta["operators.operatorframework.io.bundle.package.v1"] ||
		sub.Spec.Channel != meta["operators.operatorframework.io.bundle.channel.default.v1"] ||
		sub.Spec.CatalogSourceNamespace != source.GetNamespace() {
		t.Errorf("subscription %+v does not name the bundle's package and default channel in config/catalogsource.yaml's source", sub.Spec)
	}
	allNamespaces := len(group.Spec.TargetNamespaces) == 0 && group.Spec.Selector == nil
	for _, m := range loadCSV(t).Spec.InstallModes {
		if string(m.Type) == "AllNamespaces" && (!m.Supported || !allNamespaces) {
			t.Errorf("the page's OperatorGroup %+v installs in a mode the CSV does not support", group.Spec)
		}
	}
	if sub.Spec.Config == nil || len(sub.Spec.Config.Env) != 1 || sub.Spec.Config.Env[0].Name != credentials.RoleARNEnv ||
		!strings.HasPrefix(sub.Spec.Config.Env[0].Value, "arn:aws:iam::") {
		t.Errorf("subscription config %+v: want the role ARN in %s", sub.Spec.Config, credentials.RoleARNEnv)
	}
	if sub.Namespace != group.Namespace {
		t.Errorf("the Subscription is in %s and the OperatorGroup in %s", sub.Namespace, group.Namespace)
	}
}

// The role's trust policy admits the service account the CSV's Deployment runs as, in
// the namespace the page installs into, through the cluster's OIDC provider.
func TestTheOpenShiftPagesTrustPolicyNamesTheOperatorsServiceAccount(t *testing.T) {
	var trust struct {
		Statement []struct {
			Principal struct{ Federated string }
			Action    string
			Condition struct {
				StringEquals map[string]string
			}
		}
	}
	if err := json.Unmarshal([]byte(openshiftBlock(t, "openshift-trust-policy")), &trust); err != nil {
		t.Fatal(err)
	}
	namespace := decodeAll(t, []byte(openshiftBlock(t, "openshift-subscription")))[0].GetName()
	account := loadCSV(t).Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.ServiceAccountName
	want := "system:serviceaccount:" + namespace + ":" + account
	if len(trust.Statement) != 1 || trust.Statement[0].Action != "sts:AssumeRoleWithWebIdentity" ||
		!strings.Contains(trust.Statement[0].Principal.Federated, ":oidc-provider/") || trust.Statement[0].Condition.StringEquals["<oidc>:sub"] != want {
		t.Errorf("trust policy %+v: want sts:AssumeRoleWithWebIdentity from the OIDC provider for %s", trust, want)
	}
}

// The page's first instance is one the API server accepts.
func TestTheOpenShiftPagesFirstInstanceIsAccepted(t *testing.T) {
	c, err := client.New(apiServer(t), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := decodeAll(t, []byte(openshiftBlock(t, "openshift-first-instance")))[0]
	first.SetNamespace("default")
	if err := c.Create(context.Background(), first, client.DryRunAll); err != nil {
		t.Errorf("the API server refuses the page's first instance: %v", err)
	}
}

// readFile reads a file of the repository.
func readFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(path(rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
