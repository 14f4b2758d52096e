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
	"flag"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	_ "k8s.io/client-go/plugin/pkg/client/auth"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	computev1alpha1 "github.com/ec2-operator/ec2-operator/api/v1alpha1"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2"
	"github.com/ec2-operator/ec2-operator/internal/cloud/ec2/accounts"
	"github.com/ec2-operator/ec2-operator/internal/controller"
	"github.com/ec2-operator/ec2-operator/internal/controller/awsaccount"
	"github.com/ec2-operator/ec2-operator/internal/controller/grants"
	"github.com/ec2-operator/ec2-operator/internal/controller/instanceset"
	"github.com/ec2-operator/ec2-operator/internal/controller/launch"
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
	opts.afterParse(flag.CommandLine)
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))

	if err := run(ctrl.SetupSignalHandler(), opts); err != nil {
		setupLog.Error(err, "manager failed")
		os.Exit(1)
	}
}

// run wires flags -> options -> manager -> controllers and runs until ctx ends.
func run(ctx context.Context, opts options) error {
	if err := opts.validate(); err != nil {
		return err
	}
	scrapeToken := &monitoring.ScrapeToken{}
	mgr, err := newManager(ctx, opts, scrapeToken)
	if err != nil {
		return err
	}

	m := metrics.New(crmetrics.Registry)
	awsCreds, credsReady, err := setupAWSCredentials(ctx, mgr, m, opts.awsRegion, opts.eventsQueueURL, opts.clusterID)
	if err != nil {
		return err
	}
	clients, err := newEC2Clients(ctx, opts, awsCreds, m)
	if err != nil {
		return err
	}
	if opts.awsRegion == "" {
		setupLog.Info("no default AWS region (--aws-region or AWS_REGION): every EC2Instance must set spec.region")
	}

	reconciler, err := addReconcilers(mgr, opts, clients, m, credsReady)
	if err != nil {
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
	if err := addHealthChecks(mgr); err != nil {
		return err
	}

	setupLog.Info("starting manager", "version", version.Version, "revision", version.Revision, "defaultRegion", opts.awsRegion, "ec2Endpoint", opts.ec2Endpoint,
		"watchNamespaces", opts.namespaces(), "resyncPeriod", opts.resyncPeriod, "eventsQueue", opts.eventsQueueURL)
	return mgr.Start(ctx)
}

// newEC2Clients makes the EC2 clients of every region, paced to the API budget of
// --aws-api-limits and reading ahead so that many instances share one call.
func newEC2Clients(ctx context.Context, opts options, awsCreds aws.CredentialsProvider, m *metrics.Metrics) (*accounts.RegionalClients, error) {
	limits, err := opts.apiLimits()
	if err != nil {
		return nil, err
	}
	return accounts.NewRegionalClients(ctx, ec2.Options{
		Credentials: awsCreds,
		Endpoint:    opts.ec2Endpoint,
		STSEndpoint: opts.stsEndpoint,
		// An empty flag is no region, not one empty region.
		ExtraRegions: strings.FieldsFunc(opts.extraRegions, func(c rune) bool { return c == ',' || c == ' ' }),
		MaxAttempts:  opts.awsMaxAttempts,
		Limits:       limits,
		LearnLimits:  opts.learnLimits(),
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
}

// addReconcilers adds the EC2Instance and AWSAccount controllers to the manager. It
// returns the EC2Instance reconciler, which the events consumer hands EC2's events to.
// credsReady, when not nil, says whether the operator's own AWS credentials are there
// yet; until they are, both controllers wait without calling AWS.
func addReconcilers(mgr ctrl.Manager, opts options, clients *accounts.RegionalClients, m *metrics.Metrics, credsReady func() error) (*controller.EC2InstanceReconciler, error) {
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
		RestorePolicy:           launch.RestorePolicy(opts.restorePolicy),
		ClusterID:               opts.clusterID,
		MaxConcurrentReconciles: opts.maxConcurrentReconciles,
		CredentialsReady:        credsReady,
	}
	if err := reconciler.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	// AWSAccounts: the roles the operator assumes to act in other accounts. The
	// EC2Instance reconciler, set up first, registers the index this one reads.
	accountReconciler := &awsaccount.Reconciler{
		Client:        mgr.GetClient(),
		Accounts:      clients,
		DefaultRegion: opts.awsRegion,
		Metrics:       m,
		// Roles are assumed with the operator's own identity, so they wait for it too.
		CredentialsReady: credsReady,
	}
	if err := accountReconciler.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	// EC2InstanceSets: N alike EC2Instance objects. The set only writes EC2Instances;
	// the reconciler above does everything in AWS for each of them.
	setReconciler := &instanceset.Reconciler{
		Client:   mgr.GetClient(),
		Recorder: mgr.GetEventRecorder("ec2-operator"),
	}
	if err := setReconciler.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	return reconciler, nil
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
func operatorIdentity() grants.Identity {
	objects := monitoring.DefaultObjects(os.Getenv(credentials.NamespaceEnv))
	return grants.Identity{
		Namespace:      objects.Namespace,
		ServiceAccount: os.Getenv(credentials.ServiceAccountEnv),
		OwnSecrets:     []string{credentials.DefaultSecretName, objects.TokenSecret, objects.CertSecret},
	}
}
