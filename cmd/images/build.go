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
		idx, err := s.buildIndex(ctx, t)
		if err != nil {
			return fmt.Errorf("%s image: %w", t, err)
		}
		ref := fmt.Sprintf("%s:v%s", s.ref(imageNames[t]), s.version)
		if err := images.WriteLayout(s.layoutDir(t), idx, ref); err != nil {
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

// buildIndex builds one image for every platform.
func (s *settings) buildIndex(ctx context.Context, target string) (v1.ImageIndex, error) {
	switch target {
	case "operator":
		return images.Index(s.platforms, func(p images.Platform) (images.Spec, error) { return s.operatorSpec(ctx, p) })
	case "scorecard":
		return images.Index(s.platforms, func(p images.Platform) (images.Spec, error) { return s.scorecardSpec(ctx, p) })
	case "must-gather":
		return images.Index(s.platforms, func(p images.Platform) (images.Spec, error) { return s.mustGatherSpec(ctx, p) })
	case "bundle":
		return images.Index(s.platforms, func(images.Platform) (images.Spec, error) { return s.bundleSpec() })
	case "catalog":
		cache, err := s.serveCache(ctx)
		if err != nil {
			return nil, err
		}
		return images.Index(s.platforms, func(p images.Platform) (images.Spec, error) { return s.catalogSpec(ctx, p, cache) })
	}
	return nil, fmt.Errorf("unknown image %q", target)
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
