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

package images

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// goProgramSpec is testSpec with a real Go program in it (testdata/sbomprog, built
// now: a test binary records no modules), so that the SBOM has modules to list.
func goProgramSpec(t *testing.T) func(Platform) (Spec, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "sbomprog")
	build := exec.Command("go", "build", "-o", out, "./testdata/sbomprog")
	if msg, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building testdata/sbomprog: %v\n%s", err, msg)
	}
	program, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return func(p Platform) (Spec, error) {
		spec, _ := testSpec(p)
		spec.Layers[1].Files = []File{{Path: "/app", Mode: 0o755, Data: program}}
		return spec, nil
	}
}

func TestTheSBOMListsTheProgramsModulesAndEveryFile(t *testing.T) {
	spec, _ := goProgramSpec(t)(LinuxAMD64)
	var files []File
	for _, l := range spec.Layers {
		files = append(files, l.Files...)
	}
	info := SBOMInfo{Image: "example.com/test:v1", Version: "v1", Platform: LinuxAMD64, Created: epoch}
	doc, err := SBOM(info, files)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := SBOM(info, files)
	if !bytes.Equal(doc, again) {
		t.Error("the same image gave two different SBOMs")
	}
	var parsed spdxDocument
	if err := json.Unmarshal(doc, &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed.SPDXVersion != "SPDX-2.3" || parsed.DataLicense != "CC0-1.0" || parsed.CreationInfo.Created != epoch.UTC().Format(time.RFC3339) ||
		!strings.HasPrefix(parsed.DocumentNamespace, "https://ec2-operator.dev/spdx/") {
		t.Errorf("document header: %+v", parsed)
	}
	text := string(doc)
	for _, want := range []string{
		`"relationshipType": "DESCRIBES"`,
		`"pkg:golang/github.com/google/go-containerregistry@`, // a module this program is built from
		`"fileName": "./app"`, `"fileName": "./etc/passwd"`,
		`"primaryPackagePurpose": "CONTAINER"`, `"primaryPackagePurpose": "APPLICATION"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the SBOM lacks %s", want)
		}
	}
	ids := map[string]bool{}
	for _, p := range parsed.Packages {
		if ids[p.SPDXID] {
			t.Errorf("SPDX identifier %s used twice", p.SPDXID)
		}
		ids[p.SPDXID] = true
	}
}

// TestEachPlatformsSBOMIsAReferrerThatTravelsWithTheImage writes the layout, reads
// the SBOMs back, pushes them to a registry with the referrers API and finds them
// there as the referrers of each platform's image.
func TestEachPlatformsSBOMIsAReferrerThatTravelsWithTheImage(t *testing.T) {
	idx, sboms, err := IndexWithSBOMs([]Platform{LinuxAMD64, LinuxARM64}, goProgramSpec(t), "example.com/test:v1", "v1")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "img")
	if err := WriteLayout(dir, idx, "example.com/test:v1", sboms...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadLayout(dir); err != nil {
		t.Fatalf("the layout with SBOMs no longer reads as one image: %v", err)
	}
	read, err := ReadReferrers(dir)
	if err != nil || len(read) != 2 {
		t.Fatalf("read %d SBOMs back (%v), want 2", len(read), err)
	}
	srv := httptest.NewServer(registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	repo := u.Host + "/test/app"
	ctx := context.Background()
	if _, err := Push(ctx, idx, repo, authn.DefaultKeychain); err != nil {
		t.Fatal(err)
	}
	if err := PushReferrers(ctx, read, repo, authn.DefaultKeychain); err != nil {
		t.Fatal(err)
	}
	m, _ := idx.IndexManifest()
	for i, platform := range m.Manifests {
		subject, _ := name.NewDigest(repo + "@" + platform.Digest.String())
		refs, err := remote.Referrers(subject)
		if err != nil {
			t.Fatal(err)
		}
		rm, _ := refs.IndexManifest()
		// (go-containerregistry's registry reports the config's media type as the
		// artifactType, where OCI 1.1 says the manifest's; the manifest is read below.)
		if len(rm.Manifests) != 1 {
			t.Fatalf("referrers of the %s image: %+v, want its SBOM", platform.Platform, rm.Manifests)
		}
		want, _ := read[i].Digest()
		if rm.Manifests[0].Digest != want {
			t.Errorf("the %s image's referrer is %s, want its SBOM %s", platform.Platform, rm.Manifests[0].Digest, want)
		}
		sbom, err := remote.Image(subject.Context().Digest(want.String()))
		if err != nil {
			t.Fatal(err)
		}
		if mf, _ := sbom.Manifest(); mf.ArtifactType != SBOMMediaType || mf.Subject == nil || mf.Subject.Digest != platform.Digest {
			t.Errorf("the SBOM's manifest: artifactType %q, subject %+v", mf.ArtifactType, mf.Subject)
		}
		layers, _ := sbom.Layers()
		body, _ := layers[0].Compressed()
		doc, _ := io.ReadAll(body)
		if !strings.Contains(string(doc), `"SPDX-2.3"`) || !strings.Contains(string(doc), platform.Platform.String()) {
			t.Errorf("the pulled SBOM of %s is not its SPDX document", platform.Platform)
		}
	}
}
