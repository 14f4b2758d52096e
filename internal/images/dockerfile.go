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

package images

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// ScratchDockerfile is what a FROM scratch Dockerfile made only of LABEL and COPY
// instructions says: bundle.Dockerfile, which operator-sdk generates, is one. The
// engine-free build reads it instead of repeating its labels and paths, so the two
// ways of building the bundle image cannot drift apart.
type ScratchDockerfile struct {
	Labels map[string]string
	// Copies are the COPY instructions in order.
	Copies []Copy
}

// Copy is one COPY instruction: a path in the build context and where it goes.
type Copy struct {
	Source, Dest string
}

// ParseScratchDockerfile parses a Dockerfile that starts FROM scratch and otherwise
// holds only LABEL and COPY instructions (and comments). Anything else is an error: a
// RUN or a base image cannot be reproduced without a container engine.
func ParseScratchDockerfile(data []byte) (*ScratchDockerfile, error) {
	df := &ScratchDockerfile{Labels: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sawFrom := false
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		instr, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(instr) {
		case "FROM":
			if rest != "scratch" || sawFrom {
				return nil, fmt.Errorf("line %d: only a single FROM scratch is supported, got %q", n, line)
			}
			sawFrom = true
		case "LABEL":
			if !sawFrom {
				return nil, fmt.Errorf("line %d: LABEL before FROM", n)
			}
			if err := parseLabels(rest, df.Labels); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
		case "COPY":
			fields := strings.Fields(rest)
			if !sawFrom || len(fields) != 2 || strings.HasPrefix(fields[0], "--") {
				return nil, fmt.Errorf("line %d: want COPY <src> <dest>, got %q", n, line)
			}
			df.Copies = append(df.Copies, Copy{Source: fields[0], Dest: fields[1]})
		default:
			return nil, fmt.Errorf("line %d: %s is not supported in a scratch image built without an engine", n, instr)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !sawFrom {
		return nil, fmt.Errorf("no FROM scratch")
	}
	return df, nil
}

// parseLabels reads key=value pairs; values may be double-quoted.
func parseLabels(s string, into map[string]string) error {
	for s != "" {
		key, rest, ok := strings.Cut(s, "=")
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return fmt.Errorf("want LABEL key=value, got %q", s)
		}
		var value string
		if strings.HasPrefix(rest, `"`) {
			quoted, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return fmt.Errorf("label %s: %w", key, err)
			}
			value, _ = strconv.Unquote(quoted)
			rest = rest[len(quoted):]
		} else {
			value, rest, _ = strings.Cut(rest, " ")
		}
		into[key] = value
		s = strings.TrimSpace(rest)
	}
	return nil
}
