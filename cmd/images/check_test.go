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
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// layoutsWithDigests writes tiny layouts for every release image and returns their
// digest references.
func layoutsWithDigests(t *testing.T, s *settings) map[string]string {
	t.Helper()
	refs := map[string]string{}
	for _, target := range allImages {
		idx, err := images.Index([]images.Platform{images.LinuxAMD64}, func(images.Platform) (images.Spec, error) {
			return images.Spec{Layers: []images.LayerSpec{{Files: []images.File{{Path: "/" + target, Mode: 0o644}}}}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := images.WriteLayout(s.layoutDir(target), idx, "x"); err != nil {
			t.Fatal(err)
		}
		d, _ := idx.Digest()
		refs[target] = s.ref(imageNames[target]) + "@" + d.String()
	}
	return refs
}

func writeFile(t *testing.T, root, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, p), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckReferencesWantsEveryPinToBeTheBuiltDigest(t *testing.T) {
	s := &settings{root: t.TempDir(), repo: "quay.io/ec2-operator"}
	s.manifests = s.root
	s.out = filepath.Join(s.root, "bin", "images")
	refs := layoutsWithDigests(t, s)
	csv := "containerImage: " + refs["operator"] + "\n    operators.openshift.io/must-gather-image: " + refs["must-gather"] + "\n"
	writeFile(t, s.root, csvPath, csv)
	writeFile(t, s.root, scorecardPath, "image: "+refs["scorecard"]+"\n")
	writeFile(t, s.root, catalogPath, "image: "+refs["bundle"]+"\n")
	if err := s.checkReferences(); err != nil {
		t.Fatalf("current pins refused: %v", err)
	}

	writeFile(t, s.root, csvPath, "containerImage: "+refs["operator"]+"\n")
	if err := s.checkReferences(); err == nil || !strings.Contains(err.Error(), "must-gather") {
		t.Errorf("a CSV naming no must-gather image: %v", err)
	}
	writeFile(t, s.root, csvPath, csv)

	writeFile(t, s.root, catalogPath, "image: quay.io/ec2-operator/ec2-operator-bundle@sha256:"+strings.Repeat("0", 64)+"\n")
	if err := s.checkReferences(); err == nil || !strings.Contains(err.Error(), catalogPath) {
		t.Errorf("a catalog naming another bundle: %v", err)
	}

	writeFile(t, s.root, catalogPath, "image: "+refs["bundle"]+"\nimage: quay.io/ec2-operator/ec2-operator-bundle:v0.1.0\n")
	if err := s.checkReferences(); err == nil || !strings.Contains(err.Error(), "by tag") {
		t.Errorf("a catalog naming the bundle by tag too: %v", err)
	}
}
