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
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// The release images, by their name within the image repository.
const (
	operatorImage   = "ec2-operator"
	bundleImage     = "ec2-operator-bundle"
	catalogImage    = "ec2-operator-catalog"
	scorecardImage  = "ec2-operator-scorecard"
	mustGatherImage = "ec2-operator-must-gather"
)

// allImages is the build order: the bundle refers to the operator, scorecard and
// must-gather images, and the catalog to the bundle.
var allImages = []string{"operator", "scorecard", "must-gather", "bundle", "catalog"}

// imageNames maps the build targets to repository names.
var imageNames = map[string]string{
	"operator": operatorImage, "scorecard": scorecardImage, "must-gather": mustGatherImage,
	"bundle": bundleImage, "catalog": catalogImage,
}

// settings are what every command needs to know about the release.
type settings struct {
	// root is the repository root; out holds one OCI layout per image; binDir caches
	// the third-party tools built for the images.
	root, out, binDir string
	// manifests is the tree whose bundle.Dockerfile, bundle/ and catalog/ the bundle
	// and catalog images hold and whose references check compares: the repository root
	// for a release, or the copy pinned to the images just built (make images stages
	// it under bin/) between releases, when the committed ones name the last release.
	manifests string
	// version is the operator's semantic version; release counts builds of it.
	version, release string
	// revision is the git commit of the sources in the images (see sourceRevision).
	revision string
	// createdFlag is the release date (RFC 3339); SOURCE_DATE_EPOCH overrides it.
	createdFlag string
	created     time.Time
	// repo is the image repository prefix, such as quay.io/ec2-operator.
	repo string
	// platformsFlag lists the platforms of every image.
	platformsFlag string
	platforms     []images.Platform
	// opmVersion and probeVersion pin the catalog image's tools.
	opmVersion, probeVersion string
	// fips140 is the Go Cryptographic Module version our binaries are built with
	// (GOFIPS140); empty builds them with the toolchain's own crypto.
	fips140 string
}

// defaultFIPS140 is the Go Cryptographic Module v1.0.0 snapshot the Go toolchain lists
// as certified (lib/fips140/certified.txt; CMVP certificate for the module validated
// under FIPS 140-3), by its exact name so that a newer toolchain cannot change it. A
// binary built with it runs with GODEBUG fips140=on by default.
const defaultFIPS140 = "v1.0.0-c2097c7c"

func bindSettings(fs *flag.FlagSet) *settings {
	s := &settings{}
	fs.StringVar(&s.root, "root", ".", "repository root")
	fs.StringVar(&s.manifests, "manifests", "", "tree holding bundle.Dockerfile, bundle/ and catalog/ (default: --root)")
	fs.StringVar(&s.out, "out", "bin/images", "directory of the OCI layouts, one per image")
	fs.StringVar(&s.binDir, "bin", "bin", "directory where tools are built and cached")
	fs.StringVar(&s.version, "version", "0.1.0", "operator version (semver, no v)")
	fs.StringVar(&s.release, "release", "1", "build number of this version (the release label)")
	fs.StringVar(&s.revision, "revision", os.Getenv("SOURCE_REVISION"), "source revision (default: the last commit that changed the operator's sources)")
	fs.StringVar(&s.createdFlag, "created", "2026-11-30T00:00:00Z", "image creation time (RFC 3339); SOURCE_DATE_EPOCH overrides it")
	fs.StringVar(&s.repo, "repo", "quay.io/ec2-operator", "image repository prefix")
	fs.StringVar(&s.platformsFlag, "platforms", "linux/amd64,linux/arm64", "platforms to build for")
	fs.StringVar(&s.opmVersion, "opm-version", "v1.61.0", "operator-registry (opm) version in the catalog image")
	fs.StringVar(&s.probeVersion, "grpc-health-probe-version", "v0.4.63", "grpc_health_probe version in the catalog image")
	fs.StringVar(&s.fips140, "gofips140", defaultFIPS140, "Go Cryptographic Module (GOFIPS140) the operator's own binaries are built with; empty: none")
	return s
}

