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

// Package bench measures what bulk changes cost: N EC2Instances created at once, the
// manager restarted with them, and all deleted at once, with the manager binary as its
// own process against a real kube-apiserver (envtest) and the EC2 emulator. It counts
// per instance the EC2 calls by action, the manager's writes to EC2Instances and its
// peak memory, and the wall time of each phase.
//
// `make test` runs TestBulkChangesStayUnderTheirCallCeilings (20 objects, EC2's
// documented API limits enforced) and fails when a ratio goes over its ceiling, so a
// regression in calls per instance fails CI. `make bench` runs TestBench with 100 and
// 1,000 objects and prints the table; timings are reported, never asserted.
package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ec2-operator/ec2-operator/internal/sim/managerproc"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

var (
	env *testenv.Environment
	// managerBin is the manager, built from ./cmd for this run.
	managerBin string
	// managerSources are the files it was built from, which every test that starts it
	// stats (managerproc.Track), so that go test's cache reruns the package after a
	// change to the operator.
	managerSources []string
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	dir, err := os.MkdirTemp("", "bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// BENCH_MANAGER measures another build (an earlier commit) in the same harness.
	managerBin = os.Getenv("BENCH_MANAGER")
	if managerBin == "" {
		managerBin = filepath.Join(dir, "manager")
		if err := managerproc.Build(context.Background(), testenv.ProjectRoot(), managerBin); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if managerSources, err = managerproc.Sources(context.Background(), testenv.ProjectRoot()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	env, err = testenv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping envtest:", err)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}
