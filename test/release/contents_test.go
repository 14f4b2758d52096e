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

package release

import (
	"archive/tar"
	"bytes"
	"crypto/x509"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// entry is one file of an image's flattened filesystem.
type entry struct {
	mode     int64
	dir      bool
	uid, gid int
	data     []byte
	// link is a symbolic link's target.
	link string
}

// filesystem reads an image's flattened filesystem.
func filesystem(t *testing.T, img v1.Image) map[string]entry {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	out := map[string]entry{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out["/"+strings.TrimSuffix(hdr.Name, "/")] = entry{mode: hdr.Mode, dir: hdr.Typeflag == tar.TypeDir, uid: hdr.Uid, gid: hdr.Gid, data: data, link: hdr.Linkname}
	}
}

// everyPlatform runs check on the image of each platform the release supports.
func everyPlatform(t *testing.T, name string, check func(t *testing.T, img v1.Image, cf *v1.ConfigFile)) {
	t.Helper()
	idx, _, err := images.ReadLayout(layoutDir(t, name))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []images.Platform{images.LinuxAMD64, images.LinuxARM64} {
		t.Run(strings.ReplaceAll(p.String(), "/", "-"), func(t *testing.T) {
			img, err := images.ImageFor(idx, p)
			if err != nil {
				t.Fatal(err)
			}
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			if cf.OS != p.OS || cf.Architecture != p.Architecture {
				t.Errorf("config platform %s/%s", cf.OS, cf.Architecture)
			}
			check(t, img, cf)
		})
	}
}

// requiredLabels are the labels OpenShift's and Red Hat's container certification read,
// and the OCI annotation keys the issue tracker and registries show.
var requiredLabels = []string{
	"name", "vendor", "version", "release", "summary", "description", "maintainer",
	"io.k8s.display-name", "io.k8s.description", "io.openshift.tags",
	"org.opencontainers.image.source", "org.opencontainers.image.revision",
	"org.opencontainers.image.version", "org.opencontainers.image.licenses",
}

// checkRunnableImage checks what every image that runs a process must have.
func checkRunnableImage(t *testing.T, fsys map[string]entry, cf *v1.ConfigFile) {
	t.Helper()
	if cf.Config.User != "65532:65532" {
		t.Errorf("user %q, want the numeric non-root 65532:65532", cf.Config.User)
	}
	for _, l := range requiredLabels {
		if cf.Config.Labels[l] == "" {
			t.Errorf("label %s is missing", l)
		}
	}
	if v := cf.Config.Labels["org.opencontainers.image.revision"]; !regexp.MustCompile(`^[0-9a-f]{40}(-dirty)?$`).MatchString(v) {
		t.Errorf("revision label %q is not a commit", v)
	}
	if !strings.Contains(string(fsys["/etc/passwd"].data), "nonroot:x:65532:65532:") ||
		!strings.Contains(string(fsys["/etc/group"].data), "nonroot:x:65532:") {
		t.Error("/etc/passwd or /etc/group lacks the nonroot 65532 entry")
	}
	ca := fsys[images.CACertificatesPath]
	pool := x509.NewCertPool()
	if ca.mode != 0o644 || !pool.AppendCertsFromPEM(ca.data) {
		t.Errorf("%s: mode %o, not a PEM CA bundle", images.CACertificatesPath, ca.mode)
	}
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fsys["/licenses/LICENSE"].data, license) {
		t.Error("/licenses/LICENSE is not the project's LICENSE")
	}
	if tmp := fsys["/tmp"]; !tmp.dir || tmp.mode != 0o1777 {
		t.Errorf("/tmp: dir %v mode %o, want a sticky world-writable directory", tmp.dir, tmp.mode)
	}
	if home := fsys["/home/nonroot"]; !home.dir || home.uid != 65532 {
		t.Errorf("/home/nonroot: dir %v owner %d", home.dir, home.uid)
	}
	// No package manager: nothing an attacker could use inside to add programs.
	for _, p := range []string{"/usr/bin/apt", "/sbin/apk", "/usr/bin/dnf"} {
		if _, ok := fsys[p]; ok {
			t.Errorf("%s is in the image", p)
		}
	}
	for p, e := range fsys {
		if !e.dir && e.link == "" && e.mode&0o022 != 0 {
			t.Errorf("%s is writable by others than its owner (mode %o)", p, e.mode)
		}
	}
}

// checkNoShell: the images that run the operator and its tests have no shell, so an
// attacker who gets a process running there has nothing to script with.
func checkNoShell(t *testing.T, fsys map[string]entry) {
	t.Helper()
	for _, p := range []string{"/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash"} {
		if _, ok := fsys[p]; ok {
			t.Errorf("%s is in the image", p)
		}
	}
}

