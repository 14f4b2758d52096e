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
	"errors"
	"fmt"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// RefNameAnnotation names an image in an OCI layout's index.json.
const RefNameAnnotation = "org.opencontainers.image.ref.name"

// WriteLayout replaces dir with an OCI image layout holding idx under the reference
// name ref (for example quay.io/ec2-operator/ec2-operator:v0.1.0), and the artifacts
// that refer to it (its SBOMs), as OCI 1.1 lists referrers in a layout's index. It
// writes to a sibling directory first, so a failed build never leaves half a layout
// behind.
func WriteLayout(dir string, idx v1.ImageIndex, ref string, referrers ...v1.Image) error {
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	p, err := layout.Write(tmp, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{RefNameAnnotation: ref})); err != nil {
		return err
	}
	for _, r := range referrers {
		if err := p.AppendImage(r); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// ReadLayout returns the image index stored in an OCI layout written by WriteLayout,
// and its reference name.
func ReadLayout(dir string) (v1.ImageIndex, string, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, "", fmt.Errorf("reading image layout %s: %w", dir, err)
	}
	root, err := p.ImageIndex()
	if err != nil {
		return nil, "", err
	}
	m, err := root.IndexManifest()
	if err != nil {
		return nil, "", err
	}
	var found []v1.Descriptor
	for _, d := range m.Manifests {
		if d.Annotations[RefNameAnnotation] != "" {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		return nil, "", fmt.Errorf("image layout %s names %d images, want 1", dir, len(found))
	}
	desc := found[0]
	if !desc.MediaType.IsIndex() {
		return nil, "", errors.New("image layout " + dir + " does not hold an image index")
	}
	idx, err := root.ImageIndex(desc.Digest)
	if err != nil {
		return nil, "", err
	}
	return idx, desc.Annotations[RefNameAnnotation], nil
}

// LayoutDigest returns the digest of the image index in an OCI layout.
func LayoutDigest(dir string) (v1.Hash, error) {
	idx, _, err := ReadLayout(dir)
	if err != nil {
		return v1.Hash{}, err
	}
	return idx.Digest()
}

// ReadReferrers returns the artifacts an OCI layout written by WriteLayout holds beside
// its image (the SBOMs), in the order they were written.
func ReadReferrers(dir string) ([]v1.Image, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("reading image layout %s: %w", dir, err)
	}
	root, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	m, err := root.IndexManifest()
	if err != nil {
		return nil, err
	}
	var out []v1.Image
	for _, d := range m.Manifests {
		if d.Annotations[RefNameAnnotation] != "" || d.MediaType.IsIndex() {
			continue
		}
		img, err := root.Image(d.Digest)
		if err != nil {
			return nil, err
		}
		out = append(out, img)
	}
	return out, nil
}
