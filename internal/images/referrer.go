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
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// emptyConfigMediaType is OCI 1.1's empty descriptor: an artifact's config that says
// nothing (the two bytes "{}").
const emptyConfigMediaType types.MediaType = "application/vnd.oci.empty.v1+json"

// SBOMTitle is the file name an SBOM artifact gives its one layer, which tools such
// as oras use when they pull it.
const SBOMTitle = "sbom.spdx.json"

// SBOMArtifact is an OCI 1.1 artifact (an image manifest with an artifactType, the
// empty config and the SBOM as its one layer) whose subject is the image it
// describes: a registry with the referrers API lists it among that image's
// referrers, as cosign, oras and Trivy look for SBOMs.
func SBOMArtifact(sbom []byte, subject v1.Descriptor, created time.Time) (v1.Image, error) {
	layer := static.NewLayer(sbom, types.MediaType(SBOMMediaType))
	digest, err := layer.Digest()
	if err != nil {
		return nil, err
	}
	config := []byte("{}")
	configDigest, _, err := v1.SHA256(bytes.NewReader(config))
	if err != nil {
		return nil, err
	}
	subject = v1.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size}
	m := v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		ArtifactType:  SBOMMediaType,
		Config:        v1.Descriptor{MediaType: emptyConfigMediaType, Digest: configDigest, Size: int64(len(config))},
		Layers: []v1.Descriptor{{MediaType: types.MediaType(SBOMMediaType), Digest: digest, Size: int64(len(sbom)),
			Annotations: map[string]string{"org.opencontainers.image.title": SBOMTitle}}},
		Subject:     &subject,
		Annotations: map[string]string{"org.opencontainers.image.created": created.UTC().Format(time.RFC3339)},
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return partial.CompressedToImage(&artifact{manifest: raw, config: config, layer: layer})
}

// artifact is the minimal image core SBOMArtifact builds on.
type artifact struct {
	manifest, config []byte
	layer            v1.Layer
}

func (a *artifact) RawConfigFile() ([]byte, error)      { return a.config, nil }
func (a *artifact) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }
func (a *artifact) RawManifest() ([]byte, error)        { return a.manifest, nil }

func (a *artifact) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	if d, _ := a.layer.Digest(); d == h {
		return a.layer, nil
	}
	return nil, fmt.Errorf("artifact has no layer %s", h)
}
