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
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// managerImage returns the manager container's image of the Deployment among objs.
func managerImage(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		var d appsv1.Deployment
		into(t, o.Object, &d)
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == "manager" {
				return c.Image
			}
		}
	}
	t.Fatal("no Deployment with a manager container")
	return ""
}

// dist/install.yaml is the release's install without OLM: exactly what `make
// build-installer` renders from config/default, with the operator image the bundle
// installs, by digest. A stale file would install another operator than the bundle.
func TestInstallYAMLIsTheKustomizeBuildPinnedLikeTheBundle(t *testing.T) {
	data, err := os.ReadFile(path("dist/install.yaml"))
	if err != nil {
		t.Fatalf("reading dist/install.yaml (run make build-installer): %v", err)
	}
	installed := decodeAll(t, data)
	if want := kustomize(t, "config/default"); !reflect.DeepEqual(installed, want) {
		t.Errorf("dist/install.yaml is not what make build-installer writes now (%d objects, config/default gives %d): run make build-installer", len(installed), len(want))
	}
	image := managerImage(t, installed)
	if csvImage := loadCSV(t).Annotations["containerImage"]; image != csvImage || !strings.Contains(image, "@sha256:") {
		t.Errorf("dist/install.yaml installs %s; want the bundle's %s, by digest", image, csvImage)
	}
}

// make deploy and build-installer never edit a tracked file, and keep the digest pin
// unless IMG is given: then the overlay in bin/ carries it, and a name without a tag
// (a mirror) keeps the pinned digest.
func TestMakeDeployOverridesTheImageOnlyInItsOverlay(t *testing.T) {
	pinFile := path("config/manager/kustomization.yaml")
	before, err := os.ReadFile(pinFile)
	if err != nil {
		t.Fatal(err)
	}
	pinned := managerImage(t, kustomize(t, "config/default"))
	_, digest, _ := strings.Cut(pinned, "@")
	for _, tc := range []struct{ img, want string }{
		{"", pinned},
		{"registry.example/team/ec2-operator:dev", "registry.example/team/ec2-operator:dev"},
		{"mirror.example/ec2-operator", "mirror.example/ec2-operator@" + digest},
	} {
		overlay := filepath.Join(t.TempDir(), "overlay")
		args := []string{"-s", "-C", root, "deploy-overlay", "DEPLOY_OVERLAY=" + overlay, "KUSTOMIZE=" + kustomizeBin(t)}
		if tc.img != "" {
			args = append(args, "IMG="+tc.img)
		}
		cmd := exec.Command("make", args...)
		// An IMG in the test's own environment would count as given.
		cmd.Env = withoutVar(os.Environ(), "IMG")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make %v: %v\n%s", args, err, out)
		}
		if got := managerImage(t, kustomize(t, overlay)); got != tc.want {
			t.Errorf("IMG=%q: the overlay installs %s, want %s", tc.img, got, tc.want)
		}
	}
	if after, _ := os.ReadFile(pinFile); !bytes.Equal(before, after) {
		t.Errorf("make deploy-overlay edited %s", pinFile)
	}
}

func withoutVar(environ []string, name string) []string {
	var out []string
	for _, kv := range environ {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
