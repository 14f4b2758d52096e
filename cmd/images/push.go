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
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// keychain gives push its credentials; tests replace it.
var keychain authn.Keychain = authn.DefaultKeychain

// push uploads the five images to registry (HOST/ORG) by digest, in dependency order
// (operator, scorecard and must-gather, then the bundle that names them, then the
// catalog that names the bundle), and only when all are there tags them v<version>. A
// failure midway leaves no tag and no catalog pointing at anything missing.
func (s *settings) push(ctx context.Context, registry string) error {
	registry = strings.TrimSuffix(registry, "/")
	if registry == "" {
		return errors.New("REGISTRY is not set: say where to push, e.g. make images-push REGISTRY=quay.io/ec2-operator")
	}
	if _, err := name.NewRepository(registry + "/" + operatorImage); err != nil {
		return fmt.Errorf("REGISTRY %q is not a registry and organisation: %w", registry, err)
	}
	if err := s.checkClean(); err != nil {
		return err
	}
	if err := s.checkReferences(); err != nil {
		return err
	}
	type pushed struct {
		ref name.Digest
		idx v1.ImageIndex
	}
	var done []pushed
	for _, t := range allImages {
		idx, _, err := images.ReadLayout(s.layoutDir(t))
		if err != nil {
			return fmt.Errorf("%s image: %w (run make images)", t, err)
		}
		if err := s.checkRevision(t, idx); err != nil {
			return err
		}
		ref, err := images.Push(ctx, idx, registry+"/"+imageNames[t], keychain)
		if err != nil {
			return err
		}
		sboms, err := images.ReadReferrers(s.layoutDir(t))
		if err != nil {
			return err
		}
		if err := images.PushReferrers(ctx, sboms, registry+"/"+imageNames[t], keychain); err != nil {
			return err
		}
		fmt.Println("pushed", ref, "and its", len(sboms), "SBOMs")
		done = append(done, pushed{ref, idx})
	}
	for _, p := range done {
		if err := images.Tag(ctx, p.ref, "v"+s.version, p.idx, keychain); err != nil {
			return err
		}
		fmt.Println("tagged", p.ref.Context().Tag("v"+s.version))
	}
	if registry != s.repo {
		fmt.Printf("note: the bundle and catalog name the images in %s; pulling them from %s needs a mirror configuration (an ImageDigestMirrorSet on OpenShift)\n", s.repo, registry)
	}
	return nil
}

// checkClean refuses to publish from a work tree with uncommitted changes: the
// images would not match any commit.
func (s *settings) checkClean() error {
	out, err := exec.Command("git", "-C", s.root, "status", "--porcelain", "--untracked-files=no").Output()
	if err != nil {
		return fmt.Errorf("checking the work tree: %w", err)
	}
	if len(strings.TrimSpace(string(out))) > 0 {
		return errors.New("the work tree has uncommitted changes; commit them, then make bundle catalog images, before pushing")
	}
	return nil
}

// checkRevision refuses images built from other sources than the current ones (an
// older make images, or a dirty tree).
func (s *settings) checkRevision(target string, idx v1.ImageIndex) error {
	if target == "bundle" {
		return nil // the bundle image holds only bundle/, which checkReferences covers
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) == 0 {
		return fmt.Errorf("%s image: empty index", target)
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	if got := cf.Config.Labels["org.opencontainers.image.revision"]; got != s.revision {
		return fmt.Errorf("the %s image was built from revision %s, the sources are at %s: run make images", target, got, s.revision)
	}
	return nil
}
