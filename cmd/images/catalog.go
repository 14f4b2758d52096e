package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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
	configs, err := copyTree(filepath.Join(s.root, "catalog"), catalogConfigs)
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
// files under /tmp/cache. The cache is platform independent JSON.
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
	cacheDir := filepath.Join(tmp, "cache")
	cmd := exec.CommandContext(ctx, opm, "serve", filepath.Join(s.root, "catalog"), "--cache-dir="+cacheDir, "--cache-only")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("opm serve --cache-only: %v: %s", err, strings.TrimSpace(string(out)))
	}
	files, err := copyTree(cacheDir, catalogCacheDir)
	if err != nil {
		return nil, err
	}
	// opm serve takes a lock file inside the cache even when the cache is current, so
	// the serving user must be able to write there: the image's user owns it, and group
	// 0 may write too, for OpenShift's arbitrary UIDs, which run in the root group.
	for i := range files {
		files[i].UID, files[i].GID = nonRootID, 0
		files[i].Mode |= 0o020
	}
	return files, nil
}
