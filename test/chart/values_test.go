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
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const (
	deployment     = "ec2-operator-controller-manager"
	serviceAccount = "ec2-operator-controller-manager"
	defaultNS      = "ec2-operator-system"
	allNSBinding   = "ec2-operator-manager-all-namespaces-rolebinding"
	allNSRole      = "ec2-operator-manager-all-namespaces-role"
	digest         = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

// rendered is one `helm template` output, with accessors for what the cases check.
type rendered struct {
	t    *testing.T
	objs []*unstructured.Unstructured
}

func (r rendered) find(kind, ns, name string) *unstructured.Unstructured {
	for _, o := range r.objs {
		if o.GetKind() == kind && o.GetNamespace() == ns && o.GetName() == name {
			return o
		}
	}
	return nil
}

func (r rendered) kinds(kind string) []*unstructured.Unstructured {
	var found []*unstructured.Unstructured
	for _, o := range r.objs {
		if o.GetKind() == kind {
			found = append(found, o)
		}
	}
	return found
}

// container returns the manager container of the Deployment in ns.
func (r rendered) container(ns string) map[string]any {
	r.t.Helper()
	d := r.find("Deployment", ns, deployment)
	if d == nil {
		r.t.Fatalf("no Deployment %s/%s", ns, deployment)
	}
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	return containers[0].(map[string]any)
}

func (r rendered) podSpec(ns string) map[string]any {
	spec, _, _ := unstructured.NestedMap(r.find("Deployment", ns, deployment).Object, "spec", "template", "spec")
	return spec
}

// env returns the manager's variables by name.
func (r rendered) env(ns string) map[string]map[string]any {
	vars := map[string]map[string]any{}
	list, _ := r.container(ns)["env"].([]any)
	for _, v := range list {
		m := v.(map[string]any)
		vars[m["name"].(string)] = m
	}
	return vars
}

func (r rendered) wantEnv(ns, name, value string) {
	r.t.Helper()
	v, ok := r.env(ns)[name]
	if !ok || v["value"] != value {
		r.t.Errorf("%s = %v, want %q", name, v, value)
	}
}

func (r rendered) want(cond bool, format string, args ...any) {
	r.t.Helper()
	if !cond {
		r.t.Errorf(format, args...)
	}
}

// valueCases are value sets and what they must render (check) or refuse (err).
var valueCases = []struct {
	name  string
	args  []string
	err   string
	check func(r rendered)
}{
	{name: "namespace", args: []string{"--set", "namespace=team-ops"}, check: func(r rendered) {
		r.want(r.find("Namespace", "", "team-ops") != nil, "no Namespace team-ops")
		data, _ := json.Marshal(r.objs)
		r.want(!strings.Contains(string(data), defaultNS), "%s is still named", defaultNS)
		// A RoleBinding's subject without a namespace is in the binding's.
		for _, b := range append(r.kinds("ClusterRoleBinding"), r.kinds("RoleBinding")...) {
			subjects, _, _ := unstructured.NestedSlice(b.Object, "subjects")
			ns, set := subjects[0].(map[string]any)["namespace"]
			r.want(ns == "team-ops" || (!set && b.GetNamespace() == "team-ops"), "%s binds %v", key(b), subjects)
		}
	}},
	{name: "the release's namespace", args: []string{"--set", "namespace="}, check: func(r rendered) {
		r.want(r.find("Deployment", "some-release-namespace", deployment) != nil, "the Deployment is not in the release's namespace")
	}},
	{name: "no Namespace", args: []string{"--set", "createNamespace=false"}, check: func(r rendered) {
		r.want(len(r.kinds("Namespace")) == 0, "a Namespace is rendered")
	}},
	{name: "image digest", args: []string{"--set", "image.repository=registry.example/ec2-operator", "--set", "image.digest=" + digest}, check: func(r rendered) {
		r.want(r.container(defaultNS)["image"] == "registry.example/ec2-operator@"+digest, "image %v", r.container(defaultNS)["image"])
	}},
	{name: "image tag", args: []string{"--set", "image.digest=", "--set", "image.tag=v9.9.9", "--set", "image.pullPolicy=Always"}, check: func(r rendered) {
		image, _ := r.container(defaultNS)["image"].(string)
		r.want(strings.HasSuffix(image, "/ec2-operator:v9.9.9"), "image %v", image)
		r.want(r.container(defaultNS)["imagePullPolicy"] == "Always", "imagePullPolicy %v", r.container(defaultNS)["imagePullPolicy"])
	}},
	{name: "no image", args: []string{"--set", "image.digest=", "--set", "image.tag="}, err: "image.digest or image.tag is required"},
	{name: "a digest that is not one", args: []string{"--set", "image.digest=latest"}, err: "image.digest"},
	{name: "IRSA", args: []string{"--set", "credentials.mode=irsa", "--set", "credentials.irsa.roleARN=arn:aws:iam::123456789012:role/ec2-operator",
		"--set", "serviceAccount.annotations.example\\.com/team=platform"}, check: func(r rendered) {
		a := r.find("ServiceAccount", defaultNS, serviceAccount).GetAnnotations()
		r.want(a["eks.amazonaws.com/role-arn"] == "arn:aws:iam::123456789012:role/ec2-operator" && a["example.com/team"] == "platform", "annotations %v", a)
		_, static := r.env(defaultNS)["AWS_ACCESS_KEY_ID"]
		r.want(!static, "IRSA sets access keys")
	}},
	{name: "IRSA without a role", args: []string{"--set", "credentials.mode=irsa"}, err: "credentials.irsa.roleARN is required"},
	{name: "IRSA with a user's ARN", args: []string{"--set", "credentials.mode=irsa", "--set", "credentials.irsa.roleARN=arn:aws:iam::123456789012:user/me"}, err: "roleARN"},
	{name: "Pod Identity", args: []string{"--set", "credentials.mode=podIdentity"}, check: func(r rendered) {
		r.want(len(r.find("ServiceAccount", defaultNS, serviceAccount).GetAnnotations()) == 0, "Pod Identity annotates the service account")
	}},
	{name: "Secret", args: []string{"--set", "credentials.mode=secret", "--set", "credentials.secret.name=aws-keys"}, check: func(r rendered) {
		env := r.env(defaultNS)
		for name, k := range map[string]string{"AWS_ACCESS_KEY_ID": "aws_access_key_id", "AWS_SECRET_ACCESS_KEY": "aws_secret_access_key"} {
			ref, _, _ := unstructured.NestedStringMap(env[name], "valueFrom", "secretKeyRef")
			r.want(ref["name"] == "aws-keys" && ref["key"] == k, "%s from %v", name, ref)
		}
	}},
	{name: "Secret without a name", args: []string{"--set", "credentials.mode=secret"}, err: "credentials.secret.name is required"},
	{name: "unknown credentials mode", args: []string{"--set", "credentials.mode=keys"}, err: "credentials.mode"},
	{name: "watch namespaces", args: []string{"--set-json", `watchNamespaces=["team-a","team-b"]`}, check: func(r rendered) {
		r.wantEnv(defaultNS, "WATCH_NAMESPACE", "team-a,team-b")
		r.want(r.find("ClusterRoleBinding", "", allNSBinding) == nil, "the manager's EC2Instance rules are still bound cluster-wide")
		for _, ns := range []string{"team-a", "team-b"} {
			b := r.find("RoleBinding", ns, allNSBinding)
			if b == nil {
				r.t.Errorf("no RoleBinding in %s", ns)
				continue
			}
			ref, _, _ := unstructured.NestedStringMap(b.Object, "roleRef")
			r.want(ref["kind"] == "ClusterRole" && ref["name"] == allNSRole, "%s binds %v", ns, ref)
		}
	}},
	{name: "every namespace", check: func(r rendered) {
		_, literal := r.env(defaultNS)["WATCH_NAMESPACE"]["value"]
		r.want(!literal && r.find("ClusterRoleBinding", "", allNSBinding) != nil, "the default does not watch every namespace")
	}},
	{name: "a namespace that is not a name", args: []string{"--set-json", `watchNamespaces=["Team_A"]`}, err: "watchNamespaces"},
	// Helm merges the values given with the defaults: the CPU limit not given stays.
	{name: "resources", args: []string{"--set-json", `resources={"requests":{"cpu":"50m","memory":"128Mi"},"limits":{"memory":"1Gi"}}`}, check: func(r rendered) {
		want := map[string]any{"requests": map[string]any{"cpu": "50m", "memory": "128Mi"}, "limits": map[string]any{"cpu": "500m", "memory": "1Gi"}}
		r.want(reflect.DeepEqual(r.container(defaultNS)["resources"], want), "resources %v", r.container(defaultNS)["resources"])
	}},
	{name: "AWS settings", args: []string{"--set", "aws.region=eu-west-1", "--set-json", `aws.extraRegions=["eu-central-1","us-west-2"]`,
		"--set", "aws.endpoints.ec2=https://ec2.vpce.example", "--set", "aws.endpoints.sts=https://sts.vpce.example",
		"--set", "aws.endpoints.sqs=https://sqs.vpce.example", "--set", "aws.eventsQueueURL=https://sqs.eu-west-1.amazonaws.com/123456789012/ec2-events",
		"--set", "aws.apiLimits=learn", "--set-json", "aws.rateLimit=2.5", "--set", "aws.maxAttempts=7", "--set", "clusterID=prod-eu"}, check: func(r rendered) {
		for name, value := range map[string]string{"AWS_REGION": "eu-west-1", "EXTRA_REGIONS": "eu-central-1,us-west-2",
			"AWS_ENDPOINT_URL_EC2": "https://ec2.vpce.example", "AWS_ENDPOINT_URL_STS": "https://sts.vpce.example",
			"AWS_ENDPOINT_URL_SQS": "https://sqs.vpce.example", "EVENTS_QUEUE_URL": "https://sqs.eu-west-1.amazonaws.com/123456789012/ec2-events",
			"AWS_API_LIMITS": "learn", "AWS_RATE_LIMIT": "2.5", "AWS_MAX_ATTEMPTS": "7", "CLUSTER_ID": "prod-eu"} {
			r.wantEnv(defaultNS, name, value)
		}
	}},
	{name: "a cluster ID too long for the tag", args: []string{"--set", "clusterID=" + strings.Repeat("x", 37)}, err: "clusterID"},
	{name: "extra flags and variables", args: []string{"--set-json", `extraArgs=["--max-concurrent-reconciles=4"]`,
		"--set-json", `extraEnv=[{"name":"RESTORE_POLICY","value":"recreate"}]`}, check: func(r rendered) {
		args, _ := r.container(defaultNS)["args"].([]any)
		r.want(args[len(args)-1] == "--max-concurrent-reconciles=4", "args %v", args)
		r.wantEnv(defaultNS, "RESTORE_POLICY", "recreate")
	}},
	{name: "scheduling", args: []string{"--set", "replicas=2", "--set", "priorityClassName=system-cluster-critical",
		"--set", "nodeSelector.kubernetes\\.io/os=linux", "--set-json", `tolerations=[{"key":"infra","operator":"Exists"}]`,
		"--set-json", `imagePullSecrets=[{"name":"pull"}]`, "--set-string", "podAnnotations.example\\.com/scrape=false",
		"--set-json", `affinity={"nodeAffinity":{}}`}, check: func(r rendered) {
		spec := r.podSpec(defaultNS)
		// Decoded from JSON, numbers are float64.
		replicas, _, _ := unstructured.NestedFieldNoCopy(r.find("Deployment", defaultNS, deployment).Object, "spec", "replicas")
		annotations, _, _ := unstructured.NestedStringMap(r.find("Deployment", defaultNS, deployment).Object, "spec", "template", "metadata", "annotations")
		r.want(replicas == float64(2) && spec["priorityClassName"] == "system-cluster-critical", "replicas %v, priority %v", replicas, spec["priorityClassName"])
		r.want(spec["nodeSelector"] != nil && spec["tolerations"] != nil && spec["imagePullSecrets"] != nil && spec["affinity"] != nil, "pod spec %v", spec)
		r.want(annotations["example.com/scrape"] == "false" && annotations["kubectl.kubernetes.io/default-container"] == "manager", "annotations %v", annotations)
	}},
	{name: "no CRDs", args: []string{"--set", "crds.install=false"}, check: func(r rendered) {
		r.want(len(r.kinds("CustomResourceDefinition")) == 0, "CRDs rendered")
	}},
	{name: "CRDs deleted on uninstall", args: []string{"--set", "crds.keep=false"}, check: func(r rendered) {
		for _, crd := range r.kinds("CustomResourceDefinition") {
			_, kept := crd.GetAnnotations()["helm.sh/resource-policy"]
			r.want(!kept, "%s is kept", crd.GetName())
		}
	}},
	{name: "a misspelt value", args: []string{"--set", "watchNamespace=team-a"}, err: "watchNamespace"},
}

// TestValues renders the chart with each value set and checks what it must render, or
// that helm refuses it with a message that names the value.
func TestValues(t *testing.T) {
	for _, tc := range valueCases {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := helmTemplate(t, tc.args...)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one that names %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(rendered{t: t, objs: objs})
		})
	}
}

