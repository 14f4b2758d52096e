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
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/certwatcher"

	"github.com/ec2-operator/ec2-operator/internal/pki"
)

// metricsCert serves the metrics endpoint with the certificate mounted at a path
// (OpenShift's service CA writes one into a Secret) and follows its rotation. Until the
// certificate exists it serves a self-signed one: on a fresh install the pod can start
// before the service CA has written the Secret, and on plain Kubernetes the optional
// Secret never exists. It switches as soon as the file appears, with no restart.
type metricsCert struct {
	certFile, keyFile string
	poll              time.Duration
	fallback          *tls.Certificate
	watcher           atomic.Pointer[certwatcher.CertWatcher]
}

func newMetricsCert(dir, certName, keyName string) (*metricsCert, error) {
	fallback, err := selfSignedCertificate()
	if err != nil {
		return nil, err
	}
	return &metricsCert{
		certFile: filepath.Join(dir, certName),
		keyFile:  filepath.Join(dir, keyName),
		poll:     10 * time.Second,
		fallback: fallback,
	}, nil
}

// GetCertificate is the TLS server's certificate callback.
func (m *metricsCert) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if w := m.watcher.Load(); w != nil {
		return w.GetCertificate(hello)
	}
	return m.fallback, nil
}

// Start waits for the certificate file, then loads and watches it until ctx ends. It
// runs as a manager Runnable on every replica.
func (m *metricsCert) Start(ctx context.Context) error {
	for {
		if _, err := os.Stat(m.certFile); err == nil {
			w, err := certwatcher.New(m.certFile, m.keyFile)
			if err == nil {
				m.watcher.Store(w)
				setupLog.Info("serving metrics with the mounted certificate", "path", m.certFile)
				return w.Start(ctx)
			}
			setupLog.Error(err, "cannot load the metrics certificate yet; serving a self-signed one", "path", m.certFile)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(m.poll):
		}
	}
}

// NeedLeaderElection is false: every replica serves metrics.
func (m *metricsCert) NeedLeaderElection() bool { return false }

// selfSignedCertificate makes a short-lived certificate for the time before a real
// one is mounted. Scrapers that verify TLS fail against it, as they should.
func selfSignedCertificate() (*tls.Certificate, error) {
	pair, err := pki.SelfSigned(pki.Request{
		CommonName: "ec2-operator-metrics (self-signed)",
		DNSNames:   []string{"localhost"},
		Server:     true,
		ValidFor:   365 * 24 * time.Hour,
	})
	if err != nil {
		return nil, fmt.Errorf("creating the self-signed metrics certificate: %w", err)
	}
	cert := pair.TLS()
	return &cert, nil
}
