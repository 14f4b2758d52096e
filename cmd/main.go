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

// Command manager runs the ec2-operator: it watches EC2Instance objects and keeps real
// EC2 instances matching them.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	_ "k8s.io/client-go/plugin/pkg/client/auth"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/controller"
	"github.com/ec2-operator/ec2-operator/internal/credentials"
	"github.com/ec2-operator/ec2-operator/internal/metrics"
	"github.com/ec2-operator/ec2-operator/internal/monitoring"
	"github.com/ec2-operator/ec2-operator/internal/version"
)

var (
	scheme   = runtime.NewScheme()
	setupLog = ctrl.Log.WithName("setup")
)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(computev1alpha1.AddToScheme(scheme))
}

func main() {
	var opts options
	opts.bindFlags(flag.CommandLine)
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	opts.applyEventDefaults(flag.CommandLine)
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))

	if err := run(ctrl.SetupSignalHandler(), opts); err != nil {
		setupLog.Error(err, "manager failed")
		os.Exit(1)
	}
}

// run wires flags -> options -> manager -> controller and runs until ctx ends.
func run(ctx context.Context, opts options) error {
	if err := opts.validate(); err != nil {
		return err
	}
	scrapeToken := &monitoring.ScrapeToken{}
	mo, certs, err := managerOptions(opts, scrapeToken)
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), mo)
	if err != nil {
		return err
	}
	if certs != nil {
		// It loads the mounted certificate once it exists and reloads it on rotation.
		if err := mgr.Add(certs); err != nil {
			return err
		}
	}

	m := metrics.New(crmetrics.Registry)
	awsCreds, credsReady, err := setupAWSCredentials(ctx, mgr, m, opts.awsRegion, opts.eventsQueueURL, opts.clusterID)
	if err != nil {
		return err
	}

	limits, err := opts.apiLimits()
	if err != nil {
		return err
	}
	clients, err := ec2.NewRegionalClients(ctx, ec2.Options{
		Credentials: awsCreds,
		Endpoint:    opts.ec2Endpoint,
		STSEndpoint: opts.stsEndpoint,
		// An empty flag is no region, not one empty region.
		ExtraRegions: strings.FieldsFunc(opts.extraRegions, func(c rune) bool { return c == ',' || c == ' ' }),
		MaxAttempts:  opts.awsMaxAttempts,
		Limits:       limits,
		NoPacing:     limits == nil,
		RateLimit:    opts.awsRateLimit,
		Recorder:     m,
		// Settled instances are answered from fleet-wide reads at most a resync old, so
		// a fleet at rest costs about one DescribeInstances call per resync period (of
		// up to 1,000 instances), and drift made outside Kubernetes is seen within two.
		ReadAheadTTL: opts.resyncPeriod,
		// Instances in transition are polled every poll interval; an answer up to one
		// interval old serves all of them that are polled within it (a bulk launch
		// paced at two a second), instead of one DescribeInstances each. At worst an
		// instance is seen running one interval later.
		TransitionTTL: opts.pollInterval,
	})
	if err != nil {
		return err
	}
	if opts.awsRegion == "" {
		setupLog.Info("no default AWS region (--aws-region or AWS_REGION): every EC2Instance must set spec.region")
	}

	reconciler := &controller.EC2InstanceReconciler{
		Client:                  mgr.GetClient(),
		APIReader:               mgr.GetAPIReader(),
		Identity:                operatorIdentity(),
		Recorder:                mgr.GetEventRecorder("ec2-operator"),
		EC2:                     clients,
		DefaultRegion:           opts.awsRegion,
		Metrics:                 m,
		ResyncPeriod:            opts.resyncPeriod,
		PollInterval:            opts.pollInterval,
		AttributeResyncPeriod:   opts.attributeResyncPeriod,
		TypeChangeTimeout:       opts.typeChangeTimeout,
		RestorePolicy:           controller.RestorePolicy(opts.restorePolicy),
		ClusterID:               opts.clusterID,
		MaxConcurrentReconciles: opts.maxConcurrentReconciles,
		CredentialsReady:        credsReady,
	}
	if err := reconciler.SetupWithManager(mgr); err != nil {
		return err
	}
	// AWSAccounts: the roles the operator assumes to act in other accounts. The
	// EC2Instance reconciler, set up first, registers the index this one reads.
	accounts := &controller.AWSAccountReconciler{
		Client:        mgr.GetClient(),
		Accounts:      clients,
		DefaultRegion: opts.awsRegion,
		Metrics:       m,
		// Roles are assumed with the operator's own identity, so they wait for it too.
		CredentialsReady: credsReady,
	}
	if err := accounts.SetupWithManager(mgr); err != nil {
		return err
	}
	if opts.eventsQueueURL != "" {
		if err := addEventsConsumer(ctx, mgr, opts, awsCreds, m, reconciler); err != nil {
			return err
		}
	}
	if err := addMonitoringFixer(mgr, scrapeToken); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}

	setupLog.Info("starting manager", "version", version.Version, "revision", version.Revision, "defaultRegion", opts.awsRegion, "ec2Endpoint", opts.ec2Endpoint,
		"watchNamespaces", opts.namespaces(), "resyncPeriod", opts.resyncPeriod, "eventsQueue", opts.eventsQueueURL)
	return mgr.Start(ctx)
}

