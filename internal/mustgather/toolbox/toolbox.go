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

// Package toolbox is the must-gather image's shell and the few commands that `oc adm
// must-gather` runs in it. oc starts the gather container as `/bin/bash -c "<disk
// usage checker> & /usr/bin/gather; sync"` (the checker pipes `df -P` through awk and
// sed, and stops the gather with pkill when the volume fills), starts a copy container
// as `/bin/bash -c "trap : TERM INT; sleep infinity & wait"`, and copies the archive
// back with `tar -C /must-gather/ -c .` after finding no rsync. The image is built
// from Go sources only, like the others, so it has no distribution's shell: these
// are Go programs in one binary, chosen by the name it is run as. Each supports the
// options those commands use and says so when given others.
package toolbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Streams are a command's standard input, output and error, and its directory.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
	Dir      string
}

// command runs with its arguments (without the name) and returns the exit status.
type command func(ctx context.Context, s Streams, args []string) int

// commands are the programs of the toolbox by name; the image links each name on
// PATH to the one binary.
var commands = map[string]command{
	"sleep": sleepCmd,
	"sync":  syncCmd,
	"df":    dfCmd,
	"awk":   awkCmd,
	"sed":   sedCmd,
	"pkill": pkillCmd,
	"tar":   tarCmd,
}

// Names are the commands the image links to the binary, the shell included.
func Names() []string {
	names := []string{"bash", "sh"}
	for name := range commands {
		names = append(names, name)
	}
	return names
}

// Lookup returns the main function for a program name (the base name of argv[0]),
// or false when the name is not a toolbox program.
func Lookup(name string) (func(ctx context.Context, args []string) int, bool) {
	name = filepath.Base(name)
	if name == "bash" || name == "sh" {
		return func(ctx context.Context, args []string) int { return shellMain(ctx, osStreams(), args) }, true
	}
	cmd, ok := commands[name]
	if !ok {
		return nil, false
	}
	return func(ctx context.Context, args []string) int { return cmd(ctx, osStreams(), args) }, true
}

func osStreams() Streams {
	dir, _ := os.Getwd()
	return Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Dir: dir}
}

// failf prints a command's error as the usual tools do and returns status 1 (2 for
// usage errors, which callers pass).
func failf(s Streams, status int, name, format string, args ...any) int {
	fmt.Fprintf(s.Err, name+": "+format+"\n", args...)
	return status
}

// resolve makes a path relative to the command's directory absolute.
func resolve(s Streams, path string) string {
	if filepath.IsAbs(path) || s.Dir == "" {
		return path
	}
	return filepath.Join(s.Dir, path)
}
