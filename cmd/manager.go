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

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ec2-operator/ec2-operator/internal/monitoring"
)

// newManager makes the controller-runtime manager the flags describe. When the metrics
// endpoint serves a mounted certificate, the manager also runs what loads it once it
// exists and reloads it on rotation.
func newManager(opts options, scrapeToken *monitoring.ScrapeToken) (ctrl.Manager, error) {
	mo, certs, err := managerOptions(opts, scrapeToken)
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
	return mgr, nil
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
		metricsOpts.FilterProvider = scrapeToken.Filter(monitoring.KubernetesAuth)
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

// addHealthChecks adds the liveness and readiness endpoints' basic checks; the AWS
// credentials add a readiness check of their own when the manager waits for them.
func addHealthChecks(mgr ctrl.Manager) error {
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	return mgr.AddReadyzCheck("readyz", healthz.Ping)
}
