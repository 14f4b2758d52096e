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
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// redacted replaces a value that must not leave the cluster; it says how long the
// value was, which is often what support needs (empty or not, over a limit).
func redacted(value string) string {
	return fmt.Sprintf("<redacted by must-gather: %d bytes>", len(value))
}

// secretEnvName matches environment variables that hold credentials by the names AWS
// SDKs, proxies and common tools use: a literal value of one in a Deployment, pod,
// CSV or Subscription is a credential written into the object.
var secretEnvName = regexp.MustCompile(`(?i)(SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|ACCESS_KEY|API_KEY|_KEY$)`)

// sanitize removes from an object what must not be in a support archive:
//   - managedFields (noise) and kubectl's last-applied-configuration, which is a copy
//     of the object as applied, user data included;
//   - an EC2Instance's inline spec.userData (userDataFrom is only a reference, and
//     the Secret or ConfigMap it names is never gathered);
//   - an AWSAccount's externalId, the shared value the role's trust policy checks;
//   - the value of any environment variable whose name says it is a credential, in
//     every container list of the object (pods, Deployments, ReplicaSets, the CSV's
//     install strategy, a Subscription's config);
//   - the user and password of every URL in any string of the object (env values
//     whatever their names, arguments, annotations): a cluster-wide proxy's
//     HTTPS_PROXY=http://user:pass@proxy:3128, which OLM injects into the operator's
//     Deployment, is a credential under a name that does not say so.
func sanitize(obj *unstructured.Unstructured) {
	obj.SetManagedFields(nil)
	if ann := obj.GetAnnotations(); ann != nil {
		if v, ok := ann["kubectl.kubernetes.io/last-applied-configuration"]; ok {
			ann["kubectl.kubernetes.io/last-applied-configuration"] = redacted(v)
			obj.SetAnnotations(ann)
		}
	}
	if obj.GetAPIVersion() == ec2InstancesGVR.GroupVersion().String() {
		switch obj.GetKind() {
		case "EC2Instance":
			redactString(obj.Object, "spec", "userData")
		case "AWSAccount":
			redactString(obj.Object, "spec", "externalId")
		}
	}
	redactEnv(obj.Object)
	obj.Object = redactURLCredentials(obj.Object).(map[string]any)
}

// urlCredentials matches the user information of a URL, scheme://user:password@ or
// scheme://token@, wherever it appears in a string (a list of proxies, a flag's value).
var urlCredentials = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s"']+@`)

// redactURLCredentials returns node with the user information of every URL in every
// string (keys are left as they are) replaced, keeping the scheme and the host, which
// support needs to see which proxy is in the way.
func redactURLCredentials(node any) any {
	switch v := node.(type) {
	case map[string]any:
		for key, child := range v {
			v[key] = redactURLCredentials(child)
		}
		return v
	case []any:
		for i, child := range v {
			v[i] = redactURLCredentials(child)
		}
		return v
	case string:
		return urlCredentials.ReplaceAllStringFunc(v, func(m string) string {
			scheme := urlCredentials.FindStringSubmatch(m)[1]
			return scheme + redacted(m[len(scheme):len(m)-1]) + "@"
		})
	}
	return node
}

// redactString replaces a string field, when it is set.
func redactString(obj map[string]any, path ...string) {
	if v, ok, _ := unstructured.NestedString(obj, path...); ok && v != "" {
		_ = unstructured.SetNestedField(obj, redacted(v), path...)
	}
}

// redactEnv walks the whole object and redacts credential-named env values wherever
// an "env" list appears, so that new places (init containers, ephemeral containers,
// a CSV's deployments) are covered without listing them.
func redactEnv(node any) {
	switch v := node.(type) {
	case map[string]any:
		for key, child := range v {
			if list, ok := child.([]any); ok && key == "env" {
				redactEnvList(list)
				continue
			}
			redactEnv(child)
		}
	case []any:
		for _, child := range v {
			redactEnv(child)
		}
	}
}

func redactEnvList(list []any) {
	for _, item := range list {
		env, ok := item.(map[string]any)
		if !ok {
			continue
		}
		name, _ := env["name"].(string)
		if value, ok := env["value"].(string); ok && value != "" && secretEnvName.MatchString(name) {
			env["value"] = redacted(value)
		}
	}
}
