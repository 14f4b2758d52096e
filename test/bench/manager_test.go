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

package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/managerproc"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
	"github.com/ec2-operator/ec2-operator/internal/sim/simworld"
	"github.com/ec2-operator/ec2-operator/internal/sim/stssim"
)

// manager is the manager binary running as its own process.
type manager struct {
	*managerproc.Process
	// metricsURL is its plain-HTTP /metrics, which the bench reads reconcile
	// latencies from.
	metricsURL string
}

// benchSTS serves STS for the manager, which reads its own account
// (sts:GetCallerIdentity) before it launches: it knows the bench's key, in the
// emulator's account.
func benchSTS(t *testing.T) string {
	t.Helper()
	return simworld.New(t, simworld.STS(stssim.Config{Seed: 1}), simworld.User(ec2sim.DefaultAccountID, "bench", "bench")).STSURL
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
	if err := managerproc.Track(managerSources); err != nil {
		t.Fatal(err)
	}
	probe, metrics := simtest.FreeAddr(t), simtest.FreeAddr(t)
	p, err := managerproc.Start(managerproc.Options{
		Binary: managerBin,
		Args: append([]string{
			// Plain HTTP on the loopback address: what is measured is the manager's
			// work, and the bench reads its reconcile histogram.
			"--metrics-bind-address=" + metrics,
			"--metrics-secure=false",
			"--health-probe-bind-address=" + probe,
			"--watch-namespaces=" + ns,
			// The peers' harness: a resync of a minute, so that resyncs do not land in a
			// phase's measurements.
			"--resync-period=60s",
		}, args...),
		Env: append(os.Environ(),
			"KUBECONFIG="+kc,
			"AWS_REGION="+ec2sim.DefaultRegion,
			"AWS_ENDPOINT_URL_EC2="+simURL,
			"AWS_ENDPOINT_URL_STS="+benchSTS(t),
			"AWS_ACCESS_KEY_ID=bench",
			"AWS_SECRET_ACCESS_KEY=bench",
			"AWS_EC2_METADATA_DISABLED=true",
		),
		LogPath:   filepath.Join(dir, "manager.log"),
		ProbeAddr: probe,
		// Stopped as the kubelet does (SIGTERM), with time to drain a thousand objects.
		StopGrace:     40 * time.Second,
		DieWithParent: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	m := &manager{Process: p, metricsURL: "http://" + metrics + "/metrics"}
	t.Cleanup(func() {
		m.stop()
		if t.Failed() {
			t.Logf("manager log (tail):\n%s", tail(m.Log(), 4000))
		}
	})
	if err := m.WaitReady(context.Background(), 60*time.Second); err != nil {
		t.Fatalf("%v:\n%s", err, tail(m.Log(), 4000))
	}
	// The manager is ready (its probe answers) a second or two before its
	// controllers have synced their caches and started their workers; a phase timed
	// from readiness would count that start-up as the phase's own time.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(m.Log(), `"msg":"Starting workers","controller":"ec2instance"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the manager's EC2Instance workers did not start within a minute:\n%s", tail(m.Log(), 4000))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return m
}

// stop stops the manager as the kubelet does (SIGTERM) and waits.
func (m *manager) stop() { m.Stop() }

// peakRSS is the process's peak resident set size (VmHWM) in MiB.
func (m *manager) peakRSS() float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", m.Pid()))
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

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
