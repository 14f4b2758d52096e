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

package mustgather

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// The values that must never be in an archive. Each is distinctive, so finding it in
// any file, whatever the encoding around it, is a leak.
const (
	secretUserData    = "userdata-from-a-secret-7c1e"
	configMapUserData = "userdata-from-a-configmap-52aa"
	inlineUserData    = "inline-userdata-password-9f3b"
	externalID        = "external-id-4d81e2"
	accessKeyInEnv    = "AKIAENVLITERAL0000001"
	secretKeyInEnv    = "secret-key-in-a-literal-env-value-6b0c"
	operatorSecret    = "operator-namespace-secret-0e77"
	proxyPassword     = "proxy-password-in-a-url-31d5"
	proxyUser         = "proxy-user-in-a-url-8a02"
)

var forbidden = []string{secretUserData, configMapUserData, inlineUserData, externalID, accessKeyInEnv, secretKeyInEnv, operatorSecret, proxyPassword, proxyUser}

// TestGatherCollectsTheOperatorsObjectsAndNoSecretValue runs the gather against a real
// API server that holds what a support case meets: EC2Instances with user data inline,
// from a Secret and from a ConfigMap (applied with kubectl, so the last-applied
// annotation copies the inline value), an AWSAccount with an external ID, the
// operator's Deployment with credentials written into its environment, a Secret in
// its namespace, events, and an unrelated workload next to it. The archive has the
// objects with their conditions and events, and none of the values above.
func TestGatherCollectsTheOperatorsObjectsAndNoSecretValue(t *testing.T) {
	testenv.SkipInUnitTier(t)
	env, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(env.Config, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const opNS, team = "ec2-operator-system", "team-a"
	for _, ns := range []string{opNS, team} {
		create(t, k8s, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	create(t, k8s, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "boot"}, StringData: map[string]string{"script": secretUserData}})
	create(t, k8s, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "boot"}, Data: map[string]string{"script": configMapUserData}})
	create(t, k8s, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: opNS, Name: "aws-keys"}, StringData: map[string]string{"key": operatorSecret}})
	fromSecret := instance(team, "from-secret", func(s *computev1alpha1.EC2InstanceSpec) {
		s.UserDataFrom = &computev1alpha1.UserDataSource{SecretKeyRef: &computev1alpha1.SecretKeySelector{Name: "boot", Key: "script"}}
	})
	fromConfigMap := instance(team, "from-configmap", func(s *computev1alpha1.EC2InstanceSpec) {
		s.UserDataFrom = &computev1alpha1.UserDataSource{ConfigMapKeyRef: &computev1alpha1.ConfigMapKeySelector{Name: "boot", Key: "script"}}
	})
	inline := instance(team, "inline", func(s *computev1alpha1.EC2InstanceSpec) { s.UserData = inlineUserData })
	applied, _ := json.Marshal(inline)
	inline.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": string(applied)}
	for _, obj := range []*computev1alpha1.EC2Instance{fromSecret, fromConfigMap, inline} {
		create(t, k8s, obj)
		obj.Status.InstanceID = "i-0" + fmt.Sprintf("%016x", len(obj.Name))
		obj.Status.State = "running"
		meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse,
			Reason: "AWSError", Message: "UnauthorizedOperation: You are not authorized to perform this operation."})
		if err := k8s.Status().Update(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	create(t, k8s, &computev1alpha1.AWSAccount{ObjectMeta: metav1.ObjectMeta{Name: "payments"}, Spec: computev1alpha1.AWSAccountSpec{
		RoleARN: "arn:aws:iam::111122223333:role/ec2-operator", ExternalID: externalID,
		AllowedNamespaces: computev1alpha1.AllowedNamespaces{Names: []string{team}},
	}})
	create(t, k8s, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: team, Name: "from-secret.1"},
		InvolvedObject: corev1.ObjectReference{APIVersion: "compute.ec2-operator.dev/v1alpha1", Kind: "EC2Instance", Namespace: team, Name: "from-secret"},
		Reason:         "LaunchFailed", Message: "UnauthorizedOperation", Type: corev1.EventTypeWarning,
	})
	create(t, k8s, deployment(opNS, "ec2-operator-controller-manager", map[string]string{"app.kubernetes.io/name": "ec2-operator"}, []corev1.EnvVar{
		{Name: "AWS_REGION", Value: "eu-west-1"},
		{Name: "AWS_ACCESS_KEY_ID", Value: accessKeyInEnv},
		{Name: "AWS_SECRET_ACCESS_KEY", Value: secretKeyInEnv},
		// OLM copies a cluster-wide proxy into the operator's environment, credentials
		// included, under names that do not say so.
		{Name: "HTTPS_PROXY", Value: "http://" + proxyUser + ":" + proxyPassword + "@proxy.corp.example:3128"},
		{Name: "NO_PROXY_NOTE", Value: "see https://" + proxyPassword + "@docs.example/proxy and ftp://" + proxyUser + "@files.example/"},
		{Name: "AWS_SESSION_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "aws-keys"}, Key: "key"}}},
	}))
	create(t, k8s, deployment(opNS, "unrelated", map[string]string{"app": "unrelated"}, nil))
	create(t, k8s, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: opNS, Name: "ec2-operator-controller-manager",
		Annotations: map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/ec2-operator"}}})

	dest := t.TempDir()
	var log bytes.Buffer
	g := &Gatherer{Dynamic: dynamic.NewForConfigOrDie(env.Config), Core: kubernetes.NewForConfigOrDie(env.Config), Dest: dest, Log: &log}
	if err := g.Run(ctx); err != nil {
		t.Fatalf("gather: %v\n%s", err, log.String())
	}
	archive := readArchive(t, dest)

	t.Run("no secret value is in any file", func(t *testing.T) {
		for path, data := range archive {
			for _, value := range forbidden {
				if strings.Contains(data, value) {
					t.Errorf("%s holds %q", path, value)
				}
			}
		}
		for path := range archive {
			if strings.Contains(path, "/secrets") || strings.Contains(path, "/configmaps") {
				t.Errorf("%s: Secrets and ConfigMaps are never gathered", path)
			}
		}
	})

	t.Run("the API objects are there with their conditions and events", func(t *testing.T) {
		instances := listFile(t, archive, "namespaces/team-a/compute.ec2-operator.dev/ec2instances.yaml")
		if len(instances) != 3 {
			t.Fatalf("%d EC2Instances, want 3", len(instances))
		}
		for _, obj := range instances {
			conditions, _ := obj["status"].(map[string]any)["conditions"].([]any)
			if len(conditions) != 1 || !strings.Contains(fmt.Sprint(conditions[0]), "UnauthorizedOperation") {
				t.Errorf("%v: conditions %v", obj["metadata"], conditions)
			}
		}
		// What support needs of the redacted values: that they were there, and where
		// user data came from.
		for _, want := range []string{"userData: '<redacted by must-gather: 29 bytes>'", "name: boot", "kubectl.kubernetes.io/last-applied-configuration: '<redacted"} {
			if !strings.Contains(archive["namespaces/team-a/compute.ec2-operator.dev/ec2instances.yaml"], want) {
				t.Errorf("the EC2Instances lack %q", want)
			}
		}
		if accounts := listFile(t, archive, "cluster-scoped-resources/compute.ec2-operator.dev/awsaccounts.yaml"); len(accounts) != 1 {
			t.Errorf("%d AWSAccounts, want 1", len(accounts))
		}
		if events := listFile(t, archive, "namespaces/team-a/core/events-ec2instance.yaml"); len(events) != 1 {
			t.Errorf("%d EC2Instance events, want 1", len(events))
		}
		if crds := listFile(t, archive, "cluster-scoped-resources/apiextensions.k8s.io/customresourcedefinitions.yaml"); len(crds) != 3 {
			t.Errorf("%d CRDs, want the operator's 3", len(crds))
		}
		summary := archive["summary.txt"]
		for _, want := range []string{"team-a", "from-secret", "i-0", "Ready=False(AWSError)", "3 EC2Instances"} {
			if !strings.Contains(summary, want) {
				t.Errorf("summary.txt lacks %q:\n%s", want, summary)
			}
		}
	})

	t.Run("the installation is there and nothing else of its namespace", func(t *testing.T) {
		deployments := listFile(t, archive, "namespaces/ec2-operator-system/apps/deployments.yaml")
		if len(deployments) != 1 || deployments[0]["metadata"].(map[string]any)["name"] != "ec2-operator-controller-manager" {
			t.Errorf("deployments %v, want only the operator's", deployments)
		}
		deployment := archive["namespaces/ec2-operator-system/apps/deployments.yaml"]
		for _, want := range []string{"value: eu-west-1", "name: AWS_SECRET_ACCESS_KEY", "secretKeyRef"} {
			if !strings.Contains(deployment, want) {
				t.Errorf("the Deployment lacks %q: only credential values are redacted", want)
			}
		}
		if sa := archive["namespaces/ec2-operator-system/core/serviceaccounts.yaml"]; !strings.Contains(sa, "eks.amazonaws.com/role-arn") {
			t.Error("the ServiceAccount's IRSA annotation is missing")
		}
		for _, want := range []string{"version", "gather.log"} {
			if archive[want] == "" {
				t.Errorf("%s is missing", want)
			}
		}
		if !strings.Contains(archive["gather.log"], "clusterserviceversions.operators.coreos.com: not served by this cluster, skipped") {
			t.Errorf("gather.log does not say OLM's resources were skipped:\n%s", archive["gather.log"])
		}
	})
}

func create(t *testing.T, k8s client.Client, obj client.Object) {
	t.Helper()
	if err := k8s.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
}

func instance(ns, name string, mutate func(*computev1alpha1.EC2InstanceSpec)) *computev1alpha1.EC2Instance {
	obj := &computev1alpha1.EC2Instance{
		TypeMeta:   metav1.TypeMeta{APIVersion: "compute.ec2-operator.dev/v1alpha1", Kind: "EC2Instance"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       computev1alpha1.EC2InstanceSpec{ImageID: "ami-0123456789abcdef0", InstanceType: "t3.micro"},
	}
	mutate(&obj.Spec)
	return obj
}

func deployment(ns, name string, labels map[string]string, env []corev1.EnvVar) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: "example.com/manager:v1", Env: env}}},
			},
		},
	}
}

// readArchive reads every file under dir, by its slash-separated relative path.
func readArchive(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// listFile decodes one of the archive's List files into its items.
func listFile(t *testing.T, archive map[string]string, path string) []map[string]any {
	t.Helper()
	data, ok := archive[path]
	if !ok {
		t.Fatalf("%s is not in the archive", path)
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := yaml.Unmarshal([]byte(data), &list); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return list.Items
}