// TestEnvironmentIsTheManagers fails when the chart sets a variable that neither the
// manager nor the AWS SDK's configuration loader reads: each must be a string
// constant in their source.
func TestEnvironmentIsTheManagers(t *testing.T) {
	helpers, err := os.ReadFile(filepath.Join(root, chartDir, "templates", "_helpers.tpl"))
	if err != nil {
		t.Fatal(err)
	}
	sdkConfig, err := run("go", "list", "-m", "-f", "{{.Dir}}", "github.com/aws/aws-sdk-go-v2/config")
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{filepath.Join(root, "cmd"), filepath.Join(root, "internal/credentials"), filepath.Join(root, "internal/clusterid"),
		strings.TrimSpace(string(sdkConfig))}
	var source strings.Builder
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				data, _ := os.ReadFile(f)
				source.Write(data)
			}
		}
	}
	names := regexp.MustCompile(`- name: ([A-Z0-9_]+)`).FindAllStringSubmatch(string(helpers), -1)
	if len(names) < 10 {
		t.Fatalf("found %d variables in _helpers.tpl", len(names))
	}
	for _, m := range names {
		if !strings.Contains(source.String(), `"`+m[1]+`"`) {
			t.Errorf("the chart sets %s, which neither the manager nor the AWS SDK reads", m[1])
		}
	}
}
