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

// Package devtools holds what the repository's test suites share about the repository
// itself: the Makefile's pinned versions (one source of truth for the versions tests
// fetch) and Go modules downloaded through the module proxy (how tests get other
// projects' CRDs and manifests on a machine without internet).
package devtools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// MakeVar reads the default of a `NAME ?= value` (or `export NAME ?= value`) variable
// from the Makefile in root.
func MakeVar(root, name string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^(?:export\s+)?` + regexp.QuoteMeta(name) + `\s*\?=\s*(.*)$`).FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s has no %s ?= ...", filepath.Join(root, "Makefile"), name)
	}
	return strings.TrimSpace(string(m[1])), nil
}

// ModuleDir downloads a module ("path@version") through the Go module proxy (a no-op
// when it is in the module cache) and returns its directory. The proxy here refuses
// version lists for some modules, so the version must be named.
func ModuleDir(module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	// Outside this module, so its go.mod and go.sum are left alone and need not
	// require the module.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(stdout.Bytes(), &mod); err != nil || mod.Error != "" || runErr != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %v %s %s", module, runErr, mod.Error, strings.TrimSpace(stderr.String()))
	}
	return mod.Dir, nil
}
