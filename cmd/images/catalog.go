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
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// The catalog image's layout, as opm's own catalog images (and catalog.Dockerfile,
// which `opm generate dockerfile` writes) have it.
const (
	catalogConfigs  = "/configs"
	catalogCacheDir = "/tmp/cache"
	// configsLabel tells OLM and opm where the file-based catalog is.
	configsLabel = "operators.operatorframework.io.index.configs.v1"
)

// catalogSpec is the file-based catalog served by `opm serve`, with the serve cache
// built in advance (so the pod starts serving without rebuilding it, and needs no
// write access), and grpc_health_probe, which OLM's registry pods run as their
// readiness and liveness probes.
func (s *settings) catalogSpec(ctx context.Context, p images.Platform, cache []images.File) (images.Spec, error) {
	base, err := s.baseLayer()
	if err != nil {
		return images.Spec{}, err
	}
	var bins []images.File
	for _, t := range []struct{ name, path string }{{"opm", "/bin/opm"}, {"grpc_health_probe", "/bin/grpc_health_probe"}} {
		bin, err := s.toolFor(ctx, t.name, p.String())
		if err != nil {
			return images.Spec{}, err
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return images.Spec{}, err
		}
		bins = append(bins, images.File{Path: t.path, Mode: 0o755, Data: data})
	}
	configs, err := copyTree(filepath.Join(s.manifests, "catalog"), catalogConfigs)
	if err != nil {
		return images.Spec{}, err
	}
	labels := s.labels(catalogImage, "EC2 Operator catalog", "The file-based OLM catalog of ec2-operator, served by opm.")
	labels[configsLabel] = catalogConfigs
	return images.Spec{
		Created: s.created,
		Layers: []images.LayerSpec{
			base,
			{CreatedBy: "ec2-operator images: opm " + s.opmVersion + ", grpc_health_probe " + s.probeVersion, Files: bins},
			{CreatedBy: "ec2-operator images: catalog/ and its opm serve cache", Files: append(configs, cache...)},
		},
		Entrypoint: []string{"/bin/opm"},
		Cmd:        []string{"serve", catalogConfigs, "--cache-dir=" + catalogCacheDir},
		User:       fmt.Sprintf("%d:%d", nonRootID, nonRootID),
		WorkingDir: "/",
		Labels:     labels,
	}, nil
}

// serveCache builds opm's serve cache for catalog/ with this machine's opm, as
// catalog.Dockerfile's `opm serve --cache-only` step does, and returns it as image
// files under /tmp/cache.
//
// opm's preferred cache format (pogreb) salts its index with a random seed, so two
// builds would differ; opm keeps whichever format it finds, so the cache directory is
// seeded with an empty JSON cache, which opm rebuilds in that deterministic format
// (read without a lock file, so the serving user needs no write access). opm checks
// the cache at start against a hash of the catalog's and the cache's files, modes
// included, so the cache is built from a copy of catalog/ with the modes the image
// gives it, and its own files keep the modes opm wrote; they belong to the serving user
// and group 0 (OpenShift's arbitrary UIDs run in group 0) so that both can read them.
func (s *settings) serveCache(ctx context.Context) ([]images.File, error) {
	opm, err := s.toolFor(ctx, "opm", "")
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "catalog-cache-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	configs := filepath.Join(tmp, "configs")
	if err := stage(filepath.Join(s.manifests, "catalog"), configs); err != nil {
		return nil, err
	}
	cacheDir := filepath.Join(tmp, "cache")
	if err := os.MkdirAll(filepath.Join(cacheDir, "cache"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(cacheDir, "digest"), []byte("unbuilt"), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, opm, "serve", configs, "--cache-dir="+cacheDir, "--cache-only")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("opm serve --cache-only: %v: %s", err, strings.TrimSpace(string(out)))
	}
	if _, err := os.Stat(filepath.Join(cacheDir, "cache", "packages.json")); err != nil {
		return nil, fmt.Errorf("opm did not write a JSON serve cache: %w", err)
	}
	var files []images.File
	err = filepath.WalkDir(cacheDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(cacheDir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		f := images.File{Path: path.Join(catalogCacheDir, filepath.ToSlash(rel)), Mode: int64(info.Mode().Perm()), UID: nonRootID, GID: 0}
		if d.IsDir() {
			f.Dir = true
		} else if f.Data, err = os.ReadFile(p); err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	return files, err
}

// stage copies a directory tree with the files and modes copyTree gives it in an
// image (0644 files, 0755 directories).
func stage(src, dst string) error {
	files, err := copyTree(src, "/")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(dst, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		target := filepath.Join(dst, filepath.FromSlash(f.Path))
		if f.Dir {
			if err := os.MkdirAll(target, os.FileMode(f.Mode)); err != nil {
				return err
			}
			if err := os.Chmod(target, os.FileMode(f.Mode)); err != nil {
				return err
			}
			continue
		}
		if err := os.WriteFile(target, f.Data, os.FileMode(f.Mode)); err != nil {
			return err
		}
		if err := os.Chmod(target, os.FileMode(f.Mode)); err != nil {
			return err
		}
	}
	return nil
}
