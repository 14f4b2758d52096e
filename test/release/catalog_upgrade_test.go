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

package release

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// TestTheNextReleaseReplacesThisOneInTheCatalog renders the catalog the way `make
// catalog` does (opm's basic template, cmd/images render-catalog) for this release
// plus a synthetic next one, 0.2.0, whose bundle image is built like this one's and
// whose channel entry replaces this one with a skipRange: opm validates the catalog,
// the channel head is the new release, and this release's bundle is carried over as
// the committed catalog has it.
func TestTheNextReleaseReplacesThisOneInTheCatalog(t *testing.T) {
	tool := imagesTool(t)
	opm := filepath.Join(root, "bin", "opm")
	if _, err := os.Stat(opm); err != nil {
		t.Fatalf("opm not found at %s: run `make opm` (make test-release does): %v", opm, err)
	}
	const current, next = "ec2-operator.v0.1.0", "ec2-operator.v0.2.0"
	if v := makeVar(t, "VERSION"); "ec2-operator.v"+v != current {
		t.Fatalf("this test assumes VERSION 0.1.0 (got %s); update current and next", v)
	}

	// The next release's bundle: this bundle with the CSV's name and version bumped.
	work := t.TempDir()
	copyDir(t, filepath.Join(manifestsRoot, "bundle"), filepath.Join(work, "bundle"))
	dockerfile, err := os.ReadFile(filepath.Join(manifestsRoot, "bundle.Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "bundle.Dockerfile"), dockerfile)
	csvPath := filepath.Join(work, "bundle", "manifests", "ec2-operator.clusterserviceversion.yaml")
	csv, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	bumped := strings.Replace(string(csv), "\n  name: "+current+"\n", "\n  name: "+next+"\n", 1)
	bumped = strings.Replace(bumped, "\n  version: 0.1.0\n", "\n  version: 0.2.0\n", 1)
	if bumped == string(csv) || strings.Count(bumped, next) != 1 {
		t.Fatal("could not bump the CSV's name and version")
	}
	writeFile(t, csvPath, []byte(bumped))
	run(t, work, tool, "build", "--root", work, "--out", filepath.Join(work, "images"), "--bin", filepath.Join(root, "bin"),
		"--version", "0.2.0", "--revision", "synthetic-next-release", "--platforms", "linux/amd64", "bundle")
	nextDigest, err := images.LayoutDigest(filepath.Join(work, "images", "bundle"))
	if err != nil {
		t.Fatal(err)
	}

	// The release procedure: a channel entry that replaces this release, and the
	// bundle at the end of the template.
	tmpl, err := os.ReadFile(filepath.Join(manifestsRoot, "config", "catalog", "ec2-operator.template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	entry := "  - name: " + current + "\n"
	if !bytes.Contains(tmpl, []byte(entry)) {
		t.Fatalf("the template's channel has no entry %q", entry)
	}
	tmpl = bytes.Replace(tmpl, []byte(entry), []byte(entry+"  - name: "+next+"\n    replaces: "+current+"\n    skipRange: '>=0.1.0 <0.2.0'\n"), 1)
	tmpl = append(tmpl, []byte("- schema: olm.bundle\n  image: quay.io/ec2-operator/ec2-operator-bundle@"+nextDigest.String()+"\n")...)
	template := filepath.Join(work, "template.yaml")
	writeFile(t, template, tmpl)

	catalogDir := filepath.Join(work, "catalog")
	catalogFile := filepath.Join(catalogDir, "ec2-operator", "catalog.yaml")
	run(t, root, tool, "render-catalog", "--opm-bin", opm, "--template", template, "--catalog", catalogFile,
		filepath.Join(imagesDir(), "bundle"), filepath.Join(work, "images", "bundle"))
	run(t, root, opm, "validate", catalogDir)

	blobs := catalogBlobs(t, catalogFile)
	var channel map[string]any
	bundles := map[string]map[string]any{}
	for _, b := range blobs {
		switch b["schema"] {
		case "olm.channel":
			channel = b
		case "olm.bundle":
			bundles[b["name"].(string)] = b
		}
	}
	if channel == nil || len(bundles) != 2 {
		t.Fatalf("want one channel and two bundles, got channel %v and bundles %v", channel != nil, len(bundles))
	}
	replaced := map[string]bool{}
	var names []string
	for _, e := range channel["entries"].([]any) {
		m := e.(map[string]any)
		names = append(names, m["name"].(string))
		if r, ok := m["replaces"].(string); ok {
			replaced[r] = true
		}
	}
	var heads []string
	for _, n := range names {
		if !replaced[n] {
			heads = append(heads, n)
		}
	}
	if len(heads) != 1 || heads[0] != next {
		t.Errorf("channel heads %v, want only %s (entries %v)", heads, next, names)
	}
	if img := bundles[next]["image"]; img != "quay.io/ec2-operator/ec2-operator-bundle@"+nextDigest.String() {
		t.Errorf("the next bundle is named %v", img)
	}
	// This release's bundle is what the committed catalog holds.
	for _, b := range catalogBlobs(t, filepath.Join(manifestsRoot, "catalog", "ec2-operator", "catalog.yaml")) {
		if b["schema"] == "olm.bundle" && b["name"] == current {
			if got, want := mustYAML(t, bundles[current]), mustYAML(t, b); got != want {
				t.Errorf("the catalog with the next release renders this release's bundle differently from the committed catalog")
			}
		}
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
}

// catalogBlobs reads a file-based catalog's YAML documents.
func catalogBlobs(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, doc := range strings.Split(string(data), "\n---\n") {
		doc = strings.TrimPrefix(strings.TrimSpace(doc), "---")
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func mustYAML(t *testing.T, v any) string {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