// checkStatic: a static binary has no program interpreter (ld.so), so no libc is needed.
func checkStatic(t *testing.T, name string, e entry) {
	t.Helper()
	if e.mode != 0o755 || !bytes.HasPrefix(e.data, []byte("\x7fELF")) {
		t.Errorf("%s: mode %o, ELF %v", name, e.mode, bytes.HasPrefix(e.data, []byte("\x7fELF")))
	}
	if bytes.Contains(e.data, []byte("/lib64/ld-linux")) || bytes.Contains(e.data, []byte("/lib/ld-linux-aarch64")) {
		t.Errorf("%s is dynamically linked", name)
	}
}

func TestOperatorImageHoldsTheStaticManagerAndWhatItNeedsToRun(t *testing.T) {
	everyPlatform(t, "operator", func(t *testing.T, img v1.Image, cf *v1.ConfigFile) {
		fsys := filesystem(t, img)
		checkRunnableImage(t, fsys, cf)
		checkNoShell(t, fsys)
		if !slices.Equal(cf.Config.Entrypoint, []string{"/manager"}) {
			t.Errorf("entrypoint %v, want [/manager]", cf.Config.Entrypoint)
		}
		checkStatic(t, "/manager", fsys["/manager"])
		if cf.Config.Labels["version"] != "v"+makeVar(t, "VERSION") {
			t.Errorf("version label %q, want v%s", cf.Config.Labels["version"], makeVar(t, "VERSION"))
		}
	})
}

func TestScorecardImageHoldsTheCustomTest(t *testing.T) {
	everyPlatform(t, "scorecard", func(t *testing.T, img v1.Image, cf *v1.ConfigFile) {
		fsys := filesystem(t, img)
		checkRunnableImage(t, fsys, cf)
		checkNoShell(t, fsys)
		if e := fsys["/usr/local/bin/ec2-operator-scorecard"]; e.mode != 0o755 {
			t.Errorf("the scorecard test binary: mode %o", e.mode)
		}
		if !slices.Contains(cf.Config.Env, "PATH=/usr/local/bin:/usr/bin:/bin") {
			t.Errorf("env %v: scorecard's entrypoint names the command, which PATH must find", cf.Config.Env)
		}
	})
}

// TestMustGatherImageHoldsTheGatherAndTheCommandsOcRunsInIt: oc adm must-gather runs
// /bin/bash and, through it, /usr/bin/gather, sleep, sync and the disk usage checker's
// df, awk, sed and pkill, and copies the archive out with tar; every one of them is
// the static gather binary, which dispatches on its name, and nothing else runs there.
func TestMustGatherImageHoldsTheGatherAndTheCommandsOcRunsInIt(t *testing.T) {
	everyPlatform(t, "must-gather", func(t *testing.T, img v1.Image, cf *v1.ConfigFile) {
		fsys := filesystem(t, img)
		checkRunnableImage(t, fsys, cf)
		checkStatic(t, "/usr/bin/gather", fsys["/usr/bin/gather"])
		if !slices.Equal(cf.Config.Entrypoint, []string{"/usr/bin/gather"}) {
			t.Errorf("entrypoint %v, want [/usr/bin/gather]", cf.Config.Entrypoint)
		}
		want := []string{"/bin/bash", "/bin/sh", "/usr/bin/awk", "/usr/bin/df", "/usr/bin/pkill", "/usr/bin/sed",
			"/usr/bin/sleep", "/usr/bin/sync", "/usr/bin/tar"}
		var links, binaries []string
		for p, e := range fsys {
			switch {
			case e.link != "":
				links = append(links, p)
				if e.link != "/usr/bin/gather" {
					t.Errorf("%s links to %s, not the gather binary", p, e.link)
				}
			case !e.dir && e.mode&0o111 != 0:
				binaries = append(binaries, p)
			}
		}
		slices.Sort(links)
		if !slices.Equal(links, want) {
			t.Errorf("links %v, want %v", links, want)
		}
		if !slices.Equal(binaries, []string{"/usr/bin/gather"}) {
			t.Errorf("executables %v, want only /usr/bin/gather", binaries)
		}
		if !slices.Contains(cf.Config.Env, "PATH=/usr/local/bin:/usr/bin:/bin") {
			t.Errorf("env %v: oc's scripts call sleep, df and tar by name", cf.Config.Env)
		}
	})
}

// dockerfileImage is what a Dockerfile says about the final image.
type dockerfileImage struct {
	labels          map[string]string
	entrypoint, cmd []string
	// copies maps image paths to build-context paths.
	copies map[string]string
}

