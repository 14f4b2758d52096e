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

// Command must-gather is the ec2-operator must-gather image's one binary. Run as
// /usr/bin/gather (what `oc adm must-gather` runs) it writes the support archive to
// /must-gather; run as bash, sh, tar, sleep and the other names the image links to
// it, it is the toolbox oc needs in the image (internal/mustgather/toolbox).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime/pkg/client/config"

	"github.com/ec2-operator/ec2-operator/internal/mustgather"
	"github.com/ec2-operator/ec2-operator/internal/mustgather/toolbox"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if run, ok := toolbox.Lookup(os.Args[0]); ok {
		os.Exit(run(ctx, os.Args[1:]))
	}
	if err := gather(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gather:", err)
		os.Exit(1)
	}
}

// gather collects into --dest-dir with the pod's service account (oc binds it to
// cluster-admin for the gather) or, outside a pod, KUBECONFIG.
func gather(ctx context.Context, args []string) error {
	flags := flag.NewFlagSet("gather", flag.ContinueOnError)
	dest := flags.String("dest-dir", "/must-gather", "directory to write the archive to (oc copies /must-gather back)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	since, err := logsSince(time.Now())
	if err != nil {
		return err
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	cfg.UserAgent = "ec2-operator-must-gather"
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	g := &mustgather.Gatherer{Dynamic: dyn, Core: core, Dest: *dest, LogsSince: since, Log: os.Stdout}
	return g.Run(ctx)
}

// logsSince reads oc adm must-gather's --since (MUST_GATHER_SINCE, a duration) and
// --since-time (MUST_GATHER_SINCE_TIME, RFC 3339), which limit the logs gathered.
func logsSince(now time.Time) (time.Time, error) {
	if v := os.Getenv("MUST_GATHER_SINCE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return time.Time{}, fmt.Errorf("MUST_GATHER_SINCE=%q: %w", v, err)
		}
		return now.Add(-d), nil
	}
	if v := os.Getenv("MUST_GATHER_SINCE_TIME"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return time.Time{}, fmt.Errorf("MUST_GATHER_SINCE_TIME=%q: %w", v, err)
		}
		return t, nil
	}
	return time.Time{}, nil
}
