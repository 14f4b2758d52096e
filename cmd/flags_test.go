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

package main

import (
	"crypto/tls"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"

	"github.com/ec2-operator/ec2-operator/internal/controller"
	"github.com/ec2-operator/ec2-operator/internal/testenv"
)

// parse parses args the way main does, into fresh options.
func parse(t *testing.T, args []string) (options, error) {
	t.Helper()
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var opts options
	opts.bindFlags(fs)
	zapOpts := zap.Options{}
	zapOpts.BindFlags(fs)
	err := fs.Parse(args)
	return opts, err
}

func TestTheShippedDeploymentOnlyPassesFlagsTheManagerKnows(t *testing.T) {
	// A flag the binary does not know makes the pod crash-loop on install, which no
	// other test would notice: the end-to-end tests start the manager with their own
	// arguments.
	data, err := os.ReadFile(filepath.Join(testenv.ProjectRoot(), "bundle", "manifests", "ec2-operator.clusterserviceversion.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var csv struct {
		Spec struct {
			Install struct {
				Spec struct {
					Deployments []struct {
						Spec struct {
							Template struct {
								Spec struct {
									Containers []struct {
										Name string   `json:"name"`
										Args []string `json:"args"`
									} `json:"containers"`
								} `json:"spec"`
							} `json:"template"`
						} `json:"spec"`
					} `json:"deployments"`
				} `json:"spec"`
			} `json:"install"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &csv); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range csv.Spec.Install.Spec.Deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name != "manager" {
				continue
			}
			opts, err := parse(t, c.Args)
			if err != nil {
				t.Errorf("the CSV passes %v, which the manager rejects: %v", c.Args, err)
				continue
			}
			if err := opts.validate(); err != nil {
				t.Errorf("the CSV's arguments %v are invalid: %v", c.Args, err)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no manager container in the CSV's install strategy")
	}
}

func TestOperatorSettingsFallBackToTheEnvironment(t *testing.T) {
	t.Setenv("AWS_REGION", "eu-central-1")
	t.Setenv("RESYNC_PERIOD", "3m")
	t.Setenv("WATCH_NAMESPACE", "team-a, team-b")
	t.Setenv("MAX_CONCURRENT_RECONCILES", "8")
	t.Setenv("RESTORE_POLICY", "refuse")
	t.Setenv("TYPE_CHANGE_TIMEOUT", "90s")
	t.Setenv("CLUSTER_ID", "staging-1")
	opts, err := parse(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := opts.validate(); err != nil {
		t.Fatal(err)
	}
	if opts.clusterID != "staging-1" {
		t.Errorf("cluster ID %q, want CLUSTER_ID's", opts.clusterID)
	}
	if opts.restorePolicy != "refuse" || opts.typeChangeTimeout != 90*time.Second {
		t.Errorf("restore policy %q, type change timeout %s", opts.restorePolicy, opts.typeChangeTimeout)
	}
	if opts.awsRegion != "eu-central-1" || opts.resyncPeriod != 3*time.Minute || opts.maxConcurrentReconciles != 8 {
		t.Errorf("environment not used: %+v", opts)
	}
	if ns := opts.namespaces(); len(ns) != 2 || ns[0] != "team-a" || ns[1] != "team-b" {
		t.Errorf("namespaces %v", ns)
	}

	opts, err = parse(t, []string{"--aws-region=us-west-2"})
	if err != nil || opts.awsRegion != "us-west-2" {
		t.Errorf("a flag must win over the environment: %q %v", opts.awsRegion, err)
	}
}

// A Subscription's config.env value that does not parse stops the manager with a
// message naming the variable, the flag it sets and what it should look like, instead
// of leaving the default in place unseen; every such variable is named at once. A
// flag given on the command line wins, and its variable is not read at all.
func TestUnparsableEnvironmentValuesStopTheManagerUnlessTheFlagIsGiven(t *testing.T) {
	t.Setenv("RESYNC_PERIOD", "600")
	t.Setenv("AWS_MAX_ATTEMPTS", "five")
	t.Setenv("POLL_INTERVAL", "10s")
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	var opts options
	opts.bindFlags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	opts.afterParse(fs)
	err := opts.validate()
	for _, want := range []string{`RESYNC_PERIOD="600"`, "--resync-period", "600s", `AWS_MAX_ATTEMPTS="five"`, "--aws-max-attempts", "an integer"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to say %s", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "POLL_INTERVAL") {
		t.Errorf("error %v names a variable that parses", err)
	}

	fs = flag.NewFlagSet("manager", flag.ContinueOnError)
	opts = options{}
	opts.bindFlags(fs)
	if err := fs.Parse([]string{"--resync-period=5m", "--aws-max-attempts=3"}); err != nil {
		t.Fatal(err)
	}
	opts.afterParse(fs)
	if err := opts.validate(); err != nil || opts.resyncPeriod != 5*time.Minute || opts.awsMaxAttempts != 3 {
		t.Errorf("flags given: %v, resync %s, attempts %d; want the flags' values and no error", err, opts.resyncPeriod, opts.awsMaxAttempts)
	}
}

func TestInvalidSettingsAreRejectedNamingTheFlag(t *testing.T) {
	testCases := [][]string{
		{"--max-concurrent-reconciles=0"},
		{"--resync-period=10ms"},
		{"--poll-interval=1ms"},
		{"--aws-max-attempts=0"},
		{"--leader-elect-renew-deadline=20s", "--leader-elect-lease-duration=15s"},
		{"--type-change-timeout=0s"},
		{"--restore-policy=ignore"},
		{"--cluster-id= padded "},
		{"--cluster-id=" + strings.Repeat("x", 37)},
	}
	for _, args := range testCases {
		opts, err := parse(t, args)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if err := opts.validate(); err == nil {
			t.Errorf("%v was accepted", args)
		}
	}
}

func TestEventsLengthenTheDefaultResyncPeriodOnly(t *testing.T) {
	withQueue := []string{"--events-queue-url=https://sqs.eu-west-1.amazonaws.com/123456789012/ec2-operator-events"}
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want time.Duration
	}{
		{"no queue", nil, "", controller.DefaultResyncPeriod},
		{"a queue", withQueue, "", DefaultEventsResyncPeriod},
		{"a queue and a resync period flag", append(withQueue, "--resync-period=5m"), "", 5 * time.Minute},
		{"a queue and RESYNC_PERIOD", withQueue, "7m", 7 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("RESYNC_PERIOD", tc.env)
			}
			fs := flag.NewFlagSet("manager", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var opts options
			opts.bindFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			opts.afterParse(fs)
			if opts.resyncPeriod != tc.want {
				t.Errorf("resync period %s, want %s", opts.resyncPeriod, tc.want)
			}
		})
	}
	if r := queueRegion(withQueue[0][len("--events-queue-url="):], "us-east-1"); r != "eu-west-1" {
		t.Errorf("region of the queue URL: %q", r)
	}
	if r := queueRegion("http://127.0.0.1:8788/123456789012/q", "us-east-1"); r != "us-east-1" {
		t.Errorf("an emulator's queue URL takes the default region, got %q", r)
	}
}

func TestTLSProfileFlagsFixTheProfileOrFollowTheCluster(t *testing.T) {
	for _, tc := range []struct {
		args          []string
		followCluster bool
		minVersion    uint16
		wantErr       string
	}{
		{args: nil, followCluster: true, minVersion: tls.VersionTLS12},
		{args: []string{"--tls-profile=Modern"}, minVersion: tls.VersionTLS13},
		{args: []string{"--tls-profile=Old"}, minVersion: tls.VersionTLS10},
		{args: []string{"--tls-profile=Custom", "--tls-min-version=VersionTLS12", "--tls-cipher-suites=ECDHE-RSA-AES128-GCM-SHA256, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"}, minVersion: tls.VersionTLS12},
		{args: []string{"--tls-profile=Custom", "--tls-min-version=VersionTLS12"}, wantErr: "--tls-profile"},
		{args: []string{"--tls-profile=Strict"}, wantErr: "--tls-profile"},
		{args: []string{"--tls-min-version=VersionTLS13"}, wantErr: "--tls-profile=Custom"},
		{args: []string{"--tls-profile=Modern", "--tls-cipher-suites=AES128-SHA"}, wantErr: "--tls-profile=Custom"},
	} {
		opts, err := parse(t, tc.args)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		settings, follow, err := opts.tlsSettings()
		if verr := opts.validate(); (verr == nil) != (err == nil) {
			t.Errorf("%v: validate says %v, tlsSettings %v", tc.args, verr, err)
		}
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want one naming %s", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || follow != tc.followCluster || settings.MinVersion != tc.minVersion {
			t.Errorf("%v: follow %v, min %s, err %v", tc.args, follow, tls.VersionName(settings.MinVersion), err)
		}
	}
}
