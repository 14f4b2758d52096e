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

package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/sim/managerproc"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// TestSandboxOnceBringsUpTheSampleReadyAndLeavesNoProcessBehind runs the README's
// sandbox as a smoke test (`go run ./cmd/sandbox --once`): its own control plane,
// emulator and manager, the sample applied and Ready, then a full teardown.
func TestSandboxOnceBringsUpTheSampleReadyAndLeavesNoProcessBehind(t *testing.T) {
	t.Parallel()
	workDir := t.TempDir()
	// Every process the sandbox starts inherits this entry, so leftovers can be found
	// after it exits, even once reparented away from it.
	marker := "EC2_OPERATOR_E2E_SANDBOX=" + strconv.Itoa(os.Getpid()) + "-" + filepath.Base(workDir)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if err := managerproc.Track(managerSources); err != nil {
		t.Fatal(err)
	}
	cmd := goCommand(ctx, "run", "./cmd/sandbox", "--once",
		"--work-dir="+workDir,
		"--manager="+managerBin,
		"--ec2-listen="+simtest.FreeAddr(t),
		"--health-probe-bind-address="+simtest.FreeAddr(t),
		"--metrics-bind-address="+simtest.FreeAddr(t),
		"--pending-duration=300ms",
	)
	cmd.Env = append(os.Environ(), marker)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// On timeout, interrupt go run and the sandbox together (their process group) so
	// the sandbox still tears its control plane down, as after Ctrl-C.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = 30 * time.Second
	t.Cleanup(func() {
		// Only reached with something left over: end exactly the processes this test
		// started, found by the marker.
		for _, pid := range processesWithEnv(marker) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})

	start := time.Now()
	err := cmd.Run()
	t.Logf("sandbox ran for %s", time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("go run ./cmd/sandbox --once: %v\n%s%s", err, out.String(), fileTail(filepath.Join(workDir, "manager.log"), 60))
	}
	if !sampleShownReady(out.String()) {
		t.Errorf("the output does not show web-1 running and Ready:\n%s", out.String())
	}
	if left := waitNoProcessWithEnv(marker, 10*time.Second); len(left) > 0 {
		t.Errorf("processes left running after the sandbox exited: %v", left)
	}
}

// sampleShownReady finds the row of `kubectl get ec2 -o wide` for the sample, web-1,
// with its instance running and Ready True.
func sampleShownReady(out string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "web-1" && strings.Contains(line, " i-") &&
			slices.Contains(f, "running") && slices.Contains(f, "True") {
			return true
		}
	}
	return false
}

// fileTail returns the last n lines of a file, headed by its name, or "" when it cannot
// be read.
func fileTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "\n--- " + path + " ---\n" + strings.Join(lines, "\n")
}
