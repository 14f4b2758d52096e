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
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// bundleDockerfile is the engine path's recipe for the bundle image (make bundle-build);
// the engine-free build follows the same file, so both give the same image content.
const bundleDockerfile = "bundle.Dockerfile"

// bundleSpec is the OLM bundle image: the files bundle.Dockerfile copies, where it
// copies them, and its labels. Like `FROM scratch`, it has nothing to run.
func (s *settings) bundleSpec() (images.Spec, error) {
	data, err := os.ReadFile(filepath.Join(s.manifests, bundleDockerfile))
	if err != nil {
		return images.Spec{}, err
	}
	df, err := images.ParseScratchDockerfile(data)
	if err != nil {
		return images.Spec{}, fmt.Errorf("%s: %w", bundleDockerfile, err)
	}
	var files []images.File
	for _, c := range df.Copies {
		copied, err := copyTree(filepath.Join(s.manifests, c.Source), c.Dest)
		if err != nil {
			return images.Spec{}, fmt.Errorf("%s: COPY %s %s: %w", bundleDockerfile, c.Source, c.Dest, err)
		}
		files = append(files, copied...)
	}
	return images.Spec{
		Created: s.created,
		Layers:  []images.LayerSpec{{CreatedBy: "ec2-operator images: the COPY instructions of " + bundleDockerfile, Files: files}},
		Labels:  df.Labels,
	}, nil
}

// copyTree maps a file or directory of the build context to image files under dest,
// as COPY does: a directory's contents land in dest. Modes are normalised (0644 files,
// 0755 directories) so the image does not depend on the checkout's umask.
func copyTree(src, dest string) ([]images.File, error) {
	dest = path.Clean("/" + strings.TrimSuffix(dest, "/"))
	var files []images.File
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := path.Join(dest, filepath.ToSlash(rel))
		switch {
		case d.IsDir():
			if target != "/" {
				files = append(files, images.File{Path: target, Dir: true, Mode: 0o755})
			}
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files = append(files, images.File{Path: target, Mode: 0o644, Data: data})
		default:
			return fmt.Errorf("%s is neither a file nor a directory", p)
		}
		return nil
	})
	return files, err
}
