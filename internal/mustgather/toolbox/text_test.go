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
	"bytes"
	"context"
	"strings"
	"testing"
)

func runCmd(t *testing.T, cmd command, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	status := cmd(context.Background(), Streams{In: strings.NewReader(stdin), Out: &out, Err: &errOut, Dir: t.TempDir()}, args)
	return out.String(), errOut.String(), status
}

func TestTextCommands(t *testing.T) {
	df := "Filesystem 1024-blocks Used Available Capacity Mounted on\n- 100 40 60 40% /must-gather\n"
	tests := []struct {
		name   string
		cmd    command
		stdin  string
		args   []string
		want   string
		status int
	}{
		{"awk picks a column of a line", awkCmd, df, []string{"NR==2 {print $5}"}, "40%\n", 0},
		{"awk prints columns of every line", awkCmd, "a b\nc d\n", []string{"{ print $2, $1 }"}, "b a\nd c\n", 0},
		{"awk refuses other programs", awkCmd, "", []string{"BEGIN { x = 1 }"}, "", 2},
		{"sed substitutes once", sedCmd, "40%%\n", []string{"s/%//"}, "40%\n", 0},
		{"sed substitutes globally with groups", sedCmd, "a-b-c\n", []string{`s/\([a-z]\)-/\1+/g`}, "a+b+c\n", 0},
		{"sed keeps & and $", sedCmd, "x\n", []string{"s|x|[&$]|"}, "[x$]\n", 0},
		{"sed refuses other scripts", sedCmd, "", []string{"1d"}, "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, status := runCmd(t, tt.cmd, tt.stdin, tt.args...)
			if out != tt.want || status != tt.status {
				t.Errorf("got %q (status %d, %s), want %q (status %d)", out, status, errOut, tt.want, tt.status)
			}
		})
	}
}

func TestDfAndSleep(t *testing.T) {
	out, errOut, status := runCmd(t, dfCmd, "", "-P", "/")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if status != 0 || len(lines) != 2 || !strings.HasSuffix(lines[1], "% /") {
		t.Errorf("df -P /: %q %s", out, errOut)
	}
	if _, _, status := runCmd(t, sleepCmd, "", "0.01", "0s"); status != 0 {
		t.Errorf("sleep 0.01 0s: status %d", status)
	}
	if _, _, status := runCmd(t, sleepCmd, "", "5x"); status == 0 {
		t.Error("sleep 5x was accepted")
	}
}
