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
	"strings"
	"testing"
)

// TestRender covers the placeholder rules: a scalar is replaced in its line, a block
// replaces its line at that line's indentation (a list item's from its dash), and
// template actions in kustomize's text are escaped.
func TestRender(t *testing.T) {
	p := newPlaceholders()
	obj := map[string]any{
		"metadata": map[string]any{"namespace": p.value("{{ ns }}"), "note": "use {{ name }} here"},
		"list":     []any{"a", p.block(func(indent string) string { return lines(indent, "- {{ item }}") })},
	}
	obj["metadata"].(map[string]any)[p.block(func(indent string) string { return lines(indent, "{{- extra }}") })] = ""
	got, err := p.render(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"list:",
		"- a",
		"- {{ item }}",
		"metadata:",
		"  namespace: {{ ns }}",
		`  note: use {{ "{{" }} name {{ "}}" }} here`,
		"  {{- extra }}",
		"",
	}, "\n")
	if got != want {
		t.Errorf("render:\n%s\nwant:\n%s", got, want)
	}
}

// TestRenderRefusesABlockAsAListItemsKey: a block that would take the place of a list
// item's first key would lose the item's dash.
func TestRenderRefusesABlockAsAListItemsKey(t *testing.T) {
	p := newPlaceholders()
	obj := map[string]any{"list": []any{map[string]any{p.block(func(string) string { return "" }): ""}}}
	if _, err := p.render(obj); err == nil || !strings.Contains(err.Error(), "cannot be rendered") {
		t.Errorf("err = %v", err)
	}
}

// TestChartFilesNeedWhatTheChartTemplates: kustomize output without the Deployment
// the chart templates is refused, not turned into a chart without values.
func TestChartFilesNeedWhatTheChartTemplates(t *testing.T) {
	install := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ec2-operator-system\n"
	if _, err := chartFiles([]byte(install), "0.1.0", "../../config/manifests/bases/ec2-operator.clusterserviceversion.yaml"); err == nil ||
		!strings.Contains(err.Error(), "Deployment/"+deploymentName) {
		t.Errorf("err = %v", err)
	}
}
