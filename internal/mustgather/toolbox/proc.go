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
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// dfCmd is `df [-P] [-k] PATH...` in the POSIX format (1024-byte blocks): the file
// system's usage as statfs reports it, with Capacity rounded up as POSIX says.
func dfCmd(_ context.Context, s Streams, args []string) int {
	var paths []string
	for _, arg := range args {
		switch arg {
		case "-P", "-k", "-Pk", "-kP":
		default:
			if strings.HasPrefix(arg, "-") {
				return failf(s, 2, "df", "this image's df supports -P and -k, not %s", arg)
			}
			paths = append(paths, arg)
		}
	}
	if len(paths) == 0 {
		paths = []string{"/"}
	}
	fmt.Fprintln(s.Out, "Filesystem     1024-blocks      Used Available Capacity Mounted on")
	status := 0
	for _, p := range paths {
		var st syscall.Statfs_t
		if err := syscall.Statfs(resolve(s, p), &st); err != nil {
			status = failf(s, 1, "df", "%s: %v", p, err)
			continue
		}
		unit := uint64(st.Bsize) / 1024
		if unit == 0 {
			unit = 1
		}
		total, free, avail := st.Blocks*unit, st.Bfree*unit, st.Bavail*unit
		used := total - free
		capacity := uint64(0)
		if used+avail > 0 {
			capacity = (used*100 + used + avail - 1) / (used + avail)
		}
		fmt.Fprintf(s.Out, "%-14s %11d %9d %9d %7d%% %s\n", "-", total, used, avail, capacity, p)
	}
	return status
}

// pkillCmd is `pkill [--signal SIG | -SIG] [-f] PATTERN`: it signals the processes
// whose name (or, with -f, whole command line) matches the extended expression, never
// itself, and exits 1 when none matched (after looking for a second), like procps's
// pkill.
func pkillCmd(_ context.Context, s Streams, args []string) int {
	sig, full, pattern := syscall.SIGTERM, false, ""
	for i := 0; i < len(args); i++ {
		switch arg := args[i]; {
		case arg == "-f" || arg == "--full":
			full = true
		case arg == "--signal" && i+1 < len(args):
			i++
			v, err := signalNamed(args[i])
			if err != nil {
				return failf(s, 2, "pkill", "%v", err)
			}
			sig = v
		case strings.HasPrefix(arg, "-") && len(arg) > 1 && pattern == "":
			v, err := signalNamed(arg[1:])
			if err != nil {
				return failf(s, 2, "pkill", "this image's pkill supports -f, --signal and -SIG, not %s", arg)
			}
			sig = v
		case pattern == "":
			pattern = arg
		default:
			// procps refuses a second pattern; guessing which was meant could signal
			// unrelated processes.
			return failf(s, 2, "pkill", "only one pattern can be provided")
		}
	}
	re, err := regexp.Compile(pattern)
	if pattern == "" || err != nil {
		return failf(s, 2, "pkill", "a pattern is needed: %v", err)
	}
	// oc's disk usage checker runs pkill in the background next to the very command
	// it is to stop (`checker & /usr/bin/gather`). procps's pkill comes after a fork
	// and an exec per pipeline stage, by which time the gather has started; this one
	// runs in the shell's process at once and can look before the gather exists. So it
	// looks again, briefly, before saying nothing matched.
	for attempt := 0; attempt < pkillAttempts; attempt++ {
		if attempt > 0 {
			time.Sleep(pkillRetry)
		}
		if signalMatching(re, full, sig) {
			return 0
		}
	}
	return 1
}

// pkillAttempts and pkillRetry bound how long pkill looks for a match: a second, far
// longer than starting a process takes even on a loaded node.
const (
	pkillAttempts = 10
	pkillRetry    = 100 * time.Millisecond
)

// signalMatching signals every process but this one whose name (or command line)
// matches, and says whether it signalled any.
func signalMatching(re *regexp.Regexp, full bool, sig syscall.Signal) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	matched := false
	for _, dir := range procs {
		pid, _ := strconv.Atoi(filepath.Base(dir))
		if pid == os.Getpid() || !re.MatchString(processText(dir, full)) {
			continue
		}
		if syscall.Kill(pid, sig) == nil {
			matched = true
		}
	}
	return matched
}

// processText is a process's name, or its command line with spaces for NULs.
func processText(dir string, full bool) string {
	if !full {
		comm, _ := os.ReadFile(filepath.Join(dir, "comm"))
		return strings.TrimSpace(string(comm))
	}
	cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
	return string(bytes.TrimRight(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}), " "))
}
