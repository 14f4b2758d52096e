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
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// componentImage is an image of a cluster component (pause, CoreDNS, OLM, Prometheus,
// ...) that the cluster tool packs from binaries built from Go modules and imports into
// the node's containerd, because no registry can be reached. Its manifests name it by
// Ref with imagePullPolicy IfNotPresent.
type componentImage struct {
	// Ref is the name pods use, such as localhost/cluster/coredns:v1.15.0. The tag
	// carries the component's version, so a new version is imported under a new name.
	Ref string
	// Files are copied into the image; Source is relative to the repository root.
	Files []componentFile
	// Entrypoint and Cmd are the image's defaults; most manifests override them.
	Entrypoint []string
	Cmd        []string
	// User is numeric (UID:GID); empty means 65532:65532, non-root.
	User string
}

// componentFile is one file of a component image.
type componentFile struct {
	Path   string // absolute path in the image
	Source string // file on this machine: absolute, or relative to the repository root
	Mode   int64  // 0o755 for programs
}

// registeredImages holds every component image, by Ref. Each component's file
// registers its images in an init function, so adding a component touches no list.
var registeredImages = map[string]componentImage{}

// registerImages adds component images; a Ref registered twice is a programming error.
func registerImages(imgs ...componentImage) {
	for _, img := range imgs {
		if _, dup := registeredImages[img.Ref]; dup {
			panic("component image registered twice: " + img.Ref)
		}
		registeredImages[img.Ref] = img
	}
}

// componentImages lists the registered images in a stable order.
func componentImages() []componentImage {
	refs := make([]string, 0, len(registeredImages))
	for ref := range registeredImages {
		refs = append(refs, ref)
	}
	sort.Strings(refs)
	out := make([]componentImage, 0, len(refs))
	for _, ref := range refs {
		out = append(out, registeredImages[ref])
	}
	return out
}

// imageEpoch stamps every component image, so that the same binaries give the same
// digest and a re-import is skipped.
var imageEpoch = time.Unix(0, 0).UTC()

// componentAccounts are the accounts every component image carries, as distroless
// images do: programs and libraries look users up, and /tmp must be writable.
var componentAccounts = []images.File{
	{Path: "/etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
		"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
	{Path: "/etc/group", Mode: 0o644, Data: []byte("root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n")},
	{Path: "/etc/nsswitch.conf", Mode: 0o644, Data: []byte("hosts: files dns\n")},
	{Path: "/tmp", Dir: true, Mode: 0o1777},
	{Path: "/home/nonroot", Dir: true, Mode: 0o755, UID: 65532, GID: 65532},
}

// buildComponent packs img as a one-platform image (this machine's) of two layers:
// the accounts and CA certificates, then its files.
func buildComponent(root string, img componentImage) (images.Spec, error) {
	base := append([]images.File{{Path: images.CACertificatesPath, Mode: 0o644, Data: images.CACertificates()}},
		componentAccounts...)
	var files []images.File
	for _, f := range img.Files {
		data, err := os.ReadFile(sourcePath(root, f.Source))
		if err != nil {
			return images.Spec{}, fmt.Errorf("image %s: %w (build it first: make cluster-binaries)", img.Ref, err)
		}
		files = append(files, images.File{Path: f.Path, Mode: f.Mode, Data: data})
	}
	user := img.User
	if user == "" {
		user = "65532:65532"
	}
	return images.Spec{
		Platform:   images.LinuxAMD64,
		Created:    imageEpoch,
		Layers:     []images.LayerSpec{{CreatedBy: "accounts, CA certificates, /tmp", Files: base}, {CreatedBy: "component " + img.Ref, Files: files}},
		Entrypoint: img.Entrypoint,
		Cmd:        img.Cmd,
		User:       user,
		Env:        []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/nonroot"},
	}, nil
}

// sourcePath is where a component file's source is: absolute paths are the host's
// (a Debian package's program), others the repository's.
func sourcePath(root, source string) string {
	if filepath.IsAbs(source) {
		return source
	}
	return filepath.Join(root, source)
}