// complete checks the settings and fills in what is derived.
func (s *settings) complete(command string) error {
	root, err := filepath.Abs(s.root)
	if err != nil {
		return err
	}
	s.root = root
	switch {
	case s.manifests == "":
		s.manifests = root
	case !filepath.IsAbs(s.manifests):
		s.manifests = filepath.Join(root, s.manifests)
	}
	if !filepath.IsAbs(s.out) {
		s.out = filepath.Join(root, s.out)
	}
	if !filepath.IsAbs(s.binDir) {
		s.binDir = filepath.Join(root, s.binDir)
	}
	if s.version == "" || strings.HasPrefix(s.version, "v") {
		return fmt.Errorf("--version %q: want a semantic version without a leading v", s.version)
	}
	if s.created, err = creationTime(s.createdFlag, os.Getenv("SOURCE_DATE_EPOCH")); err != nil {
		return err
	}
	for _, p := range strings.Split(s.platformsFlag, ",") {
		platform, err := parsePlatform(p)
		if err != nil {
			return err
		}
		s.platforms = append(s.platforms, platform)
	}
	if s.revision == "" && (command == "build" || command == "push" || command == "revision") {
		if s.revision, err = sourceRevision(s.root); err != nil {
			return err
		}
	}
	return nil
}

// creationTime is SOURCE_DATE_EPOCH (seconds since 1970, the reproducible-builds
// convention) when set, else the release date.
func creationTime(release, epoch string) (time.Time, error) {
	if epoch != "" {
		secs, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds", epoch)
		}
		return time.Unix(secs, 0).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, release)
	if err != nil {
		return time.Time{}, fmt.Errorf("--created %q: %w", release, err)
	}
	return t.UTC(), nil
}

func parsePlatform(s string) (images.Platform, error) {
	switch strings.TrimSpace(s) {
	case "linux/amd64":
		return images.LinuxAMD64, nil
	case "linux/arm64", "linux/arm64/v8":
		return images.LinuxARM64, nil
	}
	return images.Platform{}, fmt.Errorf("platform %q is not supported (linux/amd64, linux/arm64)", s)
}

// hostPlatform is the platform of this machine, for the tools the build runs itself.
func hostPlatform() (images.Platform, error) {
	return parsePlatform(runtime.GOOS + "/" + runtime.GOARCH)
}

// ref is the repository of a release image.
func (s *settings) ref(image string) string { return s.repo + "/" + image }

// layoutDir is where an image's OCI layout is written.
func (s *settings) layoutDir(target string) string { return filepath.Join(s.out, target) }

// operatorSources are the paths whose last commit is the images' revision: everything
// compiled into the manager and the scorecard test, and the license shipped with them.
// Tests and the packaging code (this command and internal/images) are left out: they
// do not change what the operator does, and changing them should not make every
// bundle pin a new revision.
var operatorSources = []string{"go.mod", "go.sum", "LICENSE", "api", "cmd", "internal",
	":(exclude,glob)**/*_test.go", ":(exclude)cmd/images", ":(exclude)internal/images"}

// sourceRevision is the last commit that changed the operator's sources, with -dirty
// when they have uncommitted changes. It is not HEAD: the commit that records the
// image digests in bundle/ must not change the images it points at, or no bundle
// could ever be current. A shallow clone cannot tell the last commit of a path, so it
// is refused rather than guessed.
func sourceRevision(root string) (string, error) {
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(string(ee.Stderr)))
		}
		return strings.TrimSpace(string(out)), err
	}
	shallow, err := git("rev-parse", "--is-shallow-repository")
	if err != nil {
		return "", fmt.Errorf("the image revision comes from git history (or set SOURCE_REVISION): %w", err)
	}
	if shallow == "true" {
		return "", errors.New("the clone is shallow, so the last commit of the sources is unknown: run git fetch --unshallow (or set SOURCE_REVISION)")
	}
	rev, err := git(append([]string{"log", "-1", "--format=%H", "--"}, operatorSources...)...)
	if err != nil {
		return "", err
	}
	if rev == "" {
		return "", errors.New("no commit has the operator's sources yet (or set SOURCE_REVISION)")
	}
	dirty, err := git(append([]string{"status", "--porcelain", "--"}, operatorSources...)...)
	if err != nil {
		return "", err
	}
	if dirty != "" {
		rev += "-dirty"
	}
	return rev, nil
}
