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
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/docblocks"
	"github.com/ec2-operator/ec2-operator/internal/sim/managerproc"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// TestTheREADMEsFirstScreenRunsAsWritten is a newcomer's first minutes: the sandbox as
// the README starts it (interactive, not --once), then the commands of the README's
// first console block, as written, with the kubeconfig and kubectl the sandbox prints;
// their output has the columns the README shows; then Ctrl-C stops everything.
func TestTheREADMEsFirstScreenRunsAsWritten(t *testing.T) {
	t.Parallel()
	block, err := docblocks.Block(filepath.Join(testenv.ProjectRoot(), "README.md"), "readme-first-screen")
	if err != nil {
		t.Fatal(err)
	}
	workDir := t.TempDir()
	marker := "EC2_OPERATOR_E2E_README=" + strconv.Itoa(os.Getpid()) + "-" + filepath.Base(workDir)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := managerproc.Track(managerSources); err != nil {
		t.Fatal(err)
	}
	// The sandbox is built and run as its own process, as make sandbox's go run runs it,
	// so that Ctrl-C reaches it and its exit status is its own, not go run's (which
	// reports an interrupt as a failure).
	sandbox := filepath.Join(workDir, "sandbox")
	if err := goCommand(ctx, "build", "-o", sandbox, "./cmd/sandbox").Run(); err != nil {
		t.Fatalf("building the sandbox: %v", err)
	}
	cmd := exec.CommandContext(ctx, sandbox, "--work-dir="+workDir, "--manager="+managerBin,
		"--ec2-listen="+simtest.FreeAddr(t), "--health-probe-bind-address="+simtest.FreeAddr(t),
		"--metrics-bind-address="+simtest.FreeAddr(t), "--pending-duration=300ms")
	cmd.Dir = projectRoot
	cmd.Env = append(os.Environ(), marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
	cmd.WaitDelay = 30 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	t.Cleanup(func() {
		for _, pid := range processesWithEnv(marker) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kubeconfig, kubectl, printed := sandboxHowTo(t, stdout)
	var rest strings.Builder
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(&rest, stdout); close(copied) }()

	for _, line := range strings.Split(block, "\n") {
		command, ok := strings.CutPrefix(line, "$ ")
		if !ok {
			continue
		}
		args := strings.Fields(command)
		if args[0] != "kubectl" {
			t.Fatalf("the README's first screen runs %q, which this test does not know", command)
		}
		run := exec.CommandContext(ctx, kubectl, args[1:]...)
		run.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
		out, err := run.CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", command, err, out)
			continue
		}
		if args[1] == "get" {
			got := strings.Fields(strings.SplitN(string(out), "\n", 2)[0])
			if want := readmeHeader(block); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s printed the columns %v, the README shows %v", command, got, want)
			}
		}
	}

	// Ctrl-C, as the README says, stops everything.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	<-copied
	if err != nil {
		t.Errorf("the sandbox after Ctrl-C: %v\n%s%s", err, printed, rest.String())
	}
	if left := waitNoProcessWithEnv(marker, 10*time.Second); len(left) > 0 {
		t.Errorf("processes left running after Ctrl-C: %v", left)
	}
}

// sandboxHowTo reads the sandbox's output until it says it is running, and returns
// the kubeconfig and kubectl it names, and what it printed.
func sandboxHowTo(t *testing.T, out io.Reader) (kubeconfig, kubectl, printed string) {
	t.Helper()
	var seen strings.Builder
	scanner := bufio.NewScanner(out)
	for scanner.Scan() {
		line := scanner.Text()
		seen.WriteString(line + "\n")
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "export KUBECONFIG="); ok {
			kubeconfig = v
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "alias kubectl="); ok {
			kubectl = v
		}
		if strings.Contains(line, "Press Ctrl-C to stop everything") {
			if kubeconfig == "" || kubectl == "" {
				t.Fatalf("the sandbox did not print a kubeconfig and kubectl:\n%s", seen.String())
			}
			return kubeconfig, kubectl, seen.String()
		}
	}
	t.Fatalf("the sandbox ended before it said it was running:\n%s", seen.String())
	return "", "", ""
}

// readmeHeader is the columns of the README's kubectl get output.
func readmeHeader(block string) []string {
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(line, "NAME ") {
			return strings.Fields(line)
		}
	}
	return nil
}
