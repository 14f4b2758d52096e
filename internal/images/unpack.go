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
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// ImageFor returns the image of idx for the platform.
func ImageFor(idx v1.ImageIndex, p Platform) (v1.Image, error) {
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	for _, d := range m.Manifests {
		if d.Platform != nil && d.Platform.OS == p.OS && d.Platform.Architecture == p.Architecture && d.Platform.Variant == p.Variant {
			return idx.Image(d.Digest)
		}
	}
	return nil, fmt.Errorf("no image for %s in the index", p)
}

// Unpack writes the image's flattened filesystem into dir, as a container runtime
// would before starting it, with the modes the image records. Ownership is kept when
// the caller may set it (root); otherwise files belong to the caller.
func Unpack(img v1.Image, dir string) error {
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	chown := os.Geteuid() == 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := unpackEntry(tr, hdr, dir, chown); err != nil {
			return err
		}
	}
}

// unpackEntry writes one entry of the flattened filesystem under dir, with the mode
// the image gives it and, when chown, its owner.
func unpackEntry(tr *tar.Reader, hdr *tar.Header, dir string, chown bool) error {
	name := filepath.Clean(hdr.Name)
	if name == "." || strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
		return fmt.Errorf("unsafe path %q in image", hdr.Name)
	}
	target := filepath.Join(dir, name)
	mode := os.FileMode(hdr.Mode & 0o777)
	if hdr.Mode&0o1000 != 0 {
		mode |= os.ModeSticky
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		if err := os.MkdirAll(target, 0o755); err != nil {
			return err
		}
	case tar.TypeReg:
		if err := writeRegular(tr, target); err != nil {
			return err
		}
	case tar.TypeSymlink:
		// A link is made as the runtime makes it; its target is resolved inside the
		// container's root, never here, so an absolute target is no escape. A link
		// has no mode of its own.
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(hdr.Linkname, target); err != nil {
			return err
		}
		return lchown(target, hdr, chown)
	default:
		return fmt.Errorf("%s: entry type %c is not supported", hdr.Name, hdr.Typeflag)
	}
	// Chmod after creating: the umask must not narrow what the image says.
	if err := os.Chmod(target, mode); err != nil {
		return err
	}
	return lchown(target, hdr, chown)
}

// writeRegular writes a regular file's contents from the archive.
func writeRegular(r io.Reader, target string) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// lchown gives target the entry's owner when chown (only root may).
func lchown(target string, hdr *tar.Header, chown bool) error {
	if !chown {
		return nil
	}
	return os.Lchown(target, hdr.Uid, hdr.Gid)
}
