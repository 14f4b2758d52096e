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
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// TestKrewArchivesAreReproducibleAndTheManifestNamesThem builds the krew release of
// kubectl-ec2 for this machine's platform twice, as make krew does for every platform:
// the archives are byte for byte the same, hold the plugin and the licence, and the
// manifest has what krew-index requires, with each archive's URL and SHA-256.
func TestKrewArchivesAreReproducibleAndTheManifestNamesThem(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	s := &settings{root: testenv.ProjectRoot(), version: "0.1.0", revision: "0123456789abcdef0123456789abcdef01234567",
		created: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), fips140: defaultFIPS140}
	var archives [2][]byte
	var plugin krewPlugin
	for i := range archives {
		r := krewRelease{out: t.TempDir(), platforms: platform, url: "https://github.com/ec2-operator/ec2-operator/releases/download/{version}"}
		if err := s.buildKrew(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		file := "kubectl-ec2_v0.1.0_" + strings.ReplaceAll(platform, "/", "_") + ".tar.gz"
		var err error
		if archives[i], err = os.ReadFile(filepath.Join(r.out, file)); err != nil {
			t.Fatal(err)
		}
		manifest, err := os.ReadFile(filepath.Join(r.out, "ec2.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.UnmarshalStrict(manifest, &plugin); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(archives[0], archives[1]) {
		t.Error("two builds of the same sources gave different archives")
	}
	checkKrewManifest(t, plugin, platform, archives[0])
	if entries := tarEntries(t, archives[0]); entries["kubectl-ec2"] != 0o755 || entries["LICENSE"] != 0o644 || len(entries) != 2 {
		t.Errorf("archive entries %v, want kubectl-ec2 (0755) and LICENSE (0644)", entries)
	}
}

// checkKrewManifest checks what krew-index's validation requires of a plugin manifest.
func checkKrewManifest(t *testing.T, p krewPlugin, platform string, archive []byte) {
	t.Helper()
	sum := sha256.Sum256(archive)
	goos, goarch, _ := strings.Cut(platform, "/")
	if p.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || p.Kind != "Plugin" || p.Metadata.Name != "ec2" ||
		!regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(p.Spec.Version) || p.Spec.ShortDescription == "" ||
		len(p.Spec.ShortDescription) > 50 || !strings.HasPrefix(p.Spec.Homepage, "https://") || len(p.Spec.Platforms) != 1 {
		t.Fatalf("manifest %+v lacks what krew-index requires", p)
	}
	e := p.Spec.Platforms[0]
	if e.Selector.MatchLabels["os"] != goos || e.Selector.MatchLabels["arch"] != goarch || e.SHA256 != hex.EncodeToString(sum[:]) ||
		e.URI != "https://github.com/ec2-operator/ec2-operator/releases/download/v0.1.0/kubectl-ec2_v0.1.0_"+goos+"_"+goarch+".tar.gz" ||
		e.Bin != "kubectl-ec2" || len(e.Files) != 2 {
		t.Errorf("platform entry %+v does not name the archive built", e)
	}
}

// tarEntries lists a tar.gz's files with their modes.
func tarEntries(t *testing.T, archive []byte) map[string]int64 {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]int64{}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return entries
		}
		if err != nil {
			t.Fatal(err)
		}
		entries[hdr.Name] = hdr.Mode
	}
}
