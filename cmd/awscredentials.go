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
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ec2-operator/ec2-operator/internal/credentials"
	"github.com/ec2-operator/ec2-operator/internal/metrics"
)

// credentialsPatience is how long the manager waits quietly for the Cloud Credential
// Operator's Secret before it logs, every time again, that the wait is too long.
const credentialsPatience = 10 * time.Minute

// setupAWSCredentials decides where the manager's AWS credentials come from:
//   - ROLEARN set: OpenShift's token-auth-aws (STS): a CredentialsRequest for the role
//     and the web identity profile CCO writes, waited for like the access key below;
//   - credentials of the user's own in the environment, or no cluster namespace (run
//     from a workstation), or no Cloud Credential Operator able to hand out keys: the
//     SDK's default chain;
//   - otherwise (OpenShift on AWS with CCO in mint or passthrough mode): a
//     CredentialsRequest for an access key, read from the Secret CCO writes. The
//     manager starts at once; until the Secret is there its readiness probe fails,
//     ec2_operator_aws_credentials_ready is 0, and objects wait without calling AWS.
//
// It returns the credentials provider for the EC2 clients (nil: the default chain)
// and, when the manager has to wait for them, the check that says whether they are
// there.
func setupAWSCredentials(ctx context.Context, mgr ctrl.Manager, m *metrics.Metrics, region, eventsQueueURL, clusterID string) (aws.CredentialsProvider, func() error, error) {
	direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: scheme})
	if err != nil {
		return nil, nil, err
	}
	w := &credentialsWait{mgr: mgr, metrics: m, started: time.Now()}

	if stsOpts, sts := credentials.OptionsFromEnv(); sts {
		return w.webIdentity(direct, stsOpts, region, eventsQueueURL, clusterID)
	}
	ns := os.Getenv(credentials.NamespaceEnv)
	if ns == "" {
		return nil, nil, nil
	}
	if v, ok := credentials.UserCredentialsConfigured(); ok {
		setupLog.Info("using the AWS credentials configured in the environment", "variable", v)
		return nil, nil, nil
	}
	mint, mode, err := credentials.MintModeAvailable(ctx, direct)
	if err != nil {
		setupLog.Info("could not read the cluster's credentials mode; using the SDK's default AWS credentials", "error", err.Error())
		return nil, nil, nil
	}
	if !mint {
		return nil, nil, nil
	}
	return w.accessKey(ctx, direct, ns, mode, eventsQueueURL, clusterID)
}

// credentialsWait makes the manager wait for the credentials the Cloud Credential
// Operator hands out, and complains when that takes longer than credentialsPatience.
type credentialsWait struct {
	mgr     ctrl.Manager
	metrics *metrics.Metrics
	// started is when the wait began; lastComplaint is when the wait was last logged,
	// so that a long wait is logged once every credentialsPatience, not on every check.
	started, lastComplaint time.Time
}

// webIdentity sets up token-auth-aws: the role ARN the administrator entered. The
// provider waits for CCO's Secret for credentialsPatience at a time, and is run again
// after that.
func (w *credentialsWait) webIdentity(direct client.Client, stsOpts credentials.Options, region, eventsQueueURL, clusterID string) (aws.CredentialsProvider, func() error, error) {
	stsOpts.Timeout = credentialsPatience
	stsOpts.EventsQueueURL = eventsQueueURL
	stsOpts.AccountRoleARNs = credentials.AccountRoleARNsFromEnv()
	stsOpts.ClusterID = clusterID
	stsOpts, err := stsOpts.Completed()
	if err != nil {
		return nil, nil, fmt.Errorf("token-auth-aws (ROLEARN is set): %w", err)
	}
	if region == "" {
		region = "us-east-1" // STS answers in every region; the role is global.
	}
	p := &credentials.WebIdentityProvider{Client: direct, Options: stsOpts, Region: region, Retry: 10 * time.Second}
	p.Report = w.report(stsOpts.RequestNamespace + "/" + stsOpts.RequestName)
	setupLog.Info("using AWS web identity credentials from the Cloud Credential Operator (token-auth-aws)", "roleARN", stsOpts.RoleARN)
	return w.wait(p, p.Ready, p)
}

// accessKey asks the Cloud Credential Operator, in mint or passthrough mode, for an
// access key, and reads it from the Secret CCO writes into the namespace ns.
func (w *credentialsWait) accessKey(ctx context.Context, direct client.Client, ns, mode, eventsQueueURL, clusterID string) (aws.CredentialsProvider, func() error, error) {
	credOpts, err := credentials.EnsureRequest(ctx, direct, credentials.Options{
		Namespace: ns, ServiceAccountName: os.Getenv(credentials.ServiceAccountEnv), EventsQueueURL: eventsQueueURL,
		AccountRoleARNs: credentials.AccountRoleARNsFromEnv(), ClusterID: clusterID,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("asking the Cloud Credential Operator for AWS credentials (mode %q): %w", mode, err)
	}
	setupLog.Info("asked the Cloud Credential Operator for AWS credentials", "mode", mode,
		"credentialsRequest", credOpts.RequestNamespace+"/"+credOpts.RequestName, "secret", ns+"/"+credOpts.SecretName)
	provider := &credentials.SecretProvider{Client: direct, Namespace: ns, Name: credOpts.SecretName}
	watcher := &credentials.Watcher{Provider: provider, Interval: 5 * time.Second,
		Report: w.report(credOpts.RequestNamespace + "/" + credOpts.RequestName)}
	return w.wait(watcher, provider.Ready, provider)
}

// report returns the callback that a credentials source calls after every check: it
// sets ec2_operator_aws_credentials_ready, and logs a wait that has lasted too long,
// naming the CredentialsRequest what, whose status says why.
func (w *credentialsWait) report(what string) func(error) {
	return func(err error) {
		w.metrics.CredentialsReady(err == nil)
		if err != nil && time.Since(w.started) > credentialsPatience && time.Since(w.lastComplaint) > credentialsPatience {
			w.lastComplaint = time.Now()
			setupLog.Error(err, "no AWS credentials from the Cloud Credential Operator yet; check the CredentialsRequest's status",
				"credentialsRequest", what, "waiting", time.Since(w.started).Round(time.Second))
		}
	}
}

// wait adds r, which fetches the credentials, to the manager, and makes the manager
// unready until ready says they are there. It returns cache behind the SDK's
// credentials cache, so that the EC2 clients do not read the Secret on every call.
func (w *credentialsWait) wait(r manager.Runnable, ready func() error, cache aws.CredentialsProvider) (aws.CredentialsProvider, func() error, error) {
	w.metrics.CredentialsReady(false)
	if err := w.mgr.Add(r); err != nil {
		return nil, nil, err
	}
	if err := w.mgr.AddReadyzCheck("aws-credentials", func(*http.Request) error { return ready() }); err != nil {
		return nil, nil, err
	}
	return aws.NewCredentialsCache(cache), ready, nil
}
