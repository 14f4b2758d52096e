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
	imgs := make([]v1.Image, len(platforms))
	errs := make([]error, len(platforms))
	var wg sync.WaitGroup
	for i, p := range platforms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spec, err := build(p)
			if err == nil {
				spec.Platform = p
				imgs[i], err = Build(spec)
			}
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", p, err)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
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
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...), nil
}
