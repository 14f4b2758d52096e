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
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/sim/managerproc"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// managerProcess is one manager binary running as its own process.
type managerProcess struct {
	*managerproc.Process
	name        string
	metricsAddr string
	probeAddr   string
}

// running holds every manager not yet stopped, so TestMain can stop them before the
// control plane even when a test did not get to its cleanup.
var running sync.Map // *managerProcess -> struct{}

// startManager starts a manager watching only namespace ns, with metrics and probes
// on free loopback ports, and waits until it answers its readiness probe. extraArgs
// are appended to the flags. The process is stopped when the test ends, and its log
// tail is printed when the test failed.
func startManager(t *testing.T, name, ns string, extraArgs ...string) *managerProcess {
	t.Helper()
	return startManagerWithEnv(t, name, ns, nil, extraArgs...)
}

// startManagerWithEnv is startManager with the process environment environ (nil: the
// shared env.ManagerEnv).
func startManagerWithEnv(t *testing.T, name, ns string, environ []string, extraArgs ...string) *managerProcess {
	t.Helper()
	// A port found free can be taken by a parallel test before the manager binds it;
	// the manager then exits at once, and another pair of ports is tried.
	for attempt := 1; ; attempt++ {
		m := launchManager(t, name, ns, attempt, environ, extraArgs)
		err := m.WaitReady(context.Background(), 60*time.Second)
		if err == nil {
			// The readiness probe answers before the metrics server listens (it starts
			// as a runnable of its own; on a loaded machine over 2 s later), and tests
			// scrape or handshake with it at once, where Prometheus would retry.
			err = waitListening(m, 60*time.Second)
		}
		if err == nil {
			t.Logf("started manager %s (pid %d), metrics %s, probes %s", name, m.Pid(), m.metricsAddr, m.probeAddr)
			return m
		}
		if attempt < 3 && m.HasExited() && strings.Contains(m.Log(), "address already in use") {
			t.Logf("manager %s lost a port race, retrying: %v", name, err)
			continue
		}
		t.Fatalf("manager %s: %v", name, err)
	}
}

// launchManager starts the process and registers its cleanup. environ replaces the
// shared environment (env.ManagerEnv) when it is not nil.
func launchManager(t *testing.T, name, ns string, attempt int, environ []string, extraArgs []string) *managerProcess {
	t.Helper()
	m := &managerProcess{name: name, metricsAddr: simtest.FreeAddr(t), probeAddr: simtest.FreeAddr(t)}
	args := append([]string{
		"--metrics-bind-address=" + m.metricsAddr,
		"--health-probe-bind-address=" + m.probeAddr,
		// No period is set here: the manager runs with the periods it ships with, so
		// a reaction that should follow an event is not hidden by a short resync. A
		// test that needs a shorter one passes it and says why.
		// Scoping each manager to its test's namespace is what lets tests share the
		// control plane and run in parallel.
		"--watch-namespaces=" + ns,
		"--zap-devel",
	}, extraArgs...)
	if environ == nil {
		environ = env.ManagerEnv()
	}
	if err := managerproc.Track(managerSources); err != nil {
		t.Fatal(err)
	}
	p, err := managerproc.Start(managerproc.Options{
		Binary:    managerBin,
		Args:      args,
		Env:       environ,
		LogPath:   filepath.Join(t.TempDir(), fmt.Sprintf("%s-%d.log", name, attempt)),
		ProbeAddr: m.probeAddr,
		// Should the test binary die without cleanup (a -timeout panic), the kernel
		// kills the manager rather than leaving it running against a dead control plane.
		DieWithParent: true,
	})
	if err != nil {
		t.Fatalf("manager %s: %v", name, err)
	}
	m.Process = p
	running.Store(m, struct{}{})
	t.Cleanup(func() {
		m.stop()
		if t.Failed() {
			t.Logf("manager %s log (last 80 lines of %s):\n%s", name, m.LogPath, fileTail(m.LogPath, 80))
		}
	})
	return m
}

// stop asks the manager to shut down (releasing its lease) and kills it if it has not
// exited within 15s.
func (m *managerProcess) stop() {
	defer running.Delete(m)
	m.Stop()
}

// stopAllManagers stops the managers that are still running.
func stopAllManagers() {
	running.Range(func(k, _ any) bool {
		k.(*managerProcess).stop()
		return true
	})
}

// probe GETs a path on a manager's plain-HTTP probe address and returns the status.
func probe(addr, path string) (int, error) { return managerproc.Probe(addr, path) }

// processesWithEnv returns the pids (other than this process) whose environment holds
// the exact entry kv. It reads /proc, so it finds children, grandchildren and orphans
// alike; processes of other users, unreadable here, are not ours anyway.
func processesWithEnv(kv string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(kv)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, entry := range bytes.Split(environ, []byte{0}) {
			if bytes.Equal(entry, want) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// waitNoProcessWithEnv waits up to timeout for every process carrying kv to end and
// returns the ones still there, with their command lines.
func waitNoProcessWithEnv(kv string, timeout time.Duration) []string {
	deadline := time.Now().Add(timeout)
	for {
		pids := processesWithEnv(kv)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			var out []string
			for _, pid := range pids {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				out = append(out, fmt.Sprintf("%d %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
			}
			return out
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitListening waits until the manager's metrics address accepts connections, up to
// timeout, and fails at once when the manager exits.
func waitListening(m *managerProcess, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		conn, err := net.DialTimeout("tcp", m.metricsAddr, time.Second)
		if err == nil {
			return conn.Close()
		}
		if m.HasExited() {
			return fmt.Errorf("the manager exited before its metrics server listened: %v", err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the metrics server did not listen on %s within %s: %v", m.metricsAddr, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
