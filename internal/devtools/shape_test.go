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
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The limits CONTRIBUTING.md sets for hand-written code: a function fits on a screen
// and a file keeps to one purpose. Generated files are exempt, and so is the API's
// spec type, whose fields and their documentation are the API reference.
const (
	maxFunctionLines = 60
	maxFileLines     = 400
)

var exemptFromFileLimit = map[string]bool{
	"api/v1alpha1/ec2instance_spec_types.go": true,
}

// TestHandWrittenCodeKeepsToTheSizeLimits parses every non-test Go file of the
// repository and fails on a function over maxFunctionLines or a file over
// maxFileLines, so the shape does not drift back one change at a time.
func TestHandWrittenCodeKeepsToTheSizeLimits(t *testing.T) {
	root := repositoryRoot(t)
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "bin", ".git", "vendor", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasPrefix(filepath.Base(path), "zz_generated") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		if n := fset.File(f.Pos()).LineCount(); n > maxFileLines && !exemptFromFileLimit[filepath.ToSlash(rel)] {
			t.Errorf("%s has %d lines; split it by purpose (at most %d)", rel, n, maxFileLines)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFunctionLines {
				t.Errorf("%s: %s has %d lines (at most %d)", rel, fn.Name.Name, n, maxFunctionLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// repositoryRoot is the directory holding go.mod, found upwards from the test's.
func repositoryRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// phasePackages are the phases that declare the EC2 calls they may make (an EC2
// interface) and reach EC2 only through it.
var phasePackages = []string{"launch", "converge", "deletion", "observe"}

// TestPhasesReachEC2OnlyThroughTheirInterface fails when a phase's code reads the
// scope's whole client (a selector named EC2) anywhere but in FromScope, the one
// function that narrows it to the phase's interface. A call outside the interface would
// otherwise compile unseen, and the interface would stop saying what the phase does.
func TestPhasesReachEC2OnlyThroughTheirInterface(t *testing.T) {
	root := repositoryRoot(t)
	fset := token.NewFileSet()
	for _, phase := range phasePackages {
		dir := filepath.Join(root, "internal", "controller", phase)
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Name.Name == "FromScope" && fn.Recv == nil {
					continue
				}
				ast.Inspect(decl, func(n ast.Node) bool {
					if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "EC2" {
						t.Errorf("%s: reads the scope's whole EC2 client; call it through EC2Of and add the method to the phase's EC2 interface",
							fset.Position(sel.Pos()))
					}
					return true
				})
			}
		}
	}
}
