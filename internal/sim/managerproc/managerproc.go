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

// Package managerproc builds the manager binary and runs it as its own process, the
// way the sandbox, the end-to-end tests and the bench all run it: arguments and an
// environment of the caller's, output to a log file, a wait for the readiness probe
// that fails as soon as the process exits, and a stop that signals only the process
// it started and kills it after a bounded grace period.
//
// It imports no test package, since the sandbox command uses it too.
package managerproc

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Build builds the manager (./cmd of the repository at root) into out with the go
// tool on PATH (under `go test`, the toolchain that runs the tests). The error
// carries the compiler's output.
func Build(ctx context.Context, root, out string) error {
	// Built as the release image's binary is (cmd/images), so that what the tests
	// measure of it, its resident memory above all, is what users run.
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./cmd")
	cmd.Dir = root
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the manager: %w\n%s", err, output)
	}
	return nil
}

// Sources lists every file the manager is built from that the repository holds: the
// Go and embedded files of its packages in the module, go.mod and go.sum (the
// dependencies' files are fixed by go.sum). See Track.
func Sources(ctx context.Context, root string) ([]string, error) {
	list := exec.CommandContext(ctx, "go", "list", "-deps", "-f",
		`{{if not .Standard}}{{.Dir}}{{range .GoFiles}}|{{.}}{{end}}{{range .EmbedFiles}}|{{.}}{{end}}{{end}}`, "./cmd")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the manager's sources: %w", err)
	}
	files := []string{filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum")}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		if !strings.HasPrefix(parts[0], root+string(filepath.Separator)) {
			continue // a dependency in the module cache, pinned by go.sum
		}
		for _, f := range parts[1:] {
			files = append(files, filepath.Join(parts[0], f))
		}
	}
	if len(files) == 2 {
		return nil, fmt.Errorf("none of the manager's packages is under %s: its sources cannot be tracked", root)
	}
	return files, nil
}

// Track stats the manager's sources (from Sources) from a running test. go test
// caches a package's result keyed by its test binary and by the files the test
// opened or stat'ed while tests ran (not in TestMain before m.Run); the manager is
// built in a child process the cache cannot see, so a test package that runs the
// manager without importing the controller (test/bench) would otherwise be answered
// from the cache after a change to the operator it runs.
func Track(files []string) error {
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("the manager's source %s: %w", f, err)
		}
	}
	return nil
}

// Options say how to run the manager.
type Options struct {
	// Binary is the manager binary.
	Binary string
	// Args are its flags.
	Args []string
	// Env is its whole environment; nil means this process's.
	Env []string
	// LogPath is the file its standard output and error go to; it is created afresh.
	LogPath string
	// ProbeAddr is its --health-probe-bind-address, where WaitReady asks /readyz.
	ProbeAddr string
	// StopGrace is how long Stop waits after SIGTERM before it kills the process;
	// zero means DefaultStopGrace.
	StopGrace time.Duration
	// DieWithParent has the kernel kill the manager should this process die without
	// stopping it (a test binary's -timeout panic), rather than leave it running
	// against a control plane that is gone.
	DieWithParent bool
}

// DefaultStopGrace is the grace period of Stop when Options.StopGrace is zero.
const DefaultStopGrace = 15 * time.Second

// PollInterval is how often WaitReady asks the readiness probe.
const PollInterval = 100 * time.Millisecond

// Process is a running (or ended) manager.
type Process struct {
	// Cmd is the started command.
	Cmd *exec.Cmd
	// LogPath is the manager's log file.
	LogPath string

	opts     Options
	exited   chan struct{}
	err      error
	stopOnce sync.Once
}

// Start starts the manager. It does not wait for it to be ready: see WaitReady.
func Start(opts Options) (*Process, error) {
	logFile, err := os.Create(opts.LogPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(opts.Binary, opts.Args...)
	cmd.Env = opts.Env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if opts.DieWithParent {
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting the manager: %w", err)
	}
	p := &Process{Cmd: cmd, LogPath: opts.LogPath, opts: opts, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.exited)
	}()
	return p, nil
}

// Pid is the process ID of the manager.
func (p *Process) Pid() int { return p.Cmd.Process.Pid }

// Exited is closed once the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Err is the process's exit status once it has ended.
func (p *Process) Err() error {
	<-p.exited
	return p.err
}

// HasExited says whether the process has ended.
func (p *Process) HasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Log returns the manager's whole log so far.
func (p *Process) Log() string {
	b, _ := os.ReadFile(p.LogPath)
	return string(b)
}

// WaitReady waits until the readiness probe answers 200, up to timeout, and fails at
// once when the process exits or ctx ends.
func (p *Process) WaitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if p.HasExited() {
			return fmt.Errorf("the manager exited before it was ready: %v", p.err)
		}
		code, err := Probe(p.opts.ProbeAddr, "/readyz")
		if err == nil && code == http.StatusOK {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the manager was not ready after %s: %d %v", timeout, code, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.exited:
		case <-time.After(PollInterval):
		}
	}
}

// Stop asks the manager to shut down (SIGTERM: it releases its lease and drains) and
// kills it if it has not exited within the grace period. It returns once the process
// is gone, and does nothing more when called again.
func (p *Process) Stop() {
	p.stopOnce.Do(func() {
		if p.HasExited() {
			return
		}
		grace := p.opts.StopGrace
		if grace == 0 {
			grace = DefaultStopGrace
		}
		_ = p.Cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(grace):
			p.Kill()
		}
	})
	<-p.exited
}

// Kill ends the manager with SIGKILL, as a node failure or the OOM killer would: no
// lease release, no graceful shutdown. It returns once the process is gone.
func (p *Process) Kill() {
	_ = p.Cmd.Process.Kill()
	<-p.exited
}

// Probe GETs a path on a plain-HTTP probe address and returns the status.
func Probe(addr, path string) (int, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + path)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}
