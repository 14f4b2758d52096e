package e2e

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// managerProcess is one manager binary running as its own process.
type managerProcess struct {
	name        string
	cmd         *exec.Cmd
	logPath     string
	metricsAddr string
	probeAddr   string

	// exited is closed when the process has ended; err is then its exit status.
	exited chan struct{}
	err    error
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
		err := m.waitReady(60 * time.Second)
		if err == nil {
			t.Logf("started manager %s (pid %d), metrics %s, probes %s", name, m.cmd.Process.Pid, m.metricsAddr, m.probeAddr)
			return m
		}
		if attempt < 3 && m.hasExited() && strings.Contains(m.log(), "address already in use") {
			t.Logf("manager %s lost a port race, retrying: %v", name, err)
			continue
		}
		t.Fatal(err)
	}
}

// launchManager starts the process and registers its cleanup. environ replaces the
// shared environment (env.ManagerEnv) when it is not nil.
func launchManager(t *testing.T, name, ns string, attempt int, environ []string, extraArgs []string) *managerProcess {
	t.Helper()
	m := &managerProcess{
		name:        name,
		logPath:     filepath.Join(t.TempDir(), fmt.Sprintf("%s-%d.log", name, attempt)),
		metricsAddr: freeAddr(t),
		probeAddr:   freeAddr(t),
		exited:      make(chan struct{}),
	}
	logFile, err := os.Create(m.logPath)
	if err != nil {
		t.Fatal(err)
	}
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
	m.cmd = exec.Command(managerBin, args...)
	m.cmd.Env = environ
	if environ == nil {
		m.cmd.Env = env.ManagerEnv()
	}
	m.cmd.Stdout, m.cmd.Stderr = logFile, logFile
	// Should the test binary die without cleanup (a -timeout panic), the kernel kills
	// the manager rather than leaving it running against a dead control plane.
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := m.cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("starting manager %s: %v", name, err)
	}
	running.Store(m, struct{}{})
	go func() {
		m.err = m.cmd.Wait()
		logFile.Close()
		close(m.exited)
	}()
	t.Cleanup(func() {
		m.stop()
		if t.Failed() {
			t.Logf("manager %s log (last 80 lines of %s):\n%s", name, m.logPath, fileTail(m.logPath, 80))
		}
	})
	return m
}

// waitReady waits until the manager's readiness probe answers 200, and fails fast
// when the process exits.
func (m *managerProcess) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if m.hasExited() {
			return fmt.Errorf("manager %s exited before it was ready: %v", m.name, m.err)
		}
		code, err := probe(m.probeAddr, "/readyz")
		if err == nil && code == http.StatusOK {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("manager %s not ready after %s: %d %v", m.name, timeout, code, err)
		}
		time.Sleep(pollInterval)
	}
}

// stop asks the manager to shut down (releasing its lease) and kills it if it has not
// exited within 15s.
func (m *managerProcess) stop() {
	defer running.Delete(m)
	if m.hasExited() {
		return
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.exited:
	case <-time.After(15 * time.Second):
		m.kill()
	}
}

// kill ends the manager with SIGKILL, as a node failure or the OOM killer would: no
// lease release, no graceful shutdown. It returns once the process is gone.
func (m *managerProcess) kill() {
	_ = m.cmd.Process.Kill()
	<-m.exited
}

func (m *managerProcess) hasExited() bool {
	select {
	case <-m.exited:
		return true
	default:
		return false
	}
}

// log returns the manager's whole log so far.
func (m *managerProcess) log() string {
	b, _ := os.ReadFile(m.logPath)
	return string(b)
}

// stopAllManagers stops the managers that are still running.
func stopAllManagers() {
	running.Range(func(k, _ any) bool {
		k.(*managerProcess).stop()
		return true
	})
}

// freeAddr returns a loopback address with a port that was free a moment ago. Another
// process could take it before the manager binds it; the manager would then exit,
// which startManager reports.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// probe GETs a path on a manager's plain-HTTP probe address and returns the status.
func probe(addr, path string) (int, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + path)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}

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
