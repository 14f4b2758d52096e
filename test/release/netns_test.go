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

package release

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// inNetns runs fn on an OS thread that has joined the network namespace at path, so
// that a process fn starts (a fork from that thread) lives there. An empty path runs
// fn as it is. The thread is never returned to the runtime: it ends with the goroutine,
// so no other goroutine runs in the namespace by accident. It lives until hold is
// closed: a child started with a parent-death signal gets it when the thread that
// forked it ends, not the process.
func inNetns(path string, fn func() error, hold <-chan struct{}) error {
	if path == "" {
		return fn()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // not unlocked: the thread leaves with the goroutine
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			errc <- err
			return
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("joining the network namespace %s: %w", path, err)
			return
		}
		errc <- fn()
		if hold != nil {
			<-hold
		}
	}()
	return <-errc
}

// isolatedNetwork is a network namespace whose only route is a /30 to the host, as
// a disconnected cluster's pods reach only what the cluster provides: no default
// route, no DNS server.
type isolatedNetwork struct {
	name, path       string
	hostIP, insideIP string
}

// newIsolatedNetwork makes the namespace and its veth pair with iproute2, and removes
// both when the test ends. It needs root, as CI runs the tests.
func newIsolatedNetwork(t *testing.T) *isolatedNetwork {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("a network namespace needs root: run make test-release as root, as CI does")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatal("iproute2's ip is needed for the network namespace (apt-get install iproute2)")
	}
	// The PID keeps two runs on one machine apart; the subnet is in 10.211/16, which
	// nothing on the machine uses.
	id := os.Getpid() % 16000
	n := &isolatedNetwork{
		name:     fmt.Sprintf("ec2op-disc-%d", id),
		hostIP:   fmt.Sprintf("10.211.%d.%d", id/64, id%64*4+1),
		insideIP: fmt.Sprintf("10.211.%d.%d", id/64, id%64*4+2),
	}
	n.path = "/var/run/netns/" + n.name
	hostIf, insideIf := fmt.Sprintf("ec2oph%d", id), fmt.Sprintf("ec2opn%d", id)
	_ = exec.Command("ip", "netns", "delete", n.name).Run() // a crashed earlier run's
	t.Cleanup(func() {
		// Deleting the namespace removes the veth pair with it.
		if out, err := exec.Command("ip", "netns", "delete", n.name).CombinedOutput(); err != nil {
			t.Errorf("ip netns delete %s: %v: %s", n.name, err, out)
		}
	})
	for _, args := range [][]string{
		{"netns", "add", n.name},
		{"link", "add", hostIf, "type", "veth", "peer", "name", insideIf},
		{"link", "set", insideIf, "netns", n.name},
		{"addr", "add", n.hostIP + "/30", "dev", hostIf},
		{"link", "set", hostIf, "up"},
		{"-n", n.name, "addr", "add", n.insideIP + "/30", "dev", insideIf},
		{"-n", n.name, "link", "set", insideIf, "up"},
		{"-n", n.name, "link", "set", "lo", "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return n
}

// expose makes a service of the host's loopback (addr) reachable from inside the
// namespace at the host's end of the veth, as a VPC endpoint or the cluster's service
// network makes an endpoint reachable, and counts the connections.
func (n *isolatedNetwork) expose(t *testing.T, addr string) (inside string, conns *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(n.hostIP, "0"))
	if err != nil {
		t.Fatal(err)
	}
	conns = &atomic.Int64{}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				forward(in, addr)
			}()
		}
	}()
	return l.Addr().String(), conns
}

// forward copies one connection to addr and back until either side closes.
func forward(in net.Conn, addr string) {
	defer in.Close()
	out, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer out.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(out, in); done <- struct{}{} }()
	go func() { _, _ = io.Copy(in, out); done <- struct{}{} }()
	<-done
}

// dialFromInside tries a TCP connection from inside the namespace.
func (n *isolatedNetwork) dialFromInside(addr string) error {
	return inNetns(n.path, func() error {
		conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err == nil {
			conn.Close()
		}
		return err
	}, nil)
}
