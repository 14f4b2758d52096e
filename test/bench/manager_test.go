package bench

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	ec2sim "github.com/ec2-operator/ec2-operator/internal/sim/ec2"
	stssim "github.com/ec2-operator/ec2-operator/internal/sim/sts"
)

// manager is the manager binary running as its own process.
type manager struct {
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
}

// benchSTS serves STS for the manager, which reads its own account
// (sts:GetCallerIdentity) before it launches: it knows the bench's key, in the
// emulator's account.
func benchSTS(t *testing.T) string {
	t.Helper()
	s := stssim.New(stssim.Config{Seed: 1})
	s.AddUser(ec2sim.DefaultAccountID, "bench", "bench")
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

// startManager starts the manager against the proxy and the emulator, watching ns,
// and waits until it is ready.
func startManager(t *testing.T, kubeconfig, simURL, ns string, args []string) *manager {
	t.Helper()
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kc, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	probe := freeAddr(t)
	m := &manager{logPath: filepath.Join(dir, "manager.log"), done: make(chan struct{})}
	logFile, err := os.Create(m.logPath)
	if err != nil {
		t.Fatal(err)
	}
	m.cmd = exec.Command(managerBin, append([]string{
		"--metrics-bind-address=0",
		"--health-probe-bind-address=" + probe,
		"--watch-namespaces=" + ns,
		// The peers' harness: a resync of a minute, so that resyncs do not land in a
		// phase's measurements.
		"--resync-period=60s",
	}, args...)...)
	m.cmd.Env = append(os.Environ(),
		"KUBECONFIG="+kc,
		"AWS_REGION="+ec2sim.DefaultRegion,
		"AWS_ENDPOINT_URL_EC2="+simURL,
		"AWS_ENDPOINT_URL_STS="+benchSTS(t),
		"AWS_ACCESS_KEY_ID=bench",
		"AWS_SECRET_ACCESS_KEY=bench",
		"AWS_EC2_METADATA_DISABLED=true",
	)
	m.cmd.Stdout, m.cmd.Stderr = logFile, logFile
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = m.cmd.Wait()
		logFile.Close()
		close(m.done)
	}()
	t.Cleanup(func() {
		m.stop()
		if t.Failed() {
			data, _ := os.ReadFile(m.logPath)
			t.Logf("manager log (tail):\n%s", tail(string(data), 4000))
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-m.done:
			data, _ := os.ReadFile(m.logPath)
			t.Fatalf("the manager exited:\n%s", tail(string(data), 4000))
		default:
		}
		if resp, err := http.Get("http://" + probe + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the manager did not become ready")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop stops the manager as the kubelet does (SIGTERM) and waits.
func (m *manager) stop() {
	select {
	case <-m.done:
		return
	default:
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(40 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.done
	}
}

// peakRSS is the process's peak resident set size (VmHWM) in MiB.
func (m *manager) peakRSS() float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", m.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
