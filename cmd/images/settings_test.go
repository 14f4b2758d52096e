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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCreationTimeIsTheReleaseDateUnlessSourceDateEpochIsSet(t *testing.T) {
	got, err := creationTime("2026-11-30T00:00:00Z", "")
	if err != nil || !got.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("release date: %s %v", got, err)
	}
	got, err = creationTime("2026-11-30T00:00:00Z", "1700000000")
	if err != nil || got.Unix() != 1700000000 {
		t.Errorf("SOURCE_DATE_EPOCH: %s %v", got, err)
	}
	if _, err := creationTime("yesterday", ""); err == nil {
		t.Error("accepted a date that is not RFC 3339")
	}
	if _, err := creationTime("", "soon"); err == nil {
		t.Error("accepted a SOURCE_DATE_EPOCH that is not a number")
	}
}

func TestPlatformsAreLinuxAMD64AndARM64Only(t *testing.T) {
	for _, ok := range []string{"linux/amd64", "linux/arm64", "linux/arm64/v8"} {
		if _, err := parsePlatform(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"windows/amd64", "linux/s390x", ""} {
		if _, err := parsePlatform(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// gitRepo makes a repository with the operator's source paths committed.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range []string{"go.mod", "internal/x.go", "bundle/manifests/csv.yaml"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "add", "go.mod", "internal")
	commit(t, dir, "sources")
	return dir
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func commit(t *testing.T, dir, msg string) {
	t.Helper()
	gitRun(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", msg)
}

func TestSourceRevisionIsTheLastCommitOfTheSourcesNotOfTheBundle(t *testing.T) {
	dir := gitRepo(t)
	sources := gitRun(t, dir, "rev-parse", "HEAD")
	// A commit that only records the bundle (the digests) keeps the revision, so the
	// images it pins stay the same.
	gitRun(t, dir, "add", "bundle")
	commit(t, dir, "bundle")
	got, err := sourceRevision(dir)
	if err != nil || got != sources {
		t.Fatalf("revision %q (%v), want the sources' commit %s", got, err, sources)
	}
	// Tests do not change the operator.
	if err := os.WriteFile(filepath.Join(dir, "internal", "x_test.go"), []byte("test"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "add", "internal")
	commit(t, dir, "a test")
	if got, _ := sourceRevision(dir); got != sources {
		t.Errorf("revision %q after a test-only commit, want %s", got, sources)
	}
	if err := os.WriteFile(filepath.Join(dir, "internal", "x.go"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := sourceRevision(dir); got != sources+"-dirty" {
		t.Errorf("revision of changed sources %q, want %s-dirty", got, sources)
	}
}

func TestSourceRevisionRefusesAShallowClone(t *testing.T) {
	dir := gitRepo(t)
	shallow := filepath.Join(t.TempDir(), "shallow")
	if out, err := exec.Command("git", "clone", "-q", "--depth=1", "file://"+dir, shallow).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := sourceRevision(shallow); err == nil || !strings.Contains(err.Error(), "unshallow") {
		t.Errorf("a shallow clone gave %v, want a refusal that says git fetch --unshallow", err)
	}
}

func TestCopyTreeMapsADirectoryUnderItsDestinationWithFixedModes(t *testing.T) {
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "sub", "f.yaml"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	files, err := copyTree(src, "/manifests/")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, f := range files {
		got[f.Path] = f.Mode
	}
	if got["/manifests"] != 0o755 || got["/manifests/sub"] != 0o755 || got["/manifests/sub/f.yaml"] != 0o644 || len(got) != 3 {
		t.Errorf("files %v", got)
	}
}
