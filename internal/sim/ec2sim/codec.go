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

package ec2sim

import (
	"html"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// params wraps the decoded form of an EC2 query request and understands the
// query protocol's flattened names: lists are "Name.1", "Name.2", ... and
// structure members are "Name.Member" (so a list of structures is
// "Name.1.Member").
type params struct {
	v      url.Values
	prefix string
}

// sub returns the view of the parameters under prefix (e.g. "Placement"),
// so nested structures can be read with the same helpers.
func (p params) sub(name string) params {
	return params{v: p.v, prefix: p.key(name) + "."}
}

// key is the absolute parameter name of a member of this view.
func (p params) key(name string) string { return p.prefix + name }

// str returns a member's value, or "" when absent.
func (p params) str(name string) string { return p.v.Get(p.key(name)) }

// has reports whether a member was sent.
func (p params) has(name string) bool { _, ok := p.v[p.key(name)]; return ok }

// hasAny reports whether any parameter starts with the member's name, so a
// structure counts as present when any of its fields were sent.
func (p params) hasAny(name string) bool {
	k := p.key(name)
	for name := range p.v {
		if name == k || strings.HasPrefix(name, k+".") {
			return true
		}
	}
	return false
}

// boolean parses an EC2 boolean member ("true"/"false"); ok is false when absent.
func (p params) boolean(name string) (val, ok bool) {
	if !p.has(name) {
		return false, false
	}
	return strings.EqualFold(p.str(name), "true"), true
}

// integer parses an integer member; ok is false when absent or unparsable.
func (p params) integer(name string) (int, bool) {
	if !p.has(name) {
		return 0, false
	}
	n, err := strconv.Atoi(p.str(name))
	return n, err == nil
}

// indices returns, in numeric order, the N of every "Name.N..." parameter.
func (p params) indices(name string) []int {
	k := p.key(name) + "."
	seen := map[int]bool{}
	for full := range p.v {
		if !strings.HasPrefix(full, k) {
			continue
		}
		rest := full[len(k):]
		if i := strings.IndexByte(rest, '.'); i >= 0 {
			rest = rest[:i]
		}
		if n, err := strconv.Atoi(rest); err == nil {
			seen[n] = true
		}
	}
	out := make([]int, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// list returns the values of a flattened scalar list "Name.1", "Name.2", ...
func (p params) list(name string) []string {
	var out []string
	for _, n := range p.indices(name) {
		if v, ok := p.v[p.key(name)+"."+strconv.Itoa(n)]; ok && len(v) > 0 {
			out = append(out, v[0])
		}
	}
	return out
}

// items returns views of each element of a flattened structure list.
func (p params) items(name string) []params {
	var out []params
	for _, n := range p.indices(name) {
		out = append(out, p.sub(name+"."+strconv.Itoa(n)))
	}
	return out
}

// filter is one DescribeX filter: a name and the values any of which match.
type filter struct {
	Name   string
	Values []string
}

// filters decodes "Filter.N.Name" / "Filter.N.Value.M".
func (p params) filters() []filter {
	var out []filter
	for _, f := range p.items("Filter") {
		out = append(out, filter{Name: f.str("Name"), Values: f.list("Value")})
	}
	return out
}

// xmlBuilder writes EC2-style XML. EC2 responses are simple trees of
// elements without attributes (except the root's namespace), so a small
// builder keeps the element names visible at each call site.
type xmlBuilder struct {
	b strings.Builder
}

// open starts an element.
func (x *xmlBuilder) open(name string) { x.b.WriteString("<" + name + ">") }

// close ends an element.
func (x *xmlBuilder) close(name string) { x.b.WriteString("</" + name + ">") }

// leaf writes an element holding escaped text.
func (x *xmlBuilder) leaf(name, value string) {
	x.b.WriteString("<" + name + ">" + html.EscapeString(value) + "</" + name + ">")
}

// leafIf writes a leaf only when value is non-empty, as EC2 omits unset fields.
func (x *xmlBuilder) leafIf(name, value string) {
	if value != "" {
		x.leaf(name, value)
	}
}

// boolLeaf writes "true" or "false".
func (x *xmlBuilder) boolLeaf(name string, v bool) { x.leaf(name, strconv.FormatBool(v)) }

// intLeaf writes a decimal integer.
func (x *xmlBuilder) intLeaf(name string, v int) { x.leaf(name, strconv.Itoa(v)) }

// timeLeaf writes an ISO 8601 timestamp with milliseconds, EC2's format.
func (x *xmlBuilder) timeLeaf(name string, t time.Time) { x.leaf(name, formatTime(t)) }

// tagSet writes a tagSet with keys sorted for stable output.
func (x *xmlBuilder) tagSet(tags map[string]string) {
	x.open("tagSet")
	for _, k := range sortedKeys(tags) {
		x.open("item")
		x.leaf("key", k)
		x.leaf("value", tags[k])
		x.close("item")
	}
	x.close("tagSet")
}

// formatTime renders t the way EC2 does, e.g. 2024-05-01T12:00:00.000Z.
func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
