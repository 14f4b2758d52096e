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
	"crypto/tls"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ec2-operator/ec2-operator/internal/monitoring"
	"github.com/ec2-operator/ec2-operator/internal/tlsprofile"
)

// newManager makes the controller-runtime manager the flags describe. When the metrics
// endpoint serves a mounted certificate, the manager also runs what loads it once it
// exists and reloads it on rotation; on OpenShift, without --tls-profile, what keeps
// the metrics server at the cluster's TLS security profile.
func newManager(ctx context.Context, opts options, scrapeToken *monitoring.ScrapeToken) (ctrl.Manager, error) {
	settings, followCluster, err := opts.tlsSettings()
	if err != nil {
		return nil, err
	}
	tlsCurrent := tlsprofile.NewCurrent(settings)
	mo, certs, err := managerOptions(opts, scrapeToken, tlsCurrent)
	if err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), mo)
	if err != nil {
		return nil, err
	}
	if certs != nil {
		if err := mgr.Add(certs); err != nil {
			return nil, err
		}
	}
	// The metrics server is the manager's one TLS server; without it there is no
	// profile to follow, and no reason to read the cluster's configuration.
	servesTLS := opts.metricsAddr != "0" && opts.secureMetrics
	if followCluster && servesTLS {
		if err := followClusterTLSProfile(ctx, mgr, tlsCurrent); err != nil {
			return nil, err
		}
	}
	setupLog.Info("TLS servers use a TLS security profile", "profile", tlsCurrent.Get().Profile)
	return mgr, nil
}

// followClusterTLSProfile keeps the TLS servers at OpenShift's cluster-wide profile
// (the APIServer named cluster), read once now so that no server starts weaker, then
// watched. Elsewhere the settings given stay.
func followClusterTLSProfile(ctx context.Context, mgr ctrl.Manager, current *tlsprofile.Current) error {
	d, err := discovery.NewDiscoveryClientForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	onOpenShift, err := tlsprofile.OnOpenShift(d)
	if err != nil || !onOpenShift {
		return err
	}
	dyn, err := dynamic.NewForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	follower := &tlsprofile.Follower{Client: dyn, Current: current, Log: ctrl.Log.WithName("tls-profile")}
	if err := follower.Sync(ctx); err != nil {
		return err
	}
	return mgr.Add(follower)
}

// managerOptions turns the flags into controller-runtime's manager options, and the
// source of the metrics certificate when --metrics-cert-path is set.
// The metrics endpoint accepts the scrape token (internal/monitoring) besides
// Kubernetes identities that may GET /metrics.
func managerOptions(opts options, scrapeToken *monitoring.ScrapeToken, tlsCurrent *tlsprofile.Current) (ctrl.Options, *metricsCert, error) {
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
		metricsOpts.FilterProvider = scrapeToken.Filter(monitoring.KubernetesAuth)
		if opts.metricsCertPath != "" {
			var err error
			if certs, err = newMetricsCert(opts.metricsCertPath, opts.metricsCertName, opts.metricsCertKey); err != nil {
				return ctrl.Options{}, nil, err
			}
			metricsOpts.TLSOpts = append(metricsOpts.TLSOpts, func(c *tls.Config) { c.GetCertificate = certs.GetCertificate })
		}
	}
	// Last: it copies what the options before it set, at every handshake.
	metricsOpts.TLSOpts = append(metricsOpts.TLSOpts, tlsCurrent.ServerOption())

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

// addHealthChecks adds the liveness and readiness endpoints' basic checks; the AWS
// credentials add a readiness check of their own when the manager waits for them.
func addHealthChecks(mgr ctrl.Manager) error {
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	return mgr.AddReadyzCheck("readyz", healthz.Ping)
}
