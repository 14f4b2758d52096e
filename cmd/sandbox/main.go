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

// Command sandbox runs the whole operator on one machine with no cluster and no AWS
// account: a local kube-apiserver and etcd, the EC2 emulator, and the manager as its
// own process. It installs the CRD, applies the sample EC2Instance, waits for it to be
// Ready and prints what to try next. Ctrl-C tears everything down.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ec2-operator/ec2-operator/internal/localenv"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/managerproc"
)

func main() {
	var (
		workDir   = flag.String("work-dir", "bin/sandbox", "Where the kubeconfig and the manager's log are written.")
		manager   = flag.String("manager", "bin/manager", "The manager binary (make build writes it).")
		sample    = flag.String("sample", "config/samples/compute_v1alpha1_ec2instance.yaml", "The EC2Instance applied at start; empty applies none.")
		simAddr   = flag.String("ec2-listen", "127.0.0.1:8787", "Where the EC2 emulator listens.")
		probeAddr = flag.String("health-probe-bind-address", "127.0.0.1:8081", "The manager's probe address.")
		metrics   = flag.String("metrics-bind-address", "127.0.0.1:8443", "The manager's metrics address (HTTPS, authenticated).")
		pending   = flag.Duration("pending-duration", 5*time.Second, "How long emulated instances stay pending (and stopping, shutting-down).")
		once      = flag.Bool("once", false, "Tear down as soon as the sample is Ready (a smoke test) instead of waiting for Ctrl-C.")
	)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *workDir, *manager, *sample, *simAddr, *probeAddr, *metrics, *pending, *once); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, workDir, manager, sample, simAddr, probeAddr, metricsAddr string, pending time.Duration, once bool) error {
	if _, err := os.Stat(manager); err != nil {
		return fmt.Errorf("manager binary %s is missing: run `make build` (make sandbox does): %w", manager, err)
	}
	say("starting kube-apiserver, etcd and the EC2 emulator")
	env, err := localenv.Start(localenv.Options{
		SimAddr: simAddr,
		WorkDir: workDir,
		Sim: ec2sim.Config{Seed: time.Now().UnixNano(), PendingDuration: pending, StoppingDuration: pending,
			ShuttingDownDuration: pending, TerminatedRetention: 10 * time.Minute},
	})
	if err != nil {
		return err
	}
	defer func() {
		say("stopping the control plane and the EC2 emulator")
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "sandbox: stopping:", err)
		}
	}()

	logPath := filepath.Join(workDir, "manager.log")
	mgr, err := startManager(ctx, env, manager, logPath, probeAddr, metricsAddr)
	if mgr != nil {
		defer func() {
			say("stopping the manager")
			mgr.Stop()
		}()
	}
	if err != nil {
		return err
	}
	if err := applySample(ctx, env, sample, logPath); err != nil {
		return err
	}
	if once {
		return nil
	}

	printHowTo(env, logPath)

	select {
	case <-ctx.Done():
		fmt.Println()
		return nil
	case <-mgr.Exited():
		return fmt.Errorf("the manager exited (see %s): %v", logPath, mgr.Err())
	}
}

// startManager starts the manager binary against the sandbox and waits until it is
// ready. The sample is applied only then, so that a manager that cannot start (a port
// in use, a bad flag) is reported as that and not as a sample that never became Ready.
// A returned process is running (and must be stopped) even when err is set.
func startManager(ctx context.Context, env *localenv.Env, manager, logPath, probeAddr, metricsAddr string) (*managerproc.Process, error) {
	mgr, err := managerproc.Start(managerproc.Options{
		Binary: manager,
		Args: []string{"--metrics-bind-address=" + metricsAddr, "--health-probe-bind-address=" + probeAddr,
			"--resync-period=30s", "--poll-interval=1s", "--zap-devel"},
		Env:       env.ManagerEnv(),
		LogPath:   logPath,
		ProbeAddr: probeAddr,
	})
	if err != nil {
		return nil, err
	}
	say("manager started (pid %d), logging to %s", mgr.Pid(), logPath)
	if err := mgr.WaitReady(ctx, 60*time.Second); err != nil {
		return mgr, fmt.Errorf("%w (see %s)", err, logPath)
	}
	return mgr, nil
}

// applySample applies the sample, if any, and waits for it to be Ready.
func applySample(ctx context.Context, env *localenv.Env, sample, logPath string) error {
	if sample == "" {
		return nil
	}
	kubectl := func(args ...string) error {
		cmd := exec.CommandContext(ctx, env.KubectlPath, append([]string{"--kubeconfig", env.Kubeconfig}, args...)...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		return cmd.Run()
	}
	say("applying %s", sample)
	if err := kubectl("apply", "-f", sample); err != nil {
		return err
	}
	say("waiting for the sample to be Ready")
	if err := kubectl("wait", "ec2instance", "--all", "--for=condition=Ready", "--timeout=120s"); err != nil {
		return fmt.Errorf("the sample did not become Ready (see %s): %w", logPath, err)
	}
	return kubectl("get", "ec2", "-o", "wide")
}

// printHowTo tells the user how to drive the running sandbox.
func printHowTo(env *localenv.Env, logPath string) {
	fmt.Printf(`
The sandbox is running. In another terminal:

  export KUBECONFIG=%[1]s
  alias kubectl=%[2]s
  kubectl get ec2 -w                                   # watch instances
  kubectl explain ec2instance.spec                     # every field, documented
  kubectl patch ec2 web-1 --type merge -p '{"spec":{"instanceType":"t3.small"}}'
  kubectl patch ec2 web-1 --type merge -p '{"spec":{"desiredState":"stopped"}}'
  kubectl describe ec2 web-1                           # conditions and events
  kubectl delete ec2 web-1                             # terminates the instance

  kubectl apply -f config/samples/compute_v1alpha1_awsaccount.yaml   # a second AWS account
  kubectl get awsaccount payments                      # Ready, account 111122223333
  kubectl create namespace payments-dev                # a namespace the account allows
  kubectl annotate namespace payments-dev compute.ec2-operator.dev/default-account=payments
  kubectl apply -n payments-dev -f config/samples/compute_v1alpha1_ec2instance.yaml   # lands in the second account

  AWS_ENDPOINT_URL_EC2=%[3]s AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_REGION=us-east-1 aws ec2 describe-instances
  curl -s %[3]s/_sim/instances                         # the emulator's view
  tail -f %[4]s                                        # the manager's log

Press Ctrl-C to stop everything.
`, env.Kubeconfig, env.KubectlPath, env.SimURL, logPath)

}

func say(format string, args ...any) {
	fmt.Printf("sandbox: "+format+"\n", args...)
}
