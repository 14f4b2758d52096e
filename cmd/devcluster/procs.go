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
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// daemon is one long-running process of the node.
type daemon struct {
	name string
	bin  string
	args []string
}

func pidFile(name string) string { return filepath.Join(runDir, name+".pid") }

// running returns the pid of name when the process in its pid file is still the
// program that was started. PIDs recycle within minutes here, so a pid alone proves
// nothing: the process's executable must be the same file.
func running(d daemon) (int, bool) {
	data, err := os.ReadFile(pidFile(d.name))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		return 0, false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return 0, false
	}
	argv0, _, _ := strings.Cut(string(cmdline), "\x00")
	return pid, argv0 == d.bin
}

// start runs d in its own session (so a Ctrl-C of the caller does not reach it), with
// its output in its log file, unless it already runs.
func start(l layout, d daemon) error {
	if _, ok := running(d); ok {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(l.log(d.name)), 0o755); err != nil {
		return err
	}
	logf, err := os.OpenFile(l.log(d.name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "\n==== %s %s\n", time.Now().UTC().Format(time.RFC3339), strings.Join(append([]string{d.bin}, d.args...), " "))
	cmd := exec.Command(d.bin, d.args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = l.state
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", d.name, err)
	}
	if err := writeAtomic(pidFile(d.name), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		return err
	}
	// The process is not our child to wait for once this tool exits; release it.
	return cmd.Process.Release()
}

// stop ends d if it is the process we started: SIGTERM, then SIGKILL after grace.
func stop(d daemon, grace time.Duration) error {
	pid, ok := running(d)
	if !ok {
		_ = os.Remove(pidFile(d.name))
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stop %s (pid %d): %w", d.name, pid, err)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if _, ok := running(d); !ok {
			_ = os.Remove(pidFile(d.name))
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, ok := running(d); ok {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		time.Sleep(200 * time.Millisecond)
	}
	_ = os.Remove(pidFile(d.name))
	return nil
}

// waitUntil polls cond every 200ms until it holds or timeout passes, then says what
// it waited for and where the daemon's log is.
func waitUntil(what string, timeout time.Duration, cond func() error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		if last = cond(); last == nil {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s: not ready after %s: %v", what, timeout, last)
}

// sh runs a host command and returns its trimmed output, with its stderr in the error.
func sh(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(ee.Stderr)))
	}
	return strings.TrimSpace(string(out)), err
}
