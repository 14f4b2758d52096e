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
	"context"
	"crypto/x509"
	"encoding/pem"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

func testSpec(p Platform) (Spec, error) {
	return Spec{
		Created: epoch,
		Layers: []LayerSpec{
			{CreatedBy: "base", Files: []File{{Path: "/tmp", Dir: true, Mode: 0o1777}, {Path: "/etc/passwd", Mode: 0o644, Data: []byte("nonroot:x:65532:65532::/:/sbin/nologin\n")}}},
			{CreatedBy: "app", Files: []File{{Path: "/app", Mode: 0o755, Data: []byte("binary for " + p.String())}}},
		},
		Entrypoint: []string{"/app"},
		User:       "65532:65532",
		Labels:     map[string]string{"name": "test"},
	}, nil
}

func TestIndexHoldsOneImagePerPlatformWithItsConfig(t *testing.T) {
	idx, err := Index([]Platform{LinuxAMD64, LinuxARM64}, testSpec)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Platform{LinuxAMD64, LinuxARM64} {
		img, err := ImageFor(idx, p)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.Architecture != p.Architecture || cf.Variant != p.Variant || cf.OS != "linux" {
			t.Errorf("%s: config says %s/%s/%s", p, cf.OS, cf.Architecture, cf.Variant)
		}
		if cf.Config.User != "65532:65532" || cf.Config.Entrypoint[0] != "/app" || cf.Config.Labels["name"] != "test" {
			t.Errorf("%s: config %+v", p, cf.Config)
		}
		if !cf.Created.Time.Equal(epoch) || len(cf.History) != 2 || !cf.History[1].Created.Time.Equal(epoch) {
			t.Errorf("%s: created %s, history %+v", p, cf.Created, cf.History)
		}
		m, err := img.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		if m.MediaType != "application/vnd.oci.image.manifest.v1+json" || m.Config.MediaType != "application/vnd.oci.image.config.v1+json" {
			t.Errorf("%s: media types %s, %s", p, m.MediaType, m.Config.MediaType)
		}
	}
}

func TestTheSameSpecGivesTheSameDigests(t *testing.T) {
	a, err := Index([]Platform{LinuxAMD64, LinuxARM64}, testSpec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Index([]Platform{LinuxAMD64, LinuxARM64}, testSpec)
	if err != nil {
		t.Fatal(err)
	}
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da != db {
		t.Errorf("two builds of one spec: %s and %s", da, db)
	}
}

func TestLayoutRoundTripKeepsTheDigestAndTheReferenceName(t *testing.T) {
	idx, err := Index([]Platform{LinuxAMD64}, testSpec)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "img")
	if err := WriteLayout(dir, idx, "example.com/test:v1"); err != nil {
		t.Fatal(err)
	}
	// Writing again replaces the layout instead of adding a second entry.
	if err := WriteLayout(dir, idx, "example.com/test:v1"); err != nil {
		t.Fatal(err)
	}
	got, ref, err := ReadLayout(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := idx.Digest()
	if d, _ := got.Digest(); d != want || ref != "example.com/test:v1" {
		t.Errorf("read back %s %q, want %s example.com/test:v1", d, ref, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.json")); err != nil {
		t.Error(err)
	}
}

func TestPushedImagesPullBackByDigestWithTheSameBytes(t *testing.T) {
	srv := httptest.NewServer(registry.New())
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	idx, err := Index([]Platform{LinuxAMD64, LinuxARM64}, testSpec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ref, err := Push(ctx, idx, u.Host+"/test/app", authn.DefaultKeychain)
	if err != nil {
		t.Fatal(err)
	}
	if err := Tag(ctx, ref, "v1", idx, authn.DefaultKeychain); err != nil {
		t.Fatal(err)
	}
	pulled, err := Pull(ctx, ref, authn.DefaultKeychain)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := idx.RawManifest()
	got, _ := pulled.RawManifest()
	if string(got) != string(want) {
		t.Error("the pulled index differs from the pushed one")
	}
	sameLayers(t, idx, pulled)
}

// sameLayers compares every layer of every image in two indexes byte for byte.
func sameLayers(t *testing.T, want, got v1.ImageIndex) {
	t.Helper()
	for _, p := range []Platform{LinuxAMD64, LinuxARM64} {
		wi, err := ImageFor(want, p)
		if err != nil {
			t.Fatal(err)
		}
		gi, err := ImageFor(got, p)
		if err != nil {
			t.Fatal(err)
		}
		wl, _ := wi.Layers()
		gl, _ := gi.Layers()
		if len(wl) != len(gl) {
			t.Fatalf("%s: %d layers, want %d", p, len(gl), len(wl))
		}
		for i := range wl {
			wd, _ := wl[i].Digest()
			gd, _ := gl[i].Digest()
			if wd != gd {
				t.Errorf("%s layer %d: %s, want %s", p, i, gd, wd)
			}
		}
	}
}

func TestCACertificatesAreMozillasRootsAsPEM(t *testing.T) {
	data := CACertificates()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		t.Fatal("the bundle holds no certificate")
	}
	n, amazon := 0, false
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		n++
		amazon = amazon || strings.Contains(cert.Subject.CommonName, "Amazon Root CA 1")
	}
	// The AWS SDK reaches EC2 endpoints through certificates under Amazon's roots.
	if n < 100 || !amazon {
		t.Errorf("%d certificates, Amazon Root CA 1 present: %v", n, amazon)
	}
}

func TestUnpackWritesTheFilesystemWithTheImagesModes(t *testing.T) {
	idx, err := Index([]Platform{LinuxAMD64}, testSpec)
	if err != nil {
		t.Fatal(err)
	}
	img, err := ImageFor(idx, LinuxAMD64)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Unpack(img, dir); err != nil {
		t.Fatal(err)
	}
	for path, mode := range map[string]os.FileMode{"app": 0o755, "etc/passwd": 0o644, "tmp": 0o777 | os.ModeSticky | os.ModeDir} {
		fi, err := os.Stat(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != mode {
			t.Errorf("%s: mode %s, want %s", path, fi.Mode(), mode)
		}
	}
}

func TestADirectoryAnUpperLayerImpliesKeepsTheModeOfTheLayerBelow(t *testing.T) {
	img, err := Build(Spec{Created: epoch, Layers: []LayerSpec{
		{Files: []File{{Path: "/tmp", Dir: true, Mode: 0o1777}}},
		{Files: []File{{Path: "/tmp/cache/index.json", Mode: 0o644, Data: []byte("{}")}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Unpack(img, dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "tmp"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != os.ModeDir|os.ModeSticky|0o777 {
		t.Errorf("/tmp is %s after a layer added /tmp/cache, want the base layer's drwxrwxrwt", fi.Mode())
	}
}

func TestUnpackMakesSymbolicLinksThatResolveInsideTheImage(t *testing.T) {
	img, err := Build(Spec{Created: epoch, Layers: []LayerSpec{{Files: []File{
		{Path: "/usr/bin/tool", Mode: 0o755, Data: []byte("#!")},
		{Path: "/bin/sh", Link: "/usr/bin/tool"},
		{Path: "/usr/bin/other", Link: "tool"},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Unpack(img, dir); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"bin/sh": "/usr/bin/tool", "usr/bin/other": "tool"} {
		got, err := os.Readlink(filepath.Join(dir, path))
		if err != nil || got != want {
			t.Errorf("%s links to %q (%v), want %q", path, got, err, want)
		}
	}
}
