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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	ocilayout "github.com/google/go-containerregistry/pkg/v1/layout"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// containerdImageName is the annotation containerd's importer reads an image's full
// name from; OCI's ref.name holds only the tag.
const containerdImageName = "io.containerd.image.name"

// ctr runs containerd's client against the node's containerd, in the namespace the
// CRI (and so the kubelet) uses.
func ctr(args ...string) (string, error) {
	return sh("/usr/bin/ctr", append([]string{"--address", containerdSocket(), "--namespace", "k8s.io"}, args...)...)
}

func importedNames() (map[string]bool, error) {
	out, err := ctr("images", "ls", "-q")
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, n := range strings.Fields(out) {
		names[n] = true
	}
	return names, nil
}

// importComponents packs and imports every registered component image whose binaries
// changed since it was last imported (a stamp of their sizes and times says so), under
// its tag and by digest, and writes images.json: each Ref and its by-digest name.
func importComponents(l layout) error {
	have, err := importedNames()
	if err != nil {
		return err
	}
	// Keep the names of images imported before (by a build of this tool that had other
	// components registered); a name whose image is gone from containerd is dropped.
	byRef := map[string]string{}
	if data, err := os.ReadFile(l.path("images.json")); err == nil {
		_ = json.Unmarshal(data, &byRef)
	}
	for ref, digestRef := range byRef {
		if !have[ref] || !have[digestRef] {
			delete(byRef, ref)
		}
	}
	for _, img := range componentImages() {
		stamp, err := componentStamp(l, img)
		if err != nil {
			return err
		}
		stampFile := l.path("images", strings.NewReplacer("/", "_", ":", "_").Replace(img.Ref)+".stamp")
		if old, err := os.ReadFile(stampFile); err == nil {
			if got, digestRef, _ := strings.Cut(string(old), "\n"); got == stamp && have[img.Ref] && have[digestRef] {
				byRef[img.Ref] = digestRef
				continue
			}
		}
		digestRef, err := importComponent(l, img)
		if err != nil {
			return err
		}
		byRef[img.Ref] = digestRef
		if err := os.MkdirAll(filepath.Dir(stampFile), 0o755); err != nil {
			return err
		}
		if err := writeAtomic(stampFile, []byte(stamp+"\n"+digestRef), 0o644); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(byRef, "", "  ")
	if err != nil {
		return err
	}
	return writeIfChanged(l.path("images.json"), string(data)+"\n")
}

func importComponent(l layout, img componentImage) (string, error) {
	spec, err := buildComponent(l.root, img)
	if err != nil {
		return "", err
	}
	built, err := images.Build(spec)
	if err != nil {
		return "", err
	}
	digest, err := built.Digest()
	if err != nil {
		return "", err
	}
	parsed, err := name.ParseReference(img.Ref)
	if err != nil {
		return "", err
	}
	digestRef := parsed.Context().Name() + "@" + digest.String()
	fmt.Println(">> importing", img.Ref)
	return digestRef, importImage(l, func(p ocilayout.Path, ann map[string]string) error {
		return p.AppendImage(built, ocilayout.WithAnnotations(ann))
	}, []string{img.Ref, digestRef})
}

func componentStamp(l layout, img componentImage) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%+v\n", img)
	for _, f := range img.Files {
		fi, err := os.Stat(sourcePath(l.root, f.Source))
		if err != nil {
			return "", fmt.Errorf("image %s: %w (build it first: make cluster-binaries)", img.Ref, err)
		}
		fmt.Fprintf(h, "%s %d %d\n", f.Source, fi.Size(), fi.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// importLayout imports an image layout written by cmd/images (a release image) under
// its name and under its repository by digest, the two ways manifests reference it:
// the CSV and the catalog name images by digest, and an image referenced by digest
// resolves on the node only when that digest was imported under that name.
func importLayout(l layout, dir string) error {
	idx, ref, err := images.ReadLayout(dir)
	if err != nil {
		return err
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	parsed, err := name.ParseReference(ref)
	if err != nil {
		return fmt.Errorf("image layout %s is named %q: %w", dir, ref, err)
	}
	byDigest := parsed.Context().Name() + "@" + digest.String()
	have, err := importedNames()
	if err != nil {
		return err
	}
	if have[byDigest] && have[ref] {
		return nil
	}
	fmt.Println(">> importing", byDigest)
	return importImage(l, func(p ocilayout.Path, ann map[string]string) error {
		return p.AppendIndex(idx, ocilayout.WithAnnotations(ann))
	}, []string{ref, byDigest})
}

// importImage writes an OCI archive with one entry per name and has containerd
// import it (and unpack it for this platform, as a pull would).
func importImage(l layout, add func(ocilayout.Path, map[string]string) error, names []string) error {
	dir, err := os.MkdirTemp(l.state, "import-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := ocilayout.Write(filepath.Join(dir, "layout"), empty.Index)
	if err != nil {
		return err
	}
	for _, n := range names {
		tag := "latest"
		if r, err := name.ParseReference(n); err == nil {
			tag = r.Identifier()
		}
		if err := add(p, map[string]string{containerdImageName: n, images.RefNameAnnotation: tag}); err != nil {
			return err
		}
	}
	archive := filepath.Join(dir, "image.tar")
	if err := tarDir(filepath.Join(dir, "layout"), archive); err != nil {
		return err
	}
	if _, err := ctr("images", "import", "--no-unpack=false", archive); err != nil {
		return err
	}
	return nil
}

func tarDir(src, dst string) error {
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer out.Close()
	tw := tar.NewWriter(out)
	err = filepath.Walk(src, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: rel, Mode: 0o644, Size: fi.Size(), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return err
	}
	return tw.Close()
}
