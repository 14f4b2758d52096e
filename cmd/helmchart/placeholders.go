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
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// A template is written in two steps. The object from kustomize is first edited as
// data: each place a value of the chart goes gets a placeholder string (as a scalar,
// a map key or a list item). The object is then marshalled as YAML, the way kustomize
// prints it, and every placeholder is replaced by Helm template text. Editing data
// rather than text keeps the rest of the object byte for byte what kustomize wrote,
// which is what lets test/chart compare `helm template` with `kustomize build`.

// placeholders collects the replacements of one template.
type placeholders struct {
	// inline maps a placeholder that stands for a scalar to the template text that
	// replaces it within its line.
	inline map[string]string
	// blocks maps a placeholder that stands for a whole line (a map entry or a list
	// item) to a function of that line's indentation giving the lines that replace it.
	blocks map[string]func(indent string) string
}

func newPlaceholders() *placeholders {
	return &placeholders{inline: map[string]string{}, blocks: map[string]func(string) string{}}
}

// value returns a placeholder for a scalar that renders as text.
func (p *placeholders) value(text string) string {
	key := fmt.Sprintf("__HELM_VALUE_%d__", len(p.inline))
	p.inline[key] = text
	return key
}

// block returns a placeholder for a line that renders as the lines block returns.
func (p *placeholders) block(render func(indent string) string) string {
	// The YAML encoder sorts keys letters first, so a key of letters starting "zzz"
	// comes last and a block that is a map entry never takes the place of a list
	// item's first key (the one after its dash).
	key := fmt.Sprintf("zzzhelmblock%dzzz", len(p.blocks))
	p.blocks[key] = render
	return key
}

// blockLine matches a line that is a block placeholder: a list item (with its dash)
// or a map entry.
var blockLine = regexp.MustCompile(`^( *)(- )?(zzzhelmblock\d+zzz)(: .*)?$`)

// render marshals obj and replaces its placeholders. Text in obj that Helm would read
// as template actions is escaped first, so that it renders as written.
func (p *placeholders) render(obj any) (string, error) {
	data, err := yaml.Marshal(obj)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var out strings.Builder
	for _, line := range lines {
		line = escapeActions(line)
		if m := blockLine.FindStringSubmatch(line); m != nil {
			render, ok := p.blocks[m[3]]
			if !ok || (m[2] != "" && m[4] != "") {
				return "", fmt.Errorf("placeholder %s cannot be rendered in %q", m[3], line)
			}
			// A list item's block starts at its dash, which is where the lines of the
			// item it replaces start.
			out.WriteString(render(m[1]))
			continue
		}
		for key, text := range p.inline {
			line = strings.ReplaceAll(line, key, text)
		}
		if strings.Contains(line, "__HELM_") || strings.Contains(line, "zzzhelmblock") {
			return "", fmt.Errorf("placeholder left in %q", line)
		}
		out.WriteString(line + "\n")
	}
	return out.String(), nil
}

// escapeActions makes "{{" and "}}" in kustomize's output render literally.
func escapeActions(line string) string {
	if !strings.Contains(line, "{{") && !strings.Contains(line, "}}") {
		return line
	}
	var out strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case strings.HasPrefix(line[i:], "{{"):
			out.WriteString(`{{ "{{" }}`)
			i++
		case strings.HasPrefix(line[i:], "}}"):
			out.WriteString(`{{ "}}" }}`)
			i++
		default:
			out.WriteByte(line[i])
		}
	}
	return out.String()
}

// lines prefixes each of the given lines with indent and ends each with a newline.
func lines(indent string, text ...string) string {
	var out strings.Builder
	for _, t := range text {
		out.WriteString(indent + t + "\n")
	}
	return out.String()
}

// indentYAML marshals v and indents every line of it.
func indentYAML(v any, indent string) (string, error) {
	data, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return lines(indent, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")...), nil
}
