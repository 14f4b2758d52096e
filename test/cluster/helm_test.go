//go:build cluster

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

package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	helmNamespace = "ec2-operator-helm"
	helmTeam      = "team-helm"
	helmSecret    = "aws-keys"
)

// testHelmInstall installs the operator without OLM, as an EKS user does: helm
// install of dist/chart into a namespace they made, watching one namespace, with
// access keys from a Secret and the AWS endpoints (the emulators) as values. The
// manager runs, the sample becomes Ready and is cleaned up, and helm uninstall removes
// everything but the CRDs, which the chart keeps.
func testHelmInstall(t *testing.T, c *Cluster) {
	ctx := context.Background()
	// However the test ends, OLM v1 after it starts from a cluster without the release
	// or the CRDs.
	t.Cleanup(func() {
		_, _ = c.runHelm("uninstall", "ec2-operator", "--namespace", "default", "--ignore-not-found", "--wait", "--timeout", "3m")
		_, _ = c.kubectl("", append(append([]string{"delete", "crd"}, operatorCRDs...), "--ignore-not-found", "--wait=true", "--timeout=120s")...)
		_, _ = c.kubectl("", "delete", "namespace", helmTeam, helmNamespace, "--ignore-not-found", "--wait=true", "--timeout=180s")
	})
	c.restrictedNamespace(t, helmNamespace)
	// The chart binds the manager's rules in each watched namespace, so they exist
	// before the install (docs/helm.md), as a platform team's would.
	c.restrictedNamespace(t, helmTeam)
	env := c.OperatorEnv()
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: helmSecret, Namespace: helmNamespace},
		StringData: map[string]string{"aws_access_key_id": env["AWS_ACCESS_KEY_ID"], "aws_secret_access_key": env["AWS_SECRET_ACCESS_KEY"]},
	}
	if err := c.Client.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	extraEnv, _ := json.Marshal([]corev1.EnvVar{{Name: "AWS_EC2_METADATA_DISABLED", Value: env["AWS_EC2_METADATA_DISABLED"]}})
	c.helm(t, "install", "ec2-operator", filepath.Join(c.manifestsDir(), "dist", "chart"), "--namespace", "default",
		"--set", "namespace="+helmNamespace, "--set", "createNamespace=false",
		"--set-json", `watchNamespaces=["`+helmTeam+`"]`,
		"--set", "credentials.mode=secret", "--set", "credentials.secret.name="+helmSecret,
		"--set", "aws.region="+env["AWS_REGION"], "--set", "aws.endpoints.ec2="+env["AWS_ENDPOINT_URL_EC2"],
		"--set", "aws.endpoints.sts="+env["AWS_ENDPOINT_URL_STS"], "--set", "aws.endpoints.sqs="+env["AWS_ENDPOINT_URL_SQS"],
		"--set", "aws.eventsQueueURL="+env["EVENTS_QUEUE_URL"], "--set-json", "extraEnv="+string(extraEnv),
		"--wait", "--timeout", "5m")
	c.checkOperatorPod(t, helmNamespace)
	c.checkSampleLifecycle(t, helmTeam, helmNamespace)
	c.helm(t, "uninstall", "ec2-operator", "--namespace", "default", "--wait", "--timeout", "3m")
	c.WaitFor(t, 2*time.Minute, "the Deployment gone with the release", func() (bool, error) {
		pods := &corev1.PodList{}
		err := c.Client.List(ctx, pods, client.InNamespace(helmNamespace))
		return err == nil && len(pods.Items) == 0, err
	})
	for _, name := range operatorCRDs {
		if err := c.Client.Get(ctx, client.ObjectKey{Name: name}, &apiextensionsv1.CustomResourceDefinition{}); err != nil {
			t.Errorf("CRD %s after helm uninstall: %v (the chart keeps the CRDs)", name, err)
		}
	}
}

// helm runs the helm that make builds into bin/ against the cluster.
func (c *Cluster) helm(t testing.TB, args ...string) string {
	t.Helper()
	out, err := c.runHelm(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (c *Cluster) runHelm(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.Root, "bin", "helm"), append(args, "--kubeconfig", c.Kubeconfig)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}
