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

package docblocks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func page(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAMarkedBlockIsReadWhole(t *testing.T) {
	p := page(t, "# Page\n\n<!-- checked: values -->\n```yaml\na: 1\nb: 2\n```\n\n```sh\nnot marked\n```\n")
	got, err := Block(p, "values")
	if err != nil || got != "a: 1\nb: 2\n" {
		t.Errorf("block %q, %v", got, err)
	}
	if _, err := Block(p, "other"); err == nil {
		t.Error("a block that is not marked was found")
	}
}

// A mark that does not sit on the line before a fence, a block never closed and two
// blocks with one name are errors: each would make a test read something else than
// the page shows.
func TestMisplacedMarksAreErrors(t *testing.T) {
	for name, text := range map[string]string{
		"not before a fence": "<!-- checked: a -->\n\n```yaml\nx: 1\n```\n",
		"not closed":         "<!-- checked: a -->\n```yaml\nx: 1\n",
		"twice":              "<!-- checked: a -->\n```yaml\nx: 1\n```\n<!-- checked: a -->\n```yaml\nx: 2\n```\n",
	} {
		if _, err := All(page(t, text)); err == nil || !strings.Contains(err.Error(), `"a"`) {
			t.Errorf("%s: %v, want an error naming the block", name, err)
		}
	}
}
