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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// signingSecretName is the Secret the real service CA keeps its CA in; using the same
// name lets manifests written for OpenShift find it.
const signingSecretName = "signing-key"

// caValidity is about 26 months, the lifetime of the real service CA.
var caValidity = 26 * 30 * 24 * time.Hour

// signer is the service CA: its certificate and key for signing, and the certificate
// in PEM as it is appended to serving certificates and injected into ConfigMaps.
type signer struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
}

// loadOrCreateCA reads the CA from the signing-key Secret, creating it the first time.
func loadOrCreateCA(ctx context.Context, cs kubernetes.Interface, ns string) (*signer, error) {
	for range 5 {
		s, err := cs.CoreV1().Secrets(ns).Get(ctx, signingSecretName, metav1.GetOptions{})
		if err == nil {
			return parseCA(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey])
		}
		if !apierrors.IsNotFound(err) {
			return nil, err
		}
		certPEM, keyPEM, err := newCA()
		if err != nil {
			return nil, err
		}
		s = &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: signingSecretName, Namespace: ns},
			Type:       corev1.SecretTypeTLS,
			Data:       map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM},
		}
		if _, err := cs.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err == nil || !apierrors.IsAlreadyExists(err) {
			if err != nil {
				return nil, err
			}
			return parseCA(certPEM, keyPEM)
		}
		// Another replica created it first: read that one.
	}
	return nil, errors.New("could not create or read the signing-key Secret")
}

// newCA makes a self-signed CA named as the real one names its signer, so that the
// serving-cert-signed-by annotation looks the same.
func newCA() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: fmt.Sprintf("openshift-service-serving-signer@%d", now.Unix())},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	return pemCert(der), pemKey(key), nil
}

// parseCA reads the CA from the PEM of its Secret. Only ECDSA keys are accepted,
// because that is what newCA writes and what issue signs with.
func parseCA(certPEM, keyPEM []byte) (*signer, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("signing-key Secret: %w", err)
	}
	key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("signing-key Secret: not an ECDSA key")
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, err
	}
	return &signer{cert: cert, key: key, certPEM: pemCert(pair.Certificate[0])}, nil
}
