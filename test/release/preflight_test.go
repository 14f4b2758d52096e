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
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// preflightExceptions are the checks of Red Hat's `preflight check container` that the
// operator image fails on purpose, each with the reason docs/releasing.md gives. The
// test fails for any other failure, and for an exception that no longer fails.
var preflightExceptions = map[string]string{
	// The images are built FROM scratch by cmd/images: a static Go binary, CA
	// certificates and the accounts, with no distribution and no package manager.
	// Certification requires a UBI base; OperatorHub's community catalog does not.
	"BasedOnUbi": "built FROM scratch, not on UBI",
}

// preflightCannotRun are the checks that cannot run on an image without an RPM
// database (they read the installed packages from it): preflight reports them as
// errors. The test fails for any other error, and when one of these starts running.
var preflightCannotRun = map[string]string{
	"HasModifiedFiles":        "no RPM database: no package's files to compare",
	"HasNoProhibitedPackages": "no RPM database: no packages at all",
}

// preflightReport is the part of preflight's JSON answer the test reads.
type preflightReport struct {
	Image   string `json:"image"`
	Results struct {
		Passed []preflightCheck `json:"passed"`
		Failed []preflightCheck `json:"failed"`
		Errors []preflightCheck `json:"errors"`
	} `json:"results"`
}

type preflightCheck struct {
	Name       string `json:"name"`
	Suggestion string `json:"suggestion"`
}

func names(checks []preflightCheck) []string {
	var out []string
	for _, c := range checks {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}

// TestPreflightPassesTheOperatorImageBarItsDocumentedExceptions pushes the operator
// image to a local registry with its version tag, as a release does, and runs
// preflight against it. Preflight asks Red Hat's Pyxis whether a certified UBI image
// holds the image's layers; here a local stand-in answers as Pyxis does for layers it
// does not know (no image), so that no request leaves the machine.
func TestPreflightPassesTheOperatorImageBarItsDocumentedExceptions(t *testing.T) {
	tool := os.Getenv("PREFLIGHT")
	if tool == "" {
		t.Fatal("PREFLIGHT is not set: make test-release builds preflight and sets it")
	}
	srv := httptest.NewServer(quietRegistry())
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	idx, _, err := images.ReadLayout(layoutDir(t, "operator"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ref, err := images.Push(ctx, idx, u.Host+"/ec2-operator/ec2-operator", authn.DefaultKeychain)
	if err != nil {
		t.Fatal(err)
	}
	if err := images.Tag(ctx, ref, "v"+makeVar(t, "VERSION"), idx, authn.DefaultKeychain); err != nil {
		t.Fatal(err)
	}
	pyxis, certFile := fakePyxis(t)
	work := t.TempDir()
	cmd := exec.Command(tool, "check", "container", ref.String(), "--insecure", "--platform", "amd64",
		"--artifacts", filepath.Join(work, "artifacts"), "--pyxis-host", pyxis)
	cmd.Dir = work // preflight writes its log file in the working directory
	cmd.Env = append(os.Environ(), "SSL_CERT_FILE="+certFile, "DOCKER_CONFIG="+t.TempDir())
	out, err := cmd.Output()
	var report preflightReport
	if jerr := json.Unmarshal(out, &report); jerr != nil {
		log, _ := os.ReadFile(filepath.Join(work, "preflight.log"))
		t.Fatalf("preflight printed no report (%v, %v): %s\n%s", err, jerr, out, log)
	}
	t.Logf("preflight %s: passed %v, failed %v, errors %v", report.Image, names(report.Results.Passed),
		names(report.Results.Failed), names(report.Results.Errors))
	errored := names(report.Results.Errors)
	for _, name := range errored {
		if _, ok := preflightCannotRun[name]; !ok {
			t.Errorf("preflight could not run its check %s", name)
		}
	}
	for name := range preflightCannotRun {
		if !slices.Contains(errored, name) {
			t.Errorf("preflight check %s runs now: drop it from preflightCannotRun and docs/releasing.md", name)
		}
	}
	failed := names(report.Results.Failed)
	for _, c := range report.Results.Failed {
		if _, ok := preflightExceptions[c.Name]; !ok {
			t.Errorf("preflight check %s fails: %s", c.Name, c.Suggestion)
		}
	}
	for name := range preflightExceptions {
		if !slices.Contains(failed, name) {
			t.Errorf("preflight check %s passes now: drop its exception here and in docs/releasing.md", name)
		}
	}
	if len(report.Results.Passed) < 5 {
		t.Errorf("preflight passed only %v", names(report.Results.Passed))
	}
}

// fakePyxis serves the one Pyxis query `check container` makes (find_images by
// uncompressed top layer, in Red Hat's registry), answering as Pyxis does for layers
// no certified image holds: an empty page. It returns the host:port to give
// --pyxis-host, and a CA file that trusts it (preflight speaks HTTPS to Pyxis).
func fakePyxis(t *testing.T) (host, caFile string) {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/graphql/" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":{"find_images":{"data":[],"error":null,"total":0,"page":0}}}`))
	}))
	t.Cleanup(srv.Close)
	caFile = filepath.Join(t.TempDir(), "pyxis-ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(srv.URL, "https://"), caFile
}
