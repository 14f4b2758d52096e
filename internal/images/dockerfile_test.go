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

import "testing"

func TestParseScratchDockerfileReadsLabelsAndCopies(t *testing.T) {
	df, err := ParseScratchDockerfile([]byte(`FROM scratch

# Core bundle labels.
LABEL operators.operatorframework.io.bundle.mediatype.v1=registry+v1
LABEL a=1 b="two words"
COPY bundle/manifests /manifests/
COPY bundle/metadata /metadata/
`))
	if err != nil {
		t.Fatal(err)
	}
	if df.Labels["operators.operatorframework.io.bundle.mediatype.v1"] != "registry+v1" || df.Labels["a"] != "1" || df.Labels["b"] != "two words" {
		t.Errorf("labels %v", df.Labels)
	}
	if len(df.Copies) != 2 || df.Copies[1] != (Copy{Source: "bundle/metadata", Dest: "/metadata/"}) {
		t.Errorf("copies %v", df.Copies)
	}
}

func TestParseScratchDockerfileRefusesWhatItCannotReproduce(t *testing.T) {
	for _, df := range []string{
		"FROM alpine\nCOPY a /a\n",
		"LABEL a=b\n",
		"FROM scratch\nRUN echo hi\n",
		"FROM scratch\nCOPY --chown=1:1 a /a\n",
		"FROM scratch\nLABEL novalue\n",
		"FROM scratch\nFROM scratch\n",
	} {
		if _, err := ParseScratchDockerfile([]byte(df)); err == nil {
			t.Errorf("accepted %q", df)
		}
	}
}
