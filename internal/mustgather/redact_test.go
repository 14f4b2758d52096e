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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestCredentialsInURLsAreRedactedInEveryString checks the URL rule on the places the
// issue names (an env value under any name, an argument, an annotation) and that the
// scheme and host stay readable, while URLs without credentials are left alone.
func TestCredentialsInURLsAreRedactedInEveryString(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "m", "annotations": map[string]any{"proxy": "socks5://alice:s3cret@10.0.0.1:1080"}},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
			"name": "manager",
			"args": []any{"--upstream=https://bob:hunter2@registry.example/v2", "--plain=https://registry.example/v2"},
			"env":  []any{map[string]any{"name": "HTTPS_PROXY", "value": "http://carol:pa55@proxy:3128"}},
		}}}}},
	}}
	sanitize(obj)
	spec := obj.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	container := spec["containers"].([]any)[0].(map[string]any)
	got := []string{
		obj.GetAnnotations()["proxy"],
		container["args"].([]any)[0].(string),
		container["args"].([]any)[1].(string),
		container["env"].([]any)[0].(map[string]any)["value"].(string),
	}
	for _, secret := range []string{"alice", "s3cret", "bob", "hunter2", "carol", "pa55"} {
		for _, s := range got {
			if strings.Contains(s, secret) {
				t.Errorf("%q still holds %q", s, secret)
			}
		}
	}
	for i, want := range []string{"socks5://<redacted by must-gather: 12 bytes>@10.0.0.1:1080", "--upstream=https://<redacted by must-gather: 11 bytes>@registry.example/v2",
		"--plain=https://registry.example/v2", "http://<redacted by must-gather: 10 bytes>@proxy:3128"} {
		if got[i] != want {
			t.Errorf("got %q, want %q", got[i], want)
		}
	}
}
