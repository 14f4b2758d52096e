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
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// configurationPage is the page users configure the manager from.
const configurationPage = "docs/configuration.md"

// documentedFlags returns the flags the configuration page's table names in its first
// column, from the page's first table to its end.
func documentedFlags(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.ProjectRoot(), configurationPage))
	if err != nil {
		t.Fatal(err)
	}
	section := string(data)
	name := regexp.MustCompile("`--([a-z0-9-]+)`")
	var flags []string
	inTable := false
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		first := strings.SplitN(line, "|", 3)[1]
		for _, m := range name.FindAllStringSubmatch(first, -1) {
			flags = append(flags, m[1])
		}
	}
	if len(flags) == 0 {
		t.Fatal(configurationPage + "'s table names no flag")
	}
	return flags
}

// Users configure the operator from the configuration page's table: a flag it leaves
// out cannot be found, and one it names that the manager lacks makes the pod crash-loop.
func TestTheConfigurationPageListsEveryFlagTheManagerHas(t *testing.T) {
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	var opts options
	opts.bindFlags(fs)
	zapOpts := zap.Options{}
	zapOpts.BindFlags(fs)

	documented := documentedFlags(t)
	var missing []string
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(documented, f.Name) {
			missing = append(missing, "--"+f.Name)
		}
	})
	if len(missing) > 0 {
		t.Errorf("%s does not list %v", configurationPage, missing)
	}
	for _, name := range documented {
		if fs.Lookup(name) == nil {
			t.Errorf("%s lists --%s, which the manager does not have", configurationPage, name)
		}
	}
}
