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

// Package e2e tests the operator the way a user runs it: the manager binary is built
// and started as its own process against a real kube-apiserver and etcd (envtest) and
// the EC2 emulator, and the tests drive it only through kubectl and the Kubernetes API,
// looking at EC2 through the emulator. Nothing here calls the reconciler directly.
//
// Every test works in its own namespace and starts its own managers, each watching only
// that namespace, so the tests share one control plane and one emulator and still run
// in parallel.
package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ec2-operator/ec2-operator/internal/localenv"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/managerproc"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// markerEnv is set, with a value unique to this run, in the environment of every
// process the tests start (managers, and through envtest kube-apiserver and etcd). A
// process still carrying it after teardown is a leak, wherever it was reparented to.
const markerEnv = "EC2_OPERATOR_E2E_RUN"

var (
	// env is the shared control plane and emulator.
	env *localenv.Env
	// managerBin is the manager built from ./cmd for this run.
	managerBin string
	// managerSources are the files it was built from, which every test that starts it
	// stats (managerproc.Track), so that go test's cache reruns the package after a
	// change to the operator.
	managerSources []string
	// projectRoot is the repository root, the working directory of go commands.
	projectRoot string
	// k8s and clientset are cluster-admin clients of env.
	k8s       client.Client
	clientset kubernetes.Interface
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

// runMain is TestMain with deferred teardown, which os.Exit would skip.
func runMain(m *testing.M) int {
	marker := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := os.Setenv(markerEnv, marker); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "ec2-operator-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)

	projectRoot = testenv.ProjectRoot()
	managerBin = filepath.Join(tmp, "manager")
	start := time.Now()
	if err := managerproc.Build(context.Background(), projectRoot, managerBin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if managerSources, err = managerproc.Sources(context.Background(), projectRoot); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "e2e: built the manager in %s\n", time.Since(start).Round(time.Millisecond))

	env, err = localenv.Start(localenv.Options{
		WorkDir: filepath.Join(tmp, "env"),
		// Short transitions keep the suite fast; the operator's own 5s poll interval
		// then dominates every state change.
		Sim: ec2sim.Config{
			Seed:                 time.Now().UnixNano(),
			PendingDuration:      300 * time.Millisecond,
			StoppingDuration:     300 * time.Millisecond,
			ShuttingDownDuration: 300 * time.Millisecond,
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the local environment:", err)
		return 1
	}
	code := func() int {
		if k8s, err = client.New(env.Kube.Config, client.Options{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if clientset, err = kubernetes.NewForConfig(env.Kube.Config); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}()

	// Managers go first: the API server waits for their watches to end.
	stopAllManagers()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the local environment:", err)
		code = 1
	}
	if left := waitNoProcessWithEnv(markerEnv+"="+marker, 10*time.Second); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "e2e: processes left running after teardown: %v\n", left)
		code = 1
	}
	return code
}

// goCommand runs the go tool in the repository root. `go test` puts its own go first
// on PATH, so this is the toolchain that runs the tests.
func goCommand(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = projectRoot
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd
}
