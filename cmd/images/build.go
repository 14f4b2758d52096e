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
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// build writes the named images (all by default) as OCI layouts and prints each
// digest reference.
func (s *settings) build(ctx context.Context, targets []string) error {
	if len(targets) == 0 {
		targets = allImages
	}
	for _, t := range targets {
		if !slices.Contains(allImages, t) {
			return fmt.Errorf("unknown image %q (%s)", t, strings.Join(allImages, ", "))
		}
	}
	for _, t := range allImages {
		if !slices.Contains(targets, t) {
			continue
		}
		start := time.Now()
		ref := fmt.Sprintf("%s:v%s", s.ref(imageNames[t]), s.version)
		idx, sboms, err := s.buildIndex(ctx, t, ref)
		if err != nil {
			return fmt.Errorf("%s image: %w", t, err)
		}
		if err := images.WriteLayout(s.layoutDir(t), idx, ref, sboms...); err != nil {
			return fmt.Errorf("%s image: %w", t, err)
		}
		digest, err := idx.Digest()
		if err != nil {
			return err
		}
		fmt.Printf("%-11s %s@%s (%s, %s)\n", t, s.ref(imageNames[t]), digest, s.layoutDir(t), time.Since(start).Round(100*time.Millisecond))
	}
	return nil
}

// buildIndex builds one image for every platform, each with its SBOM (an artifact
// that refers to it), which names the image as ref.
func (s *settings) buildIndex(ctx context.Context, target, ref string) (v1.ImageIndex, []v1.Image, error) {
	var build func(p images.Platform) (images.Spec, error)
	switch target {
	case "operator":
		build = func(p images.Platform) (images.Spec, error) { return s.operatorSpec(ctx, p) }
	case "scorecard":
		build = func(p images.Platform) (images.Spec, error) { return s.scorecardSpec(ctx, p) }
	case "must-gather":
		build = func(p images.Platform) (images.Spec, error) { return s.mustGatherSpec(ctx, p) }
	case "bundle":
		build = func(images.Platform) (images.Spec, error) { return s.bundleSpec() }
	case "catalog":
		cache, err := s.serveCache(ctx)
		if err != nil {
			return nil, nil, err
		}
		build = func(p images.Platform) (images.Spec, error) { return s.catalogSpec(ctx, p, cache) }
	default:
		return nil, nil, fmt.Errorf("unknown image %q", target)
	}
	return images.IndexWithSBOMs(s.platforms, build, ref, "v"+s.version)
}

// printDigest prints the digest of the image index in an OCI layout.
func printDigest(dir string) error {
	d, err := images.LayoutDigest(dir)
	if err != nil {
		return err
	}
	fmt.Println(d)
	return nil
}

// printSBOMDigests prints the digest of every SBOM an OCI layout holds beside its
// image, one a line, so that verify-images-reproducible compares them too.
func printSBOMDigests(dir string) error {
	sboms, err := images.ReadReferrers(dir)
	if err != nil {
		return err
	}
	if len(sboms) == 0 {
		return fmt.Errorf("image layout %s holds no SBOM", dir)
	}
	for _, sbom := range sboms {
		d, err := sbom.Digest()
		if err != nil {
			return err
		}
		fmt.Println(d)
	}
	return nil
}
