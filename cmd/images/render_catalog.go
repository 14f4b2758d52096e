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
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/google/go-containerregistry/pkg/registry"
	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/images"
)

// catalogRender says what render-catalog renders.
type catalogRender struct {
	// opm is the opm binary; template is opm's basic catalog template (the package,
	// its channels with replaces and skipRange, and one olm.bundle image per release);
	// out is the file-based catalog it writes.
	opm, template, out string
	// layouts are OCI layouts of bundle images that the template names by digest.
	layouts []string
	// pinCurrent points the template's last olm.bundle entry (the release being built)
	// at the first layout's digest and writes the template back.
	pinCurrent bool
}

// bundleRefPattern is a bundle image reference by digest, as the template names them.
var bundleRefPattern = regexp.MustCompile(`^(\s*(?:- )?image:\s*)(\S+/` + regexp.QuoteMeta(bundleImage) + `@sha256:[0-9a-f]{64})\s*$`)

// renderCatalog renders the catalog from opm's basic template (`opm alpha
// render-template basic`). opm pulls every bundle the template names; the bundle
// images come from OCI layouts here instead (the release being built has never been
// pushed, and build machines may reach no registry), served by an in-process registry
// for the length of the render under the same repository path and digest, and the
// catalog names them by their release references again.
func (s *settings) renderCatalog(ctx context.Context, r catalogRender) error {
	if len(r.layouts) == 0 {
		return errors.New("render-catalog needs at least one bundle image layout")
	}
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	local, first, err := s.serveLayouts(ctx, host, r.layouts)
	if err != nil {
		return err
	}

	tmpl, err := os.ReadFile(r.template)
	if err != nil {
		return err
	}
	if r.pinCurrent {
		if tmpl, err = pinLastBundle(tmpl, s.ref(bundleImage)+"@"+first); err != nil {
			return fmt.Errorf("%s: %w", r.template, err)
		}
		if err := os.WriteFile(r.template, tmpl, 0o644); err != nil {
			return err
		}
	}
	rewritten, err := s.localTemplate(tmpl, r.template, host, local)
	if err != nil {
		return err
	}
	rendered, err := runOPMRender(ctx, r.opm, rewritten)
	if err != nil {
		return err
	}
	catalog := strings.ReplaceAll(rendered, host+"/"+localPath(s.ref(bundleImage)), s.ref(bundleImage))
	if strings.Contains(catalog, host) {
		return fmt.Errorf("the rendered catalog still names the temporary registry %s", host)
	}
	if err := os.MkdirAll(filepath.Dir(r.out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(r.out, []byte(catalog), 0o644)
}

// serveLayouts pushes every bundle image layout to the registry at host, under the
// bundle image's repository path, so that opm can pull them by digest. It returns the
// digests it serves and the first layout's digest, which is the release being built.
func (s *settings) serveLayouts(ctx context.Context, host string, layouts []string) (map[string]bool, string, error) {
	local := map[string]bool{}
	var first string
	for _, dir := range layouts {
		idx, _, err := images.ReadLayout(dir)
		if err != nil {
			return nil, "", fmt.Errorf("bundle image layout %s: %w", dir, err)
		}
		ref, err := images.Push(ctx, idx, host+"/"+localPath(s.ref(bundleImage)), keychain)
		if err != nil {
			return nil, "", fmt.Errorf("serving %s for opm: %w", dir, err)
		}
		local[ref.DigestStr()] = true
		if first == "" {
			first = ref.DigestStr()
		}
	}
	return local, first, nil
}

// localTemplate is the template as opm reads it: every bundle reference points at the
// registry at host instead. A bundle that no layout holds is an error rather than a
// pull from the real registry, because render-catalog has to work offline; name is the
// template's file, for messages.
func (s *settings) localTemplate(tmpl []byte, name, host string, local map[string]bool) ([]byte, error) {
	var rewritten bytes.Buffer
	for _, line := range strings.SplitAfter(string(tmpl), "\n") {
		m := bundleRefPattern.FindStringSubmatch(strings.TrimRight(line, "\n"))
		if m == nil {
			rewritten.WriteString(line)
			continue
		}
		ref := m[2]
		digest := ref[strings.LastIndex(ref, "@")+1:]
		if !strings.HasPrefix(ref, s.ref(bundleImage)+"@") || !local[digest] {
			return nil, fmt.Errorf("%s names bundle %s, which no given layout holds (render-catalog works offline: give the layouts of every release's bundle)", name, ref)
		}
		fmt.Fprintf(&rewritten, "%s%s/%s@%s\n", m[1], host, localPath(s.ref(bundleImage)), digest)
	}
	if err := checkTemplate(rewritten.Bytes()); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rewritten.Bytes(), nil
}

// runOPMRender runs `opm alpha render-template basic` on the template in a scratch
// directory and returns the catalog it prints.
func runOPMRender(ctx context.Context, opm string, template []byte) (string, error) {
	work, err := os.MkdirTemp("", "render-catalog-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	// opm pulls with containers/image, which wants a signature policy. Every bundle is
	// named by digest, which the pull verifies, and comes from the layouts given.
	policy := filepath.Join(work, ".config", "containers", "policy.json")
	if err := os.MkdirAll(filepath.Dir(policy), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(policy, []byte(`{"default":[{"type":"insecureAcceptAnything"}]}`), 0o644); err != nil {
		return "", err
	}
	localTemplate := filepath.Join(work, "template.yaml")
	if err := os.WriteFile(localTemplate, template, 0o644); err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	// olm.csv.metadata instead of olm.bundle.object: OLM installs from the bundle image
	// (its unpack Job), so the catalog needs only what resolution and the console read
	// before the install, the CSV's metadata; the objects would quadruple its size.
	cmd := exec.CommandContext(ctx, opm, "alpha", "render-template", "basic", localTemplate, "--output", "yaml", "--use-http",
		"--migrate-level", "bundle-object-to-csv-metadata")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// opm keeps pulled images in a cache under HOME; keep it out of the user's.
	cmd.Env = append(os.Environ(), "HOME="+work)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("opm alpha render-template basic: %w\n%s", err, stderr.String())
	}
	return stdout.String(), nil
}

// localPath is a reference's repository path without its registry host.
func localPath(repository string) string {
	_, p, _ := strings.Cut(repository, "/")
	return p
}

// pinLastBundle points the template's last bundle reference at ref.
func pinLastBundle(tmpl []byte, ref string) ([]byte, error) {
	lines := strings.SplitAfter(string(tmpl), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if m := bundleRefPattern.FindStringSubmatch(strings.TrimRight(lines[i], "\n")); m != nil {
			lines[i] = m[1] + ref + "\n"
			return []byte(strings.Join(lines, "")), nil
		}
	}
	return nil, errors.New("no olm.bundle image to pin")
}

// checkTemplate makes sure the template is opm's basic template with bundles only by
// image, so that every bundle of the catalog comes from a bundle image.
func checkTemplate(data []byte) error {
	var t struct {
		Schema  string           `json:"schema"`
		Entries []map[string]any `json:"entries"`
	}
	if err := yaml.Unmarshal(data, &t); err != nil {
		return err
	}
	if t.Schema != "olm.template.basic" {
		return fmt.Errorf("schema %q, want olm.template.basic", t.Schema)
	}
	for _, e := range t.Entries {
		if e["schema"] == "olm.bundle" && len(e) != 2 {
			return fmt.Errorf("a bundle entry has more than schema and image: %v", e)
		}
	}
	return nil
}
