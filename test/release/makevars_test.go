package release

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// makeVar reads a `NAME ?= value` default from the Makefile.
func makeVar(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s*\?=\s*(.*)$`).FindSubmatch(data)
	if m == nil {
		t.Fatalf("Makefile has no %s ?= ...", name)
	}
	return strings.TrimSpace(string(m[1]))
}
