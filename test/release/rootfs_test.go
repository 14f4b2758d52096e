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
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/ec2-operator/ec2-operator/internal/images"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// hostPlatform is the image platform this machine runs.
func hostPlatform(t *testing.T) images.Platform {
	t.Helper()
	switch arch := goarch(); arch {
	case "amd64":
		return images.LinuxAMD64
	case "arm64":
		return images.LinuxARM64
	default:
		t.Fatalf("no release image for %s", arch)
		return images.Platform{}
	}
}

// hostImage returns the image of a layout for this machine's platform and its config.
func hostImage(t *testing.T, name string) (v1.Image, *v1.ConfigFile) {
	t.Helper()
	idx, _, err := images.ReadLayout(layoutDir(t, name))
	if err != nil {
		t.Fatal(err)
	}
	img, err := images.ImageFor(idx, hostPlatform(t))
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	return img, cf
}

// unpack writes the image's filesystem into a new directory, as a container runtime
// prepares a root filesystem (the directory itself 0755, so the image's user can
// reach it).
func unpack(t *testing.T, img v1.Image) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rootfs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := images.Unpack(img, dir); err != nil {
		t.Fatal(err)
	}
	// TempDir's parents are 0700; the image's user must traverse them only to reach
	// the root, which chroot does as root, so they stay as they are.
	return dir
}

// container is a process started from an unpacked image: its entrypoint (or argv),
// chrooted into the image's filesystem, as the image's user, with only the given
// environment, as a container runtime would start it (without namespaces for network
// or PIDs, so that it reaches the test control plane on loopback).
type container struct {
	name string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error
}

// running holds the containers not yet stopped, so TestMain stops them before the
// control plane.
var running sync.Map // *container -> struct{}

// startContainer runs argv (the image's entrypoint and arguments) in rootfs as user
// ("UID:GID", from the image config).
func startContainer(t *testing.T, name, rootfs, user string, argv, environ []string) *container {
	t.Helper()
	return startContainerIn(t, "", name, rootfs, user, argv, environ)
}

// startContainerIn is startContainer in the network namespace at netnsPath (empty:
// the test's own).
func startContainerIn(t *testing.T, netnsPath, name, rootfs, user string, argv, environ []string) *container {
	t.Helper()
	uid, gid := parseUser(t, user)
	// Container runtimes (and the kubelet) provide /etc/hosts; programs resolve
	// localhost through it. A test may have written one with more names.
	if _, err := os.Stat(filepath.Join(rootfs, "etc/hosts")); err != nil {
		writeInto(t, rootfs, "/etc/hosts", []byte(localHosts))
	}
	c := &container{name: name, out: &syncBuffer{}, done: make(chan struct{})}
	c.cmd = exec.Command(argv[0], argv[1:]...)
	c.cmd.Path = argv[0] // a path inside the image, resolved after the chroot
	c.cmd.Dir = "/"
	c.cmd.Env = environ
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	c.cmd.SysProcAttr = imageUser(t, rootfs, uid, gid)
	if err := inNetns(netnsPath, c.cmd.Start, c.done); err != nil {
		t.Fatalf("starting %s from its image: %v", name, err)
	}
	running.Store(c, struct{}{})
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.stop()
		if t.Failed() {
			t.Logf("%s output (last 4000 bytes):\n%s", name, tail(c.out.String(), 4000))
		}
	})
	return c
}

// imageUser chroots into rootfs and switches to uid:gid. As root that is the real
// user id, so file permissions in the image are checked as a runtime checks them. A
// non-root user cannot switch users, so the process runs in a user namespace that
// maps uid:gid to the caller; the image's permissions then matter less, and the test
// says so.
func imageUser(t *testing.T, rootfs string, uid, gid int) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{
		Chroot:     rootfs,
		Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}},
		Pdeathsig:  syscall.SIGKILL,
	}
	if os.Geteuid() != 0 {
		t.Logf("not root: running the image's user %d:%d in a user namespace mapped to uid %d", uid, gid, os.Geteuid())
		attr.Cloneflags = syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: os.Getegid(), Size: 1}}
		attr.Credential.NoSetGroups = true
	}
	return attr
}

func parseUser(t *testing.T, user string) (int, int) {
	t.Helper()
	u, g, ok := strings.Cut(user, ":")
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if !ok || err1 != nil || err2 != nil || uid == 0 {
		t.Fatalf("image user %q is not a numeric non-root UID:GID", user)
	}
	return uid, gid
}

// wait waits for the process to end and returns its error.
func (c *container) wait(timeout time.Duration) error {
	select {
	case <-c.done:
		return c.err
	case <-time.After(timeout):
		return fmt.Errorf("%s still runs after %s", c.name, timeout)
	}
}

// stop sends SIGTERM, as the kubelet does, and kills it if it lingers.
func (c *container) stop() {
	if _, ok := running.LoadAndDelete(c); !ok {
		return
	}
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// stopAll stops every container still running.
func stopAll() {
	running.Range(func(k, _ any) bool {
		k.(*container).stop()
		return true
	})
}

// localHosts is the /etc/hosts a container runtime writes for a pod on the host network.
const localHosts = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"

// writeInto writes a file into an unpacked image, readable by the image's user, as a
// mounted Secret or ConfigMap would be.
func writeInto(t *testing.T, rootfs, path string, data []byte) {
	t.Helper()
	full := filepath.Join(rootfs, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond every 200 ms until it returns "" or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, cond func() string) {
	t.Helper()
	simtest.Eventually(t, timeout, 200*time.Millisecond, cond)
}

// syncBuffer is a bytes.Buffer safe for a process writing and a test reading.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
