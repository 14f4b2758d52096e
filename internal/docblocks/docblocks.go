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

// Package docblocks reads the code blocks of the documentation that tests check: a
// block marked with an HTML comment `<!-- checked: NAME -->` on the line before its
// opening fence. Tests apply, render or run what a page tells users to, so that a page
// and the product cannot drift apart unseen.
package docblocks

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// marker matches the comment that names a checked block.
var marker = regexp.MustCompile(`^<!-- checked: ([a-z0-9-]+) -->$`)

// Block returns the text inside the fenced code block marked name in the page.
func Block(page, name string) (string, error) {
	blocks, err := All(page)
	if err != nil {
		return "", err
	}
	text, ok := blocks[name]
	if !ok {
		return "", fmt.Errorf("%s has no block marked %q", page, name)
	}
	return text, nil
}

// All returns every marked block of the page by name.
func All(page string) (map[string]string, error) {
	data, err := os.ReadFile(page)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	blocks := map[string]string{}
	for i, line := range lines {
		m := marker.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			return nil, fmt.Errorf("%s:%d: the block %q must start on the next line", page, i+1, m[1])
		}
		var body []string
		closed := false
		for _, l := range lines[i+2:] {
			if strings.HasPrefix(l, "```") {
				closed = true
				break
			}
			body = append(body, l)
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: the block %q is not closed", page, i+1, m[1])
		}
		if _, dup := blocks[m[1]]; dup {
			return nil, fmt.Errorf("%s: two blocks are marked %q", page, m[1])
		}
		blocks[m[1]] = strings.Join(body, "\n") + "\n"
	}
	return blocks, nil
}