// readDockerfile reads the LABEL, ENTRYPOINT, CMD and final-stage COPY (from the
// build context) instructions of a generated Dockerfile.
func readDockerfile(t *testing.T, name string) dockerfileImage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(manifestsRoot, name))
	if err != nil {
		t.Fatal(err)
	}
	out := dockerfileImage{labels: map[string]string{}, copies: map[string]string{}}
	for _, line := range strings.Split(string(data), "\n") {
		instr, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch strings.ToUpper(instr) {
		case "FROM":
			out.copies = map[string]string{} // only the final stage counts
		case "LABEL":
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				out.labels[k] = strings.Trim(v, `"`)
			}
		case "ENTRYPOINT":
			out.entrypoint = jsonArray(t, rest)
		case "CMD":
			out.cmd = jsonArray(t, rest)
		case "COPY", "ADD":
			f := strings.Fields(rest)
			if len(f) == 2 {
				out.copies[path.Clean(f[1])] = f[0]
			}
		}
	}
	return out
}

func jsonArray(t *testing.T, s string) []string {
	t.Helper()
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") {
		t.Fatalf("%q is not in exec form", s)
	}
	var out []string
	for _, f := range strings.Split(strings.Trim(s, "[]"), ",") {
		out = append(out, strings.Trim(strings.TrimSpace(f), `"`))
	}
	return out
}

// sameTree fails unless the image holds exactly the files of the build-context
// directory src under dest.
func sameTree(t *testing.T, fsys map[string]entry, src, dest string) {
	t.Helper()
	want := map[string][]byte{}
	err := filepath.WalkDir(filepath.Join(manifestsRoot, src), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(manifestsRoot, src), p)
		data, err := os.ReadFile(p)
		want[path.Join(dest, filepath.ToSlash(rel))] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range want {
		if got, ok := fsys[p]; !ok || !bytes.Equal(got.data, data) {
			t.Errorf("%s: not in the image as in %s", p, src)
		}
	}
	for p, e := range fsys {
		if strings.HasPrefix(p, dest+"/") && !e.dir {
			if _, ok := want[p]; !ok {
				t.Errorf("%s is in the image but not in %s", p, src)
			}
		}
	}
}

func TestBundleImageIsWhatBundleDockerfileBuilds(t *testing.T) {
	df := readDockerfile(t, "bundle.Dockerfile")
	if len(df.copies) == 0 || len(df.labels) == 0 {
		t.Fatal("bundle.Dockerfile has no COPY or LABEL")
	}
	everyPlatform(t, "bundle", func(t *testing.T, img v1.Image, cf *v1.ConfigFile) {
		if !mapsEqual(cf.Config.Labels, df.labels) {
			t.Errorf("labels differ from bundle.Dockerfile:\nimage:      %v\nDockerfile: %v", cf.Config.Labels, df.labels)
		}
		fsys := filesystem(t, img)
		for dest, src := range df.copies {
			sameTree(t, fsys, src, dest)
		}
		for p, e := range fsys {
			if e.dir {
				continue
			}
			covered := false
			for dest := range df.copies {
				covered = covered || strings.HasPrefix(p, dest+"/")
			}
			if !covered {
				t.Errorf("%s is in the bundle image but bundle.Dockerfile copies nothing there", p)
			}
		}
	})
}

func TestCatalogImageIsWhatCatalogDockerfileBuildsAndServesWithProbes(t *testing.T) {
	df := readDockerfile(t, "catalog.Dockerfile")
	everyPlatform(t, "catalog", func(t *testing.T, img v1.Image, cf *v1.ConfigFile) {
		for k, v := range df.labels {
			if cf.Config.Labels[k] != v {
				t.Errorf("label %s = %q, catalog.Dockerfile says %q", k, cf.Config.Labels[k], v)
			}
		}
		if !slices.Equal(cf.Config.Entrypoint, df.entrypoint) || !slices.Equal(cf.Config.Cmd, df.cmd) {
			t.Errorf("entrypoint %v cmd %v, catalog.Dockerfile says %v %v", cf.Config.Entrypoint, cf.Config.Cmd, df.entrypoint, df.cmd)
		}
		fsys := filesystem(t, img)
		checkRunnableImage(t, fsys, cf)
		sameTree(t, fsys, "catalog", "/configs")
		for _, bin := range []string{"/bin/opm", "/bin/grpc_health_probe"} {
			if e := fsys[bin]; e.mode != 0o755 || !bytes.HasPrefix(e.data, []byte("\x7fELF")) {
				t.Errorf("%s: mode %o", bin, e.mode)
			}
		}
		// opm's JSON cache format, which is deterministic (its default one is not).
		if _, ok := fsys["/tmp/cache/cache/packages.json"]; !ok || len(fsys["/tmp/cache/digest"].data) == 0 {
			t.Error("the opm serve cache is not pre-built in /tmp/cache in the JSON format")
		}
	})
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
