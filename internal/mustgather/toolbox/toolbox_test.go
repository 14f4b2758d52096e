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

package toolbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The scripts oc adm must-gather runs in the image (openshift/oc,
// pkg/cli/admin/mustgather/mustgather.go: volumeUsageCheckerScript, the gather and
// copy containers' commands, and rsync's tar strategy), as oc formats them.
const ocVolumeChecker = `
echo "volume percentage checker started....."
while true; do
usage_percentage=$(df -P "%s" | awk 'NR==2 {print $5}' | sed 's/%%//')
echo "volume usage percentage $usage_percentage"
if [ "$usage_percentage" -gt "%d" ]; then
	echo "Disk usage exceeds the volume percentage of %d for mounted directory. Exiting..."
	# kill gathering process in gather container to prevent disk to use more.
	pkill --signal SIGKILL -f %s
	exit 1
fi
sleep 5
done`

const ocCopyCommand = "trap : TERM INT; sleep infinity & wait"

// builtGather is cmd/must-gather, built once for the package's tests (a build takes
// seconds; each test used to pay it).
var builtGather struct {
	once      sync.Once
	dir, path string
	err       error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtGather.dir != "" {
		_ = os.RemoveAll(builtGather.dir)
	}
	os.Exit(code)
}

// toolboxBin links the toolbox's names to cmd/must-gather (built once) in a directory
// of the test's own, as the image does on PATH.
func toolboxBin(t *testing.T) string {
	t.Helper()
	builtGather.once.Do(func() {
		if builtGather.dir, builtGather.err = os.MkdirTemp("", "toolbox-test-"); builtGather.err != nil {
			return
		}
		builtGather.path = filepath.Join(builtGather.dir, "gather")
		out, err := exec.Command("go", "build", "-o", builtGather.path, "../../../cmd/must-gather").CombinedOutput()
		if err != nil {
			builtGather.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if builtGather.err != nil {
		t.Fatal(builtGather.err)
	}
	dir := t.TempDir()
	if err := os.Symlink(builtGather.path, filepath.Join(dir, "gather")); err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		if err := os.Symlink("gather", filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runIn runs a command of the toolbox directory with only it on PATH, bounded by a
// timeout.
func runIn(t *testing.T, dir string, timeout time.Duration, stdin []byte, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, args[0]), args[1:]...)
	cmd.Env = []string{"PATH=" + dir}
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

func TestOcGatherCommand(t *testing.T) {
	dir := toolboxBin(t)
	out := t.TempDir()
	t.Run("the gather runs next to the disk usage checker", func(t *testing.T) {
		gatherCmd := "sleep 1"
		script := fmt.Sprintf(ocVolumeChecker, out, 100, 100, gatherCmd)
		stdout, stderr, err := runIn(t, dir, 30*time.Second, nil, "bash", "-c", script+" & "+gatherCmd+"; sync")
		if err != nil {
			t.Fatalf("%v\nstdout: %s\nstderr: %s", err, stdout, stderr)
		}
		if !strings.Contains(stdout, "volume percentage checker started") {
			t.Errorf("the checker did not start: %q", stdout)
		}
		var pct int
		if _, err := fmt.Sscanf(stdout[strings.Index(stdout, "volume usage percentage"):], "volume usage percentage %d", &pct); err != nil || pct < 0 || pct > 100 {
			t.Errorf("df | awk | sed gave no percentage: %q (%v)", stdout, err)
		}
		if stderr != "" {
			t.Errorf("stderr: %s", stderr)
		}
	})
	t.Run("a full volume stops the gather", func(t *testing.T) {
		// A threshold of 0 is exceeded by any used volume, so the checker kills the
		// gather with pkill -f; the script then ends long before the gather would. The
		// gather is a script in the test's directory, so the pattern matches nothing
		// else on the machine.
		gatherCmd := filepath.Join(t.TempDir(), "slow-gather")
		if err := os.WriteFile(gatherCmd, []byte("#!"+dir+"/bash\nsleep 60\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		script := fmt.Sprintf(ocVolumeChecker, out, 0, 0, gatherCmd)
		start := time.Now()
		stdout, stderr, err := runIn(t, dir, 30*time.Second, nil, "bash", "-c", script+" & "+gatherCmd+"; sync")
		if err != nil {
			t.Fatalf("%v\nstdout: %s\nstderr: %s", err, stdout, stderr)
		}
		if !strings.Contains(stdout, "Disk usage exceeds") || time.Since(start) > 20*time.Second {
			t.Errorf("the gather was not stopped (%s): %q %q", time.Since(start), stdout, stderr)
		}
	})
}

func TestOcCopyContainer(t *testing.T) {
	dir := toolboxBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "bash"), "-c", ocCopyCommand)
	cmd.Env = []string{"PATH=" + dir}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("the copy container's shell ended by itself: %v %s", err, stderr.String())
	case <-time.After(2 * time.Second):
	}
	// oc deletes the pod when it is done; the trapped TERM ends the script.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("TERM did not end the copy container's shell")
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
}

func TestOcRsyncTarStrategy(t *testing.T) {
	dir := toolboxBin(t)
	src := t.TempDir()
	files := map[string]string{"version": "v1\n", "namespaces/ns/core/pods.yaml": "items: []\n", "gather.log": "done\n"}
	for name, data := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := runIn(t, dir, 10*time.Second, nil, "tar", "--version"); err != nil {
		t.Fatalf("tar --version (oc's check for tar): %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "rsync")); err == nil {
		t.Fatal("the image has no rsync, so oc uses tar")
	}
	archive, stderr, err := runIn(t, dir, 10*time.Second, nil, "tar", "-C", src+"/", "-c", ".")
	if err != nil {
		t.Fatalf("tar -c: %v %s", err, stderr)
	}
	dst := t.TempDir()
	if _, stderr, err := runIn(t, dir, 10*time.Second, []byte(archive), "tar", "-C", dst, "-ox"); err != nil {
		t.Fatalf("tar -x: %v %s", err, stderr)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dst, name))
		if err != nil || string(got) != want {
			t.Errorf("%s after the round trip: %q, %v", name, got, err)
		}
	}
}
