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

// Package moto runs moto's server (github.com/getmoto/moto, Python) for tests: an
// emulator of AWS written by others, against which our own emulators are checked.
// Our emulators are the oracle every controller test trusts; a second, independent
// one catches the places where ours drifted towards what the operator finds
// convenient rather than what AWS does. Where moto itself differs from AWS's
// documented behaviour, the tests say so, scenario by scenario.
package moto

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// Version is the moto release the comparisons hold for (pip install
// 'moto[server]==5.2.1'): the differences the tests list are that release's, so
// another one fails the tests until they are checked again.
const Version = "5.2.1"

// startTimeout bounds moto's start; it takes about 2 s on 2 cores.
const startTimeout = 60 * time.Second

// Start runs `python3 -m moto.server` on a free loopback port and returns its URL.
// The server is stopped when the test ends. It fails the test when moto is missing or
// is another version than Version.
func Start(t testing.TB) string {
	t.Helper()
	checkVersion(t)
	addr := simtest.FreeAddr(t)
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	cmd := exec.Command("python3", "-m", "moto.server", "-H", host, "-p", port)
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group: moto's server may start workers, and stopping the group
	// stops them all.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting moto: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { stop(cmd, exited) })

	url := "http://" + addr
	if err := waitReady(url, exited); err != nil {
		t.Fatalf("moto at %s: %v\n%s", url, err, out.String())
	}
	return url
}

// checkVersion fails the test unless python3 imports moto at Version.
func checkVersion(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := exec.CommandContext(ctx, "python3", "-c", "import moto; print(moto.__version__)").CombinedOutput()
	if err != nil {
		t.Fatalf("moto is not installed for python3 (pip install 'moto[server]==%s'): %v: %s", Version, err, got)
	}
	if v := strings.TrimSpace(string(got)); v != Version {
		t.Fatalf("moto %s is installed; the comparisons hold for %s (pip install 'moto[server]==%s')", v, Version, Version)
	}
}

// waitReady polls moto's own API until it answers, the process exits or startTimeout
// passes.
func waitReady(url string, exited <-chan struct{}) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("exited before answering")
		default:
		}
		resp, err := client.Get(url + "/moto-api/")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("did not answer within %v", startTimeout)
}

// stop ends moto's process group: SIGTERM, then SIGKILL after 10 s.
func stop(cmd *exec.Cmd, exited <-chan struct{}) {
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
	}
}

// syncBuffer collects the server's output for a failure message; the process writes
// it from another goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 1<<20 {
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
