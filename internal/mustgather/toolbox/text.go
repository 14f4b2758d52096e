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

package toolbox

import (
	"bufio"
	"context"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// awkProgram is the awk this image runs: `[NR==N] { print [$K[, $K...]] }`, which is
// what oc's disk usage checker uses to pick the Capacity column of `df -P`.
var awkProgram = regexp.MustCompile(`^\s*(?:NR\s*==\s*(\d+))?\s*\{\s*print((?:\s*\$\d+\s*,?)*)\s*\}\s*$`)

func awkCmd(_ context.Context, s Streams, args []string) int {
	if len(args) == 0 {
		return failf(s, 2, "awk", "usage: awk PROGRAM [FILE...]")
	}
	m := awkProgram.FindStringSubmatch(args[0])
	if m == nil {
		return failf(s, 2, "awk", "this image's awk runs only '[NR==n] {print $k, ...}' programs, not %q", args[0])
	}
	line := 0
	if m[1] != "" {
		line, _ = strconv.Atoi(m[1])
	}
	var fields []int
	for _, f := range strings.FieldsFunc(m[2], func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		n, _ := strconv.Atoi(strings.TrimPrefix(f, "$"))
		fields = append(fields, n)
	}
	nr := 0
	return eachLine(s, "awk", args[1:], func(text string) {
		nr++
		if line != 0 && nr != line {
			return
		}
		words := strings.Fields(text)
		if len(fields) == 0 {
			io.WriteString(s.Out, text+"\n")
			return
		}
		out := make([]string, len(fields))
		for i, f := range fields {
			switch {
			case f == 0:
				out[i] = text
			case f <= len(words):
				out[i] = words[f-1]
			}
		}
		io.WriteString(s.Out, strings.Join(out, " ")+"\n")
	})
}

// sedCmd is `sed [-e] s/RE/REPLACEMENT/[g] [FILE...]`, substitution being all oc's
// checker needs. RE is a POSIX basic expression without back-references;
// REPLACEMENT may use & and \1 to \9.
func sedCmd(_ context.Context, s Streams, args []string) int {
	if len(args) > 0 && args[0] == "-e" {
		args = args[1:]
	}
	if len(args) == 0 {
		return failf(s, 2, "sed", "usage: sed [-e] s/RE/REPLACEMENT/[g] [FILE...]")
	}
	re, repl, global, ok := parseSubstitution(args[0])
	if !ok {
		return failf(s, 2, "sed", "this image's sed runs only s/RE/REPLACEMENT/[g] scripts, not %q", args[0])
	}
	return eachLine(s, "sed", args[1:], func(text string) {
		if global {
			text = re.ReplaceAllString(text, repl)
		} else if loc := re.FindStringSubmatchIndex(text); loc != nil {
			text = text[:loc[0]] + string(re.ExpandString(nil, repl, text, loc)) + text[loc[1]:]
		}
		io.WriteString(s.Out, text+"\n")
	})
}

// parseSubstitution reads s<d>RE<d>REPLACEMENT<d>[g] with any delimiter d.
func parseSubstitution(script string) (*regexp.Regexp, string, bool, bool) {
	if len(script) < 4 || script[0] != 's' {
		return nil, "", false, false
	}
	parts := strings.Split(script[2:], script[1:2])
	if len(parts) != 3 || (parts[2] != "" && parts[2] != "g") {
		return nil, "", false, false
	}
	// Basic expressions write groups and intervals with backslashes, extended ones
	// (Go's) without; a literal ( { + ? | in a basic expression is escaped for Go.
	pattern := regexp.MustCompile(`\\[(){}+?|]|[(){}+?|]`).ReplaceAllStringFunc(parts[0], func(tok string) string {
		if strings.HasPrefix(tok, `\`) {
			return tok[1:]
		}
		return `\` + tok
	})
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, "", false, false
	}
	repl := strings.ReplaceAll(parts[1], "$", "$$")
	repl = regexp.MustCompile(`\\([1-9])|&`).ReplaceAllStringFunc(repl, func(tok string) string {
		if tok == "&" {
			return "${0}"
		}
		return "${" + tok[1:] + "}"
	})
	return re, repl, parts[2] == "g", true
}

// eachLine feeds the lines of the files (standard input when none, or "-") to fn.
func eachLine(s Streams, name string, files []string, fn func(string)) int {
	readers := []io.Reader{}
	for _, f := range files {
		if f == "-" {
			readers = append(readers, s.In)
			continue
		}
		file, err := os.Open(resolve(s, f))
		if err != nil {
			return failf(s, 2, name, "%v", err)
		}
		defer file.Close()
		readers = append(readers, file)
	}
	if len(readers) == 0 {
		readers = append(readers, s.In)
	}
	scanner := bufio.NewScanner(io.MultiReader(readers...))
	scanner.Buffer(make([]byte, 64<<10), 1<<20)
	for scanner.Scan() {
		fn(scanner.Text())
	}
	if err := scanner.Err(); err != nil {
		return failf(s, 2, name, "%v", err)
	}
	return 0
}
