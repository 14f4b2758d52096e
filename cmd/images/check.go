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
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// Where the generated files name the images by digest.
const (
	csvPath       = "bundle/manifests/ec2-operator.clusterserviceversion.yaml"
	scorecardPath = "bundle/tests/scorecard/config.yaml"
	catalogPath   = "catalog/ec2-operator/catalog.yaml"
)

// reference is one image that a generated file must name by digest.
type reference struct {
	target, file string
}

// references are the digest pins between the images: the CSV names the operator and
// must-gather images, the scorecard configuration the scorecard image, the catalog
// the bundle.
var references = []reference{
	{"operator", csvPath},
	{"must-gather", csvPath},
	{"scorecard", scorecardPath},
	{"bundle", catalogPath},
}

// checkReferences fails unless every generated file names, by digest, the image that
// is in the layouts now, that is unless the layouts were built from these very files.
// A push of images that bundle/ or catalog/ do not refer to would publish a catalog
// that installs something else.
func (s *settings) checkReferences() error {
	for _, r := range references {
		digest, err := images.LayoutDigest(s.layoutDir(r.target))
		if err != nil {
			return fmt.Errorf("%s image: %w (run make images)", r.target, err)
		}
		want := s.ref(imageNames[r.target]) + "@" + digest.String()
		data, err := os.ReadFile(filepath.Join(s.manifests, r.file))
		if err != nil {
			return err
		}
		if !bytes.Contains(data, []byte(want)) {
			return fmt.Errorf("%s does not name the %s image that was built (%s): the images and the bundle are out of step; run make bundle catalog images", r.file, r.target, want)
		}
		if n := strings.Count(string(data), s.ref(imageNames[r.target])+":"); n > 0 {
			return fmt.Errorf("%s names the %s image by tag %d times; every reference must be by digest", r.file, r.target, n)
		}
	}
	return nil
}
