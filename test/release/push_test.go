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
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/ec2-operator/ec2-operator/internal/images"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// releaseImages are the images make images-push publishes, by layout directory and
// repository name.
var releaseImages = map[string]string{
	"operator": "ec2-operator", "scorecard": "ec2-operator-scorecard", "must-gather": "ec2-operator-must-gather",
	"bundle": "ec2-operator-bundle", "catalog": "ec2-operator-catalog",
}

// imagesTool builds cmd/images, the command behind make images and make images-push.
func imagesTool(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "images")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/images")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building cmd/images: %v\n%s", err, out)
	}
	return bin
}

// pushRelease is a committed work tree whose generated files name the images in
// bin/images by digest, so that a push of those images is allowed; and the revision
// they were built from. It stands for a release commit, so that the test does not
// depend on whether the developer's own tree is committed and current.
type pushRelease struct {
	root, revision, repo string
	digests              map[string]v1.Hash
}

func newPushRelease(t *testing.T) *pushRelease {
	t.Helper()
	r := &pushRelease{root: t.TempDir(), repo: makeVar(t, "IMAGE_REPO"), digests: map[string]v1.Hash{}}
	for dir := range releaseImages {
		d, err := images.LayoutDigest(layoutDir(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		r.digests[dir] = d
	}
	_, cf := hostImage(t, "operator")
	r.revision = cf.Config.Labels["org.opencontainers.image.revision"]
	ref := func(dir string) string { return r.repo + "/" + releaseImages[dir] + "@" + r.digests[dir].String() }
	files := map[string]string{
		"bundle/manifests/ec2-operator.clusterserviceversion.yaml": "containerImage: " + ref("operator") + "\n" +
			"operators.openshift.io/must-gather-image: " + ref("must-gather") + "\n",
		"bundle/tests/scorecard/config.yaml": "image: " + ref("scorecard") + "\n",
		"catalog/ec2-operator/catalog.yaml":  "image: " + ref("bundle") + "\n",
	}
	for p, content := range files {
		writeInto(t, r.root, p, []byte(content))
	}
	git(t, r.root, "init", "-q")
	git(t, r.root, "add", ".")
	git(t, r.root, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "release")
	return r
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// push runs `images push` for the release and returns its exit error and stderr.
func (r *pushRelease) push(t *testing.T, tool, registry string) (error, string) {
	t.Helper()
	cmd := exec.Command(tool, "push", "--root", r.root, "--out", imagesDir(), "--revision", r.revision,
		"--repo", r.repo, "--version", makeVar(t, "VERSION"), "--registry", registry)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), "DOCKER_CONFIG="+t.TempDir()) // no credentials of the machine's user
	err := cmd.Run()
	return err, stderr.String()
}

func TestImagesPushSendsEveryImageByDigestAndPullsBackTheSameBytes(t *testing.T) {
	tool := imagesTool(t)
	srv := httptest.NewServer(quietRegistry())
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	target := u.Host + "/ec2-operator"
	r := newPushRelease(t)

	if err, stderr := r.push(t, tool, target); err != nil {
		t.Fatalf("images push: %v\n%s", err, stderr)
	}
	for dir, repo := range releaseImages {
		local, _, err := images.ReadLayout(layoutDir(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		ref, err := name.NewDigest(target + "/" + repo + "@" + r.digests[dir].String())
		if err != nil {
			t.Fatal(err)
		}
		pulled, err := images.Pull(context.Background(), ref, authn.DefaultKeychain)
		if err != nil {
			t.Fatal(err)
		}
		sameIndex(t, dir, local, pulled)
		// The version tag points at the same index.
		tagged, err := remote.Index(ref.Context().Tag("v" + makeVar(t, "VERSION")))
		if err != nil {
			t.Fatalf("%s: the version tag: %v", dir, err)
		}
		if d, _ := tagged.Digest(); d != r.digests[dir] {
			t.Errorf("%s: tag v%s is %s, want %s", dir, makeVar(t, "VERSION"), d, r.digests[dir])
		}
		checkSBOMsPushed(t, dir, ref, local)
	}
}

// checkSBOMsPushed wants, for each platform's image of a pushed index, the SBOM the
// layout holds for it among the image's referrers in the registry, as an SPDX
// document that names the image's platform. The Go programs' images must list
// the modules the program was built from.
func checkSBOMsPushed(t *testing.T, dir string, ref name.Digest, local v1.ImageIndex) {
	t.Helper()
	sboms, err := images.ReadReferrers(layoutDir(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := local.IndexManifest()
	if len(sboms) != len(m.Manifests) {
		t.Fatalf("%s: %d SBOMs for %d platforms", dir, len(sboms), len(m.Manifests))
	}
	for _, platform := range m.Manifests {
		refs, err := remote.Referrers(ref.Context().Digest(platform.Digest.String()))
		if err != nil {
			t.Fatalf("%s %s: listing referrers: %v", dir, platform.Platform, err)
		}
		rm, _ := refs.IndexManifest()
		if len(rm.Manifests) != 1 {
			t.Fatalf("%s %s: %d referrers, want its SBOM", dir, platform.Platform, len(rm.Manifests))
		}
		sbom, err := remote.Image(ref.Context().Digest(rm.Manifests[0].Digest.String()))
		if err != nil {
			t.Fatal(err)
		}
		mf, _ := sbom.Manifest()
		layers, _ := sbom.Layers()
		if mf.ArtifactType != images.SBOMMediaType || mf.Subject == nil || mf.Subject.Digest != platform.Digest || len(layers) != 1 {
			t.Fatalf("%s %s: the referrer is not its SBOM: %+v", dir, platform.Platform, mf)
		}
		doc := readAll(t, layers[0])
		if !bytes.Contains(doc, []byte(`"spdxVersion": "SPDX-2.3"`)) || !bytes.Contains(doc, []byte(platform.Platform.String())) {
			t.Errorf("%s %s: the SBOM is not this image's SPDX document", dir, platform.Platform)
		}
		if dir == "operator" && !bytes.Contains(doc, []byte("pkg:golang/sigs.k8s.io/controller-runtime@")) {
			t.Errorf("operator %s: the SBOM does not list the manager's modules", platform.Platform)
		}
	}
}

// sameIndex compares the raw bytes of an index, its manifests, configs and layers.
func sameIndex(t *testing.T, name string, want, got v1.ImageIndex) {
	t.Helper()
	wraw, _ := want.RawManifest()
	graw, _ := got.RawManifest()
	if !bytes.Equal(wraw, graw) {
		t.Fatalf("%s: the pulled index differs", name)
	}
	m, _ := want.IndexManifest()
	for _, desc := range m.Manifests {
		wi, err := want.Image(desc.Digest)
		if err != nil {
			t.Fatal(err)
		}
		gi, err := got.Image(desc.Digest)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wm, _ := wi.RawManifest()
		gm, _ := gi.RawManifest()
		wc, _ := wi.RawConfigFile()
		gc, _ := gi.RawConfigFile()
		if !bytes.Equal(wm, gm) || !bytes.Equal(wc, gc) {
			t.Errorf("%s %s: manifest or config differs", name, desc.Platform)
		}
		wl, _ := wi.Layers()
		gl, _ := gi.Layers()
		for i := range wl {
			wb := readAll(t, wl[i])
			gb := readAll(t, gl[i])
			if !bytes.Equal(wb, gb) {
				t.Errorf("%s %s layer %d differs", name, desc.Platform, i)
			}
		}
	}
}

func readAll(t *testing.T, l v1.Layer) []byte {
	t.Helper()
	rc, err := l.Compressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(rc); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// quietRegistry is an in-process registry that keeps its request log out of the test
// output.
func quietRegistry() http.Handler {
	return registry.New(registry.Logger(log.New(io.Discard, "", 0)), registry.WithReferrersSupport(true))
}

// refusing is a registry that refuses uploads to one repository, as a registry does
// for a repository the credentials may not write.
type refusing struct {
	next http.Handler
	repo string
}

func (h refusing) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead && strings.Contains(req.URL.Path, "/"+h.repo+"/") {
		http.Error(w, `{"errors":[{"code":"DENIED","message":"requested access to the resource is denied"}]}`, http.StatusForbidden)
		return
	}
	h.next.ServeHTTP(w, req)
}

func TestImagesPushRefusesBadInputWithOneLineAndLeavesNothingReferringToMissingImages(t *testing.T) {
	tool := imagesTool(t)

	t.Run("no registry", func(t *testing.T) {
		err, stderr := newPushRelease(t).push(t, tool, "")
		oneLineFailure(t, err, stderr, "REGISTRY is not set")
	})

	t.Run("unreachable registry", func(t *testing.T) {
		err, stderr := newPushRelease(t).push(t, tool, simtest.FreeAddr(t)+"/ec2-operator")
		oneLineFailure(t, err, stderr, "pushing")
	})

	t.Run("dirty work tree", func(t *testing.T) {
		r := newPushRelease(t)
		writeInto(t, r.root, "catalog/ec2-operator/catalog.yaml", []byte("edited\n"))
		err, stderr := r.push(t, tool, "127.0.0.1:1/ec2-operator")
		oneLineFailure(t, err, stderr, "uncommitted changes")
	})

	t.Run("images older than the bundle", func(t *testing.T) {
		r := newPushRelease(t)
		writeInto(t, r.root, "bundle/manifests/ec2-operator.clusterserviceversion.yaml",
			[]byte("containerImage: "+r.repo+"/ec2-operator@sha256:"+strings.Repeat("0", 64)+"\n"))
		git(t, r.root, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-am", "newer bundle")
		err, stderr := r.push(t, tool, "127.0.0.1:1/ec2-operator")
		oneLineFailure(t, err, stderr, "out of step")
	})

	t.Run("images from other sources", func(t *testing.T) {
		r := newPushRelease(t)
		r.revision = strings.Repeat("f", 40)
		err, stderr := r.push(t, tool, "127.0.0.1:1/ec2-operator")
		oneLineFailure(t, err, stderr, "run make images")
	})

	t.Run("registry refuses the bundle", func(t *testing.T) {
		srv := httptest.NewServer(refusing{next: quietRegistry(), repo: "ec2-operator-bundle"})
		defer srv.Close()
		u, _ := url.Parse(srv.URL)
		target := u.Host + "/ec2-operator"
		r := newPushRelease(t)
		err, stderr := r.push(t, tool, target)
		oneLineFailure(t, err, stderr, "ec2-operator-bundle")
		// Nothing that names the missing bundle was published: no catalog, and no tag
		// that a user could install from.
		for dir, repo := range releaseImages {
			repository, err := name.NewRepository(target + "/" + repo)
			if err != nil {
				t.Fatal(err)
			}
			tags, err := remote.List(repository)
			if err == nil && len(tags) > 0 {
				t.Errorf("%s was tagged %v although the push failed", repo, tags)
			}
			if dir == "catalog" {
				ref, _ := name.NewDigest(target + "/" + repo + "@" + r.digests[dir].String())
				if _, err := remote.Index(ref); err == nil {
					t.Error("the catalog, which names the bundle, was pushed although the bundle was refused")
				}
			}
		}
	})
}

// oneLineFailure checks a failed command's error output: exactly one line, naming the
// problem.
func oneLineFailure(t *testing.T, err error, stderr, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the command succeeded; stderr %q", stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Errorf("want one line saying %q, got:\n%s", want, stderr)
	}
}