// managerOptions turns the flags into controller-runtime's manager options, and the
// source of the metrics certificate when --metrics-cert-path is set.
// The metrics endpoint accepts the scrape token (internal/monitoring) besides
// Kubernetes identities that may GET /metrics.
func managerOptions(opts options, scrapeToken *monitoring.ScrapeToken) (ctrl.Options, *metricsCert, error) {
	var tlsOpts []func(*tls.Config)
	if !opts.enableHTTP2 {
		// HTTP/2 is off to avoid the Stream Cancellation and Rapid Reset CVEs.
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}
	metricsOpts := metricsserver.Options{
		BindAddress:   opts.metricsAddr,
		SecureServing: opts.secureMetrics,
		TLSOpts:       tlsOpts,
	}
	var certs *metricsCert
	if opts.secureMetrics {
		metricsOpts.FilterProvider = scrapeToken.Filter(filters.WithAuthenticationAndAuthorization)
		if opts.metricsCertPath != "" {
			var err error
			if certs, err = newMetricsCert(opts.metricsCertPath, opts.metricsCertName, opts.metricsCertKey); err != nil {
				return ctrl.Options{}, nil, err
			}
			metricsOpts.TLSOpts = append(metricsOpts.TLSOpts, func(c *tls.Config) { c.GetCertificate = certs.GetCertificate })
		}
	}

	mo := ctrl.Options{
		Scheme:                        scheme,
		Metrics:                       metricsOpts,
		HealthProbeBindAddress:        opts.probeAddr,
		LeaderElection:                opts.leaderElect,
		LeaderElectionID:              "ec2-operator.ec2-operator.dev",
		LeaderElectionNamespace:       opts.leaderElectionNS,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &opts.leaseDuration,
		RenewDeadline:                 &opts.renewDeadline,
		RetryPeriod:                   &opts.retryPeriod,
		GracefulShutdownTimeout:       &opts.gracefulShutdownTime,
	}
	if ns := opts.namespaces(); len(ns) > 0 {
		mo.Cache.DefaultNamespaces = map[string]cache.Config{}
		for _, n := range ns {
			mo.Cache.DefaultNamespaces[n] = cache.Config{}
		}
	}
	return mo, certs, nil
}

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
	started, lastComplaint := time.Now(), time.Time{}
	report := func(what string) func(error) {
		return func(err error) {
			m.CredentialsReady(err == nil)
			if err != nil && time.Since(started) > credentialsPatience && time.Since(lastComplaint) > credentialsPatience {
				lastComplaint = time.Now()
				setupLog.Error(err, "no AWS credentials from the Cloud Credential Operator yet; check the CredentialsRequest's status",
					"credentialsRequest", what, "waiting", time.Since(started).Round(time.Second))
			}
		}
	}
	wait := func(r manager.Runnable, ready func() error, cache aws.CredentialsProvider) (aws.CredentialsProvider, func() error, error) {
		m.CredentialsReady(false)
		if err := mgr.Add(r); err != nil {
			return nil, nil, err
		}
		if err := mgr.AddReadyzCheck("aws-credentials", func(*http.Request) error { return ready() }); err != nil {
			return nil, nil, err
		}
		return aws.NewCredentialsCache(cache), ready, nil
	}

	if stsOpts, sts := credentials.OptionsFromEnv(); sts {
		// token-auth-aws: the role ARN the administrator entered. Setup waits for CCO's
		// Secret for credentialsPatience at a time, and is run again after that.
		stsOpts.Timeout = credentialsPatience
		stsOpts.EventsQueueURL = eventsQueueURL
		stsOpts.AccountRoleARNs = credentials.AccountRoleARNsFromEnv()
		stsOpts.ClusterID = clusterID
		if stsOpts, err = stsOpts.Completed(); err != nil {
			return nil, nil, fmt.Errorf("token-auth-aws (ROLEARN is set): %w", err)
		}
		if region == "" {
			region = "us-east-1" // STS answers in every region; the role is global.
		}
		p := &credentials.WebIdentityProvider{Client: direct, Options: stsOpts, Region: region, Retry: 10 * time.Second}
		p.Report = report(stsOpts.RequestNamespace + "/" + stsOpts.RequestName)
		setupLog.Info("using AWS web identity credentials from the Cloud Credential Operator (token-auth-aws)", "roleARN", stsOpts.RoleARN)
		return wait(p, p.Ready, p)
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
		Report: report(credOpts.RequestNamespace + "/" + credOpts.RequestName)}
	return wait(watcher, provider.Ready, provider)
}

// addMonitoringFixer keeps the bundle's monitoring objects right for the namespace the
// manager runs in (see internal/monitoring), when it runs in a cluster (POD_NAMESPACE
// is set from the downward API); run from a workstation it does nothing.
func addMonitoringFixer(mgr ctrl.Manager, scrapeToken *monitoring.ScrapeToken) error {
	ns := os.Getenv(credentials.NamespaceEnv)
	if ns == "" {
		return nil
	}
	direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: scheme, Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return err
	}
	return mgr.Add(&monitoring.Fixer{
		Client:  direct,
		Objects: monitoring.DefaultObjects(ns),
		// OLM applies the bundle's ServiceMonitor again on an upgrade (and, as the OLM
		// test shows, while an install is still in progress); 15 seconds later its
		// serverName names this namespace again. When all is right a pass is two GETs.
		Interval: 15 * time.Second,
		Retry:    10 * time.Second,
		Log:      ctrl.Log.WithName("monitoring"),
		Token:    scrapeToken,
	})
}

// operatorIdentity is who the manager is in the cluster (the downward API's namespace
// and ServiceAccount), and the Secrets of its namespace that userDataFrom must never
// read: the AWS credentials, the metrics scrape token and the metrics serving
// certificate.
func operatorIdentity() controller.Identity {
	objects := monitoring.DefaultObjects(os.Getenv(credentials.NamespaceEnv))
	return controller.Identity{
		Namespace:      objects.Namespace,
		ServiceAccount: os.Getenv(credentials.ServiceAccountEnv),
		OwnSecrets:     []string{credentials.DefaultSecretName, objects.TokenSecret, objects.CertSecret},
	}
}
