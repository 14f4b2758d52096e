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
	"crypto/x509"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ec2-operator/ec2-operator/internal/pki"
)

var (
	// servingValidity is two years, the lifetime of the real serving certificates.
	servingValidity = 2 * 365 * 24 * time.Hour
	// A serving certificate this close to expiry, or no longer verifying against the
	// CA, is issued again.
	refreshBefore = time.Hour
)

// dnsNames are the names the real signer puts in a serving certificate.
func dnsNames(svc *corev1.Service) []string {
	base := svc.Name + "." + svc.Namespace + ".svc"
	names := []string{base, base + ".cluster.local"}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		names = append(names, "*."+base, "*."+base+".cluster.local")
	}
	return names
}

// stillGood reports whether the Secret's certificate verifies against the CA for the
// Service's names and is not about to expire.
func (c *controller) stillGood(s *corev1.Secret, svc *corev1.Service) bool {
	if s.Type != corev1.SecretTypeTLS {
		return false
	}
	pair, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey])
	if err != nil {
		return false
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil || time.Until(cert.NotAfter) < refreshBefore {
		return false
	}
	if !slices.Equal(cert.DNSNames, dnsNames(svc)) {
		return false
	}
	roots := x509.NewCertPool()
	roots.AddCert(c.ca.Cert)
	_, err = cert.Verify(x509.VerifyOptions{DNSName: cert.DNSNames[0], Roots: roots,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err == nil
}

// issue signs a new serving certificate for the Service's names. It never outlives the
// CA (pki caps it), because a certificate past its issuer's expiry would not verify.
func (c *controller) issue(svc *corev1.Service) (certPEM, keyPEM []byte, expiry time.Time, err error) {
	names := dnsNames(svc)
	pair, err := c.ca.Issue(pki.Request{CommonName: names[0], DNSNames: names, Server: true, ValidFor: servingValidity})
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	// The serving certificate, then its issuer, as the real signer writes it.
	return append(pair.CertPEM, c.ca.CertPEM...), pair.KeyPEM, pair.Cert.NotAfter, nil
}
