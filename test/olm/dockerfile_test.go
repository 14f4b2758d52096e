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

package olm

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfileBuildsAStaticBinaryIntoANonRootMinimalImage checks what can be checked
// without a container engine: a builder stage and a distroless runtime stage, a static
// -trimpath build of the manager package, every source file of that package copied in,
// and a numeric non-root USER (restricted pod security needs runAsNonRoot to be
// verifiable from the image).
func TestDockerfileBuildsAStaticBinaryIntoANonRootMinimalImage(t *testing.T) {
	data, err := os.ReadFile(path("Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	// Continuation lines belong to the instruction they continue.
	df := strings.ReplaceAll(string(data), "\\\n", " ")
	froms := regexp.MustCompile(`(?m)^FROM\s+(\S+)`).FindAllStringSubmatch(df, -1)
	if len(froms) < 2 {
		t.Fatalf("want a multi-stage build, found %d FROM lines", len(froms))
	}
	if runtime := froms[len(froms)-1][1]; !strings.HasPrefix(runtime, "gcr.io/distroless/static") &&
		!strings.HasPrefix(runtime, "registry.access.redhat.com/ubi9/ubi-micro") {
		t.Errorf("runtime image %s is not a minimal static image", runtime)
	}
	users := regexp.MustCompile(`(?m)^USER\s+(\S+)`).FindAllStringSubmatch(df, -1)
	if len(users) == 0 || !regexp.MustCompile(`^[1-9][0-9]*(:[0-9]+)?$`).MatchString(users[len(users)-1][1]) {
		t.Errorf("the runtime stage does not run as a numeric non-root USER: %v", users)
	}
	build := regexp.MustCompile(`(?m)^RUN .*go build .*$`).FindString(df)
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-o manager", "./cmd"} {
		if !strings.Contains(build, want) {
			t.Errorf("the go build line lacks %q: %s", want, build)
		}
	}
	copied := regexp.MustCompile(`(?m)^COPY\s+(\S+)\s+\S+$`).FindAllStringSubmatch(df, -1)
	isCopied := func(file string) bool {
		for _, c := range copied {
			src := strings.TrimSuffix(c[1], "/")
			if file == src || strings.HasPrefix(file, src+"/") {
				return true
			}
		}
		return false
	}
	sources, _ := filepath.Glob(path("cmd/*.go"))
	if len(sources) == 0 {
		t.Fatal("no sources in cmd/")
	}
	for _, f := range sources {
		rel, _ := filepath.Rel(root, f)
		if !strings.HasSuffix(rel, "_test.go") && !isCopied(rel) {
			t.Errorf("the image build does not copy %s", rel)
		}
	}
	for _, dir := range []string{"api", "internal", "go.mod", "go.sum"} {
		if !isCopied(dir) {
			t.Errorf("the image build does not copy %s", dir)
		}
	}
	if !strings.Contains(df, `ENTRYPOINT ["/manager"]`) {
		t.Error(`ENTRYPOINT is not ["/manager"]`)
	}
}
