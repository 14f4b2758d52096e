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
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// versionPackage receives the version and revision stamps of our own binaries.
const versionPackage = "github.com/ec2-operator/ec2-operator/internal/version"

// buildOwn compiles a package of this module for a platform and returns the binary:
// static (no cgo, so it runs on an image without libc), stripped, with no build paths
// (-trimpath) and no VCS stamp (-buildvcs=false: the stamp would name HEAD, which
// changes with every commit of the bundle), with the version and revision stamped
// into internal/version, and with the Go Cryptographic Module of --gofips140.
func (s *settings) buildOwn(ctx context.Context, pkg string, p images.Platform) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "images-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "bin")
	ldflags := fmt.Sprintf("-s -w -X %s.Version=%s -X %s.Revision=%s", versionPackage, s.version, versionPackage, s.revision)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", out, pkg)
	cmd.Dir = s.root
	// GOFIPS140 builds in the frozen, validated Go Cryptographic Module instead of the
	// toolchain's crypto, and makes fips140=on the binary's default.
	fips140 := s.fips140
	if fips140 == "" {
		fips140 = "off"
	}
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture, "GOFLAGS=-mod=readonly", "GOFIPS140="+fips140)
	if output, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s for %s: %v: %s", pkg, p, err, strings.TrimSpace(string(output)))
	}
	return os.ReadFile(out)
}

// moduleTool is a third-party command an image carries, built from its Go module at a
// pinned version.
type moduleTool struct {
	module, pkg, tags string
	// ldflags stamps the version the tool reports about itself.
	ldflags func(version string) string
}

// tools are the third-party commands of the catalog image: opm serves the catalog, and
// OLM's registry pods probe it with grpc_health_probe.
var tools = map[string]moduleTool{
	"opm": {
		module: "github.com/operator-framework/operator-registry", pkg: "./cmd/opm",
		// json1 and containers_image_openpgp are the tags opm's own release uses; with cgo
		// off they also keep gpgme and sqlite's C code out.
		tags: "json1,containers_image_openpgp",
		ldflags: func(v string) string {
			return "-X github.com/operator-framework/operator-registry/cmd/opm/version.gitCommit=" + v +
				" -X github.com/operator-framework/operator-registry/cmd/opm/version.opmVersion=" + v
		},
	},
	"grpc_health_probe": {
		module: "github.com/grpc-ecosystem/grpc-health-probe", pkg: ".",
		ldflags: func(v string) string { return "-X main.versionTag=" + v },
	},
}

// toolVersion returns the pinned version of a tool.
func (s *settings) toolVersion(name string) string {
	if name == "opm" {
		return s.opmVersion
	}
	return s.probeVersion
}

// toolFor builds a tool for a platform (this machine's when empty) with
// hack/build-go-tool.sh, which every module-built tool of the project goes through, and
// returns the binary's path. It is built once per version and platform, then reused.
func (s *settings) toolFor(ctx context.Context, name, platform string) (string, error) {
	t, ok := tools[name]
	if !ok {
		return "", fmt.Errorf("unknown tool %q (opm, grpc_health_probe)", name)
	}
	p, err := hostPlatform()
	if platform != "" {
		p, err = parsePlatform(platform)
	}
	if err != nil {
		return "", err
	}
	version := s.toolVersion(name)
	out := filepath.Join(s.binDir, fmt.Sprintf("%s-%s-%s", name, p.OS, p.Architecture))
	cmd := exec.CommandContext(ctx, filepath.Join(s.root, "hack", "build-go-tool.sh"),
		out, t.module, version, t.pkg, "0", t.tags, t.ldflags(version))
	cmd.Dir = s.root
	cmd.Env = append(os.Environ(), "GOOS="+p.OS, "GOARCH="+p.Architecture)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building %s %s for %s: %w", name, version, p, err)
	}
	return out + "-" + version, nil
}
