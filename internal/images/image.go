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

package images

import (
	"errors"
	"fmt"
	"sync"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Platform is an operating system and CPU architecture an image runs on.
type Platform struct {
	OS           string
	Architecture string
	// Variant is the CPU variant, such as v8 for arm64.
	Variant string
}

// String names the platform as docker and the OCI specs do: linux/arm64/v8.
func (p Platform) String() string {
	s := p.OS + "/" + p.Architecture
	if p.Variant != "" {
		s += "/" + p.Variant
	}
	return s
}

// LinuxAMD64 and LinuxARM64 are the platforms the release images are built for.
var (
	LinuxAMD64 = Platform{OS: "linux", Architecture: "amd64"}
	LinuxARM64 = Platform{OS: "linux", Architecture: "arm64", Variant: "v8"}
)

// LayerSpec is one layer of an image and the history line that explains it.
type LayerSpec struct {
	Files []File
	// CreatedBy is recorded in the image history, as a Dockerfile instruction would be.
	CreatedBy string
}

// Spec describes an image for one platform.
type Spec struct {
	Platform Platform
	Layers   []LayerSpec
	// Created stamps the config, the history and every file's modification time.
	Created    time.Time
	Entrypoint []string
	Cmd        []string
	Env        []string
	// User is numeric (UID:GID), so that Kubernetes can verify runAsNonRoot.
	User       string
	WorkingDir string
	Labels     map[string]string
}

// Build assembles the image.
func Build(spec Spec) (v1.Image, error) {
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	created := v1.Time{Time: spec.Created.UTC()}
	dirs := map[string]File{}
	for _, ls := range spec.Layers {
		layer, err := newLayer(ls.Files, spec.Created, dirs)
		if err != nil {
			return nil, err
		}
		for _, f := range ls.Files {
			if f.Dir {
				dirs[f.Path] = f
			}
		}
		img, err = mutate.Append(img, mutate.Addendum{
			Layer:     layer,
			MediaType: types.OCILayer,
			History:   v1.History{Created: created, CreatedBy: ls.CreatedBy},
		})
		if err != nil {
			return nil, err
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS = spec.Platform.OS
	cf.Architecture = spec.Platform.Architecture
	cf.Variant = spec.Platform.Variant
	cf.Created = created
	cf.Config = v1.Config{
		Entrypoint: spec.Entrypoint,
		Cmd:        spec.Cmd,
		Env:        spec.Env,
		User:       spec.User,
		WorkingDir: spec.WorkingDir,
		Labels:     spec.Labels,
	}
	return mutate.ConfigFile(img, cf)
}

// Index builds one image per platform with build and puts them in an image index, the
// form a registry serves multi-platform images in. The platforms are built at the same
// time (compressing a layer uses one core); the index lists them in the given order,
// so the result does not depend on which finishes first.
func Index(platforms []Platform, build func(Platform) (Spec, error)) (v1.ImageIndex, error) {
	idx, _, err := buildIndex(platforms, build)
	return idx, err
}

// IndexWithSBOMs is Index, with an SBOM for each platform's image (SBOM, of the files
// its layers hold), attached to it as an OCI 1.1 artifact whose subject is that image.
// image names the images in the SBOMs (a reference without a digest).
func IndexWithSBOMs(platforms []Platform, build func(Platform) (Spec, error), image, version string) (v1.ImageIndex, []v1.Image, error) {
	idx, specs, err := buildIndex(platforms, build)
	if err != nil {
		return nil, nil, err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, nil, err
	}
	sboms := make([]v1.Image, len(specs))
	for i, spec := range specs {
		var files []File
		for _, l := range spec.Layers {
			files = append(files, l.Files...)
		}
		doc, err := SBOM(SBOMInfo{Image: image, Version: version, Platform: spec.Platform, Created: spec.Created}, files)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: the SBOM: %w", spec.Platform, err)
		}
		if sboms[i], err = SBOMArtifact(doc, m.Manifests[i], spec.Created); err != nil {
			return nil, nil, err
		}
	}
	return idx, sboms, nil
}

// buildIndex builds the platforms' images and their index, and returns the specs too.
func buildIndex(platforms []Platform, build func(Platform) (Spec, error)) (v1.ImageIndex, []Spec, error) {
	imgs := make([]v1.Image, len(platforms))
	specs := make([]Spec, len(platforms))
	errs := make([]error, len(platforms))
	var wg sync.WaitGroup
	for i, p := range platforms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spec, err := build(p)
			if err == nil {
				spec.Platform = p
				specs[i] = spec
				imgs[i], err = Build(spec)
			}
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", p, err)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	adds := make([]mutate.IndexAddendum, len(platforms))
	for i, p := range platforms {
		adds[i] = mutate.IndexAddendum{
			Add: imgs[i],
			Descriptor: v1.Descriptor{
				MediaType: types.OCIManifestSchema1,
				Platform:  &v1.Platform{OS: p.OS, Architecture: p.Architecture, Variant: p.Variant},
			},
		}
	}
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...), specs, nil
}
