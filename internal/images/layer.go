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
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// File is one entry of an image's filesystem.
type File struct {
	// Path is the absolute path in the image, such as /etc/passwd.
	Path string
	// Mode holds the permission bits (and sticky bit), such as 0o644 or 0o1777.
	Mode int64
	// Dir makes the entry a directory; Data is then ignored.
	Dir bool
	// Data is the content of a regular file.
	Data []byte
	// Link makes the entry a symbolic link to this target; Data and Mode are then
	// ignored (a link's own mode means nothing on Linux, so it is written as 0777).
	Link string
	// UID and GID own the entry; zero is root.
	UID, GID int
}

// defaultDirMode is the mode of the parent directories a layer adds by itself.
const defaultDirMode = 0o755

// Layer is a compressed, content-addressed filesystem layer held in memory. It is
// built once, so its digest is computed from the exact bytes that are written and
// pushed.
type Layer struct {
	compressed []byte
	digest     v1.Hash
	diffID     v1.Hash
}

var _ v1.Layer = (*Layer)(nil)

// NewLayer builds a layer from files. Parent directories missing from files are added
// (root-owned, 0755), entries are sorted by path, and every entry gets the same
// modification time, so the layer depends only on its files and mtime.
func NewLayer(files []File, mtime time.Time) (*Layer, error) {
	return newLayer(files, mtime, nil)
}

// newLayer is NewLayer with the directories of the layers below: a parent directory
// the layer has to add takes its owner and mode from there, because a runtime applies
// the upper layer's entry, and a plain 0755 /tmp would hide the sticky, world-writable
// one of the base layer.
func newLayer(files []File, mtime time.Time, below map[string]File) (*Layer, error) {
	entries, err := withParents(files, below)
	if err != nil {
		return nil, err
	}
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, f := range entries {
		name := strings.TrimPrefix(f.Path, "/")
		hdr := &tar.Header{
			Name:    name,
			Mode:    f.Mode,
			Uid:     f.UID,
			Gid:     f.GID,
			ModTime: mtime.UTC(),
			// PAX records would add access and change times; USTAR holds all we need.
			Format: tar.FormatUSTAR,
		}
		switch {
		case f.Dir:
			hdr.Typeflag = tar.TypeDir
			hdr.Name += "/"
		case f.Link != "":
			hdr.Typeflag = tar.TypeSymlink
			hdr.Linkname = f.Link
			hdr.Mode = 0o777
		default:
			hdr.Typeflag = tar.TypeReg
			hdr.Size = int64(len(f.Data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			// USTAR holds names of up to 100 bytes after the last directory that fits
			// its prefix field; a longer one (a bundle manifest named after a long
			// object name) takes a PAX path record. Nothing was written on the failure,
			// and short names keep their USTAR headers, so existing layers do not change.
			hdr.Format = tar.FormatPAX
			if err := tw.WriteHeader(hdr); err != nil {
				return nil, fmt.Errorf("layer entry %s: %w", f.Path, err)
			}
		}
		if hdr.Typeflag == tar.TypeReg {
			if _, err := tw.Write(f.Data); err != nil {
				return nil, fmt.Errorf("layer entry %s: %w", f.Path, err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return layerFromTar(raw.Bytes())
}

// layerFromTar compresses an uncompressed tar stream. gzip's header carries no name
// and no time here, so equal input gives equal output. The default level compresses
// Go binaries within a few percent of the best level in half the time.
func layerFromTar(raw []byte) (*Layer, error) {
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return &Layer{compressed: gz.Bytes(), digest: sha256Hash(gz.Bytes()), diffID: sha256Hash(raw)}, nil
}

// withParents validates the files, adds the missing parent directories (as in below,
// when there) and sorts the entries by path.
func withParents(files []File, below map[string]File) ([]File, error) {
	byPath := map[string]File{}
	for _, f := range files {
		if !path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path || f.Path == "/" {
			return nil, fmt.Errorf("image path %q must be absolute and clean", f.Path)
		}
		if _, dup := byPath[f.Path]; dup {
			return nil, fmt.Errorf("image path %s is given twice", f.Path)
		}
		if f.Link != "" && (f.Dir || len(f.Data) > 0) {
			return nil, fmt.Errorf("image path %s is a link and has a directory's or a file's content", f.Path)
		}
		byPath[f.Path] = f
	}
	for p, f := range byPath {
		for dir := path.Dir(p); dir != "/"; dir = path.Dir(dir) {
			if parent, ok := byPath[dir]; ok {
				if !parent.Dir {
					return nil, fmt.Errorf("%s is a file but %s is inside it", dir, f.Path)
				}
				continue
			}
			if inherited, ok := below[dir]; ok && inherited.Dir {
				byPath[dir] = inherited
				continue
			}
			byPath[dir] = File{Path: dir, Dir: true, Mode: defaultDirMode}
		}
	}
	out := make([]File, 0, len(byPath))
	for _, f := range byPath {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func sha256Hash(b []byte) v1.Hash {
	sum := sha256.Sum256(b)
	return v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(sum[:])}
}

// Digest is the digest of the compressed layer, as manifests name it.
func (l *Layer) Digest() (v1.Hash, error) { return l.digest, nil }

// DiffID is the digest of the uncompressed tar, as the image config names it.
func (l *Layer) DiffID() (v1.Hash, error) { return l.diffID, nil }

// Compressed returns the gzip-compressed tar.
func (l *Layer) Compressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(l.compressed)), nil
}

// Uncompressed returns the tar stream.
func (l *Layer) Uncompressed() (io.ReadCloser, error) {
	zr, err := gzip.NewReader(bytes.NewReader(l.compressed))
	if err != nil {
		return nil, err
	}
	return zr, nil
}

// Size is the compressed size in bytes.
func (l *Layer) Size() (int64, error) { return int64(len(l.compressed)), nil }

// MediaType is the OCI gzip layer type.
func (l *Layer) MediaType() (types.MediaType, error) { return types.OCILayer, nil }
