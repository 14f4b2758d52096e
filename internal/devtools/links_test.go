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

package devtools

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ec2-operator/ec2-operator/internal/docblocks"
)

// markdownLink matches an inline link's target: [text](target); codeSpan an inline
// code span, whose text is not a link even when it looks like one (a regular
// expression in the API reference).
var (
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan     = regexp.MustCompile("`[^`]*`")
)

// TestDocumentationLinksResolve follows every relative link of the README,
// CONTRIBUTING.md, SECURITY.md, CHANGELOG.md and docs/: the file must exist, and an anchor must name
// a heading of it as GitHub renders anchors. The documentation is read by task across
// many pages, so a page moved or a heading renamed must not leave readers at a dead end.
func TestDocumentationLinksResolve(t *testing.T) {
	root := repositoryRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"README.md", "CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md"} {
		pages = append(pages, filepath.Join(root, name))
	}
	checked := 0
	for _, page := range pages {
		for _, target := range pageLinks(t, page) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			rel, _ := filepath.Rel(root, page)
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which does not exist", rel, target)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !headingAnchors(t, path)[anchor] {
				t.Errorf("%s links to %s, but that page has no heading with the anchor #%s", rel, target, anchor)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d relative links found; the page list or the link pattern is wrong", checked)
	}
}

// pageLinks returns the targets of a page's links outside code blocks.
func pageLinks(t *testing.T, page string) []string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	inCode := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range markdownLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			targets = append(targets, m[1])
		}
	}
	return targets
}

// headingAnchors returns the anchors GitHub gives a page's headings: lower case,
// punctuation but hyphens and underscores dropped, spaces made hyphens.
func headingAnchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	inCode := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		anchors[b.String()] = true
	}
	return anchors
}

// TestEveryCheckedDocumentationBlockHasATest fails when a page marks a block as
// checked (docblocks) and no test names it: the mark tells readers a test runs what
// they copy, which must stay true.
func TestEveryCheckedDocumentationBlockHasATest(t *testing.T) {
	root := repositoryRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	var tests strings.Builder
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "bin" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") && !strings.HasSuffix(path, "links_test.go") {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			tests.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, page := range pages {
		blocks, err := docblocks.All(page)
		if err != nil {
			t.Fatal(err)
		}
		for name := range blocks {
			marked++
			if !strings.Contains(tests.String(), `"`+name+`"`) {
				rel, _ := filepath.Rel(root, page)
				t.Errorf("%s marks the block %q as checked, but no test names it", rel, name)
			}
		}
	}
	if marked == 0 {
		t.Error("no page marks a checked block; the marker or the page list is wrong")
	}
}
