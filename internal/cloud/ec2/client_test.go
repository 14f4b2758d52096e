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

package ec2

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/awserrors"
	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
)

// isolateAWSEnv keeps the developer's AWS configuration out of a test.
func isolateAWSEnv(t *testing.T) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_PROFILE":                 "",
		"AWS_REGION":                  "",
		"AWS_DEFAULT_REGION":          "",
		"AWS_ENDPOINT_URL":            "",
		"AWS_ENDPOINT_URL_EC2":        "",
		"AWS_ACCESS_KEY_ID":           "AKIDEXAMPLE",
		"AWS_SECRET_ACCESS_KEY":       "secret",
		"AWS_SESSION_TOKEN":           "",
	} {
		t.Setenv(k, v)
	}
}

func TestNewTalksToTheConfiguredEndpoint(t *testing.T) {
	tests := []struct {
		name string
		opts func(url string) Options
		env  func(t *testing.T, url string)
	}{
		{
			name: "with an explicit endpoint and credentials",
			opts: func(url string) Options {
				return Options{Region: "eu-west-1", Endpoint: url,
					Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")}
			},
		},
		{
			name: "with AWS_ENDPOINT_URL_EC2 and credentials from the environment",
			opts: func(string) Options { return Options{Region: "eu-west-1"} },
			env:  func(t *testing.T, url string) { t.Setenv("AWS_ENDPOINT_URL_EC2", url) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateAWSEnv(t)
			sim := ec2sim.New(ec2sim.Config{Seed: 1, Region: "eu-west-1"})
			srv := httptest.NewServer(sim)
			defer srv.Close()
			if tt.env != nil {
				tt.env(t, srv.URL)
			}
			c, err := New(context.Background(), tt.opts(srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.FindInstances(context.Background(), InstanceFilter{ClientToken: "x"}); err != nil {
				t.Fatal(err)
			}
			if sim.Calls("DescribeInstances") != 1 {
				t.Error("the call did not reach the emulator")
			}
		})
	}
}

func TestNewFailsWithoutARegion(t *testing.T) {
	isolateAWSEnv(t)
	if _, err := New(context.Background(), Options{}); err == nil {
		t.Error("New without a region succeeded")
	}
}

func TestOptionDefaults(t *testing.T) {
	o := Options{}.withDefaults()
	if o.MaxAttempts != 5 || o.RateLimit != 0 || o.Limits == nil || o.Limits.String() != "" || o.NoPacing ||
		o.MaxPacingWait != time.Second || o.BatchWindow != 10*time.Millisecond ||
		o.MaxBatchSize != 1000 || o.PageSize != 1000 || o.Recorder == nil {
		t.Errorf("defaults = %+v", o)
	}
	if o := (Options{PageSize: 2}).withDefaults(); o.PageSize != 5 {
		t.Errorf("PageSize 2 became %d, want EC2's minimum 5", o.PageSize)
	}
}

func TestEveryAttemptIsRecorded(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{})
	inst := e.launch(t, "rec-0")
	_ = e.client.StopInstance(context.Background(), "i-0000000000000dead")
	if n := e.recorder.Calls("RunInstances", ""); n != 1 {
		t.Errorf("recorded %d successful RunInstances, want 1", n)
	}
	if n := e.recorder.Calls("StopInstances", "InvalidInstanceID.NotFound"); n != 1 {
		t.Errorf("recorded %d failed StopInstances, want 1", n)
	}
	if e.recorder.Latency("RunInstances") <= 0 {
		t.Error("no latency recorded")
	}
	if inst.ID == "" {
		t.Fatal("no instance")
	}
}

func TestAnOverallRateCapFailsACallThatWouldWaitTooLong(t *testing.T) {
	e := newSimEnv(t, ec2sim.Config{Seed: 1}, Options{RateLimit: 0.1, MaxAttempts: 1})
	if _, err := e.client.FindInstances(context.Background(), InstanceFilter{ClientToken: "any"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := e.client.FindInstances(context.Background(), InstanceFilter{ClientToken: "any"})
	if awserrors.CodeOf(err) != awserrors.CodeClientRateLimited || awserrors.RetryAfterOf(err) < 5*time.Second || time.Since(start) > time.Second {
		t.Errorf("got %v (retry after %s) after %v, want a prompt ClientRateLimited saying when", err, awserrors.RetryAfterOf(err), time.Since(start))
	}
	if n := e.sim.Calls("DescribeInstances"); n != 1 {
		t.Errorf("the refused call reached EC2: %d calls", n)
	}
}
