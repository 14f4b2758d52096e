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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// krewPlatforms are the platforms kubectl-ec2 is archived for: those kubectl runs on
// where krew installs plugins.
const krewPlatforms = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64"

// krewRelease says where the archives of a release are published and which platforms
// they are built for.
type krewRelease struct {
	// out receives the archives and the plugin manifest ec2.yaml.
	out string
	// platforms is a comma-separated list of os/arch pairs.
	platforms string
	// url is where the archives are downloaded from; {version} becomes the version.
	url string
}

// The krew plugin manifest (krew.googlecontainertools.github.com/v1alpha2 Plugin),
// with the fields krew-index requires.
type krewPlugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec krewSpec `json:"spec"`
}

type krewSpec struct {
	Version          string         `json:"version"`
	Homepage         string         `json:"homepage"`
	ShortDescription string         `json:"shortDescription"`
	Description      string         `json:"description"`
	Platforms        []krewPlatform `json:"platforms"`
}

type krewPlatform struct {
	Selector struct {
		MatchLabels map[string]string `json:"matchLabels"`
	} `json:"selector"`
	URI    string     `json:"uri"`
	SHA256 string     `json:"sha256"`
	Bin    string     `json:"bin"`
	Files  []krewFile `json:"files"`
}

type krewFile struct {
	From string `json:"from"`
	To   string `json:"to"`
}

const krewDescription = `Writes EC2Instance manifests (ec2-operator.dev) for EC2 instances made outside
Kubernetes, as they are in AWS, for ec2-operator to observe or adopt. It selects
instances by tag, VPC or ID, skips those another controller manages, and makes
Describe calls only, with the AWS SDK's default credentials.`

// buildKrew builds kubectl-ec2 for each platform into a reproducible tar.gz (the
// binary and the licence, with the release date as every file's time) and writes the
// krew plugin manifest that names each archive's URL and SHA-256.
func (s *settings) buildKrew(ctx context.Context, r krewRelease) error {
	license, err := os.ReadFile(filepath.Join(s.root, "LICENSE"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		return err
	}
	plugin := krewPlugin{APIVersion: "krew.googlecontainertools.github.com/v1alpha2", Kind: "Plugin"}
	plugin.Metadata.Name = "ec2"
	plugin.Spec = krewSpec{Version: "v" + s.version, Homepage: "https://github.com/ec2-operator/ec2-operator",
		ShortDescription: "Import EC2 instances as EC2Instance manifests", Description: krewDescription}
	for _, name := range strings.Split(r.platforms, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(name), "/")
		if !ok || goos == "" || goarch == "" {
			return fmt.Errorf("--krew-platforms: %q is not os/arch", name)
		}
		entry, err := s.krewArchive(ctx, r, goos, goarch, license)
		if err != nil {
			return err
		}
		plugin.Spec.Platforms = append(plugin.Spec.Platforms, entry)
	}
	manifest, err := yaml.Marshal(plugin)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(r.out, "ec2.yaml"), manifest, 0o644)
}

// krewArchive builds one platform's archive and returns its manifest entry.
func (s *settings) krewArchive(ctx context.Context, r krewRelease, goos, goarch string, license []byte) (krewPlatform, error) {
	bin := "kubectl-ec2"
	if goos == "windows" {
		bin += ".exe"
	}
	binary, err := s.buildOwn(ctx, "./cmd/kubectl-ec2", images.Platform{OS: goos, Architecture: goarch})
	if err != nil {
		return krewPlatform{}, err
	}
	layer, err := images.NewLayer([]images.File{{Path: "/" + bin, Mode: 0o755, Data: binary}, {Path: "/LICENSE", Mode: 0o644, Data: license}}, s.created)
	if err != nil {
		return krewPlatform{}, err
	}
	compressed, err := layer.Compressed()
	if err != nil {
		return krewPlatform{}, err
	}
	defer compressed.Close()
	archive, err := io.ReadAll(compressed)
	if err != nil {
		return krewPlatform{}, err
	}
	file := fmt.Sprintf("kubectl-ec2_v%s_%s_%s.tar.gz", s.version, goos, goarch)
	if err := os.WriteFile(filepath.Join(r.out, file), archive, 0o644); err != nil {
		return krewPlatform{}, err
	}
	sum := sha256.Sum256(archive)
	entry := krewPlatform{URI: strings.ReplaceAll(r.url, "{version}", "v"+s.version) + "/" + file, SHA256: hex.EncodeToString(sum[:]), Bin: bin,
		Files: []krewFile{{From: bin, To: "."}, {From: "LICENSE", To: "."}}}
	entry.Selector.MatchLabels = map[string]string{"os": goos, "arch": goarch}
	return entry, nil
}
