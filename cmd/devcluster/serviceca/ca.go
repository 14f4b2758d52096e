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
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ec2-operator/ec2-operator/internal/pki"
)

// signingSecretName is the Secret the real service CA keeps its CA in; using the same
// name lets manifests written for OpenShift find it.
const signingSecretName = "signing-key"

// caValidity is about 26 months, the lifetime of the real service CA.
var caValidity = 26 * 30 * 24 * time.Hour

// loadOrCreateCA reads the CA from the signing-key Secret, creating it the first time.
func loadOrCreateCA(ctx context.Context, cs kubernetes.Interface, ns string) (*pki.Authority, error) {
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
	ca, err := pki.NewAuthority(fmt.Sprintf("openshift-service-serving-signer@%d", time.Now().Unix()), caValidity)
	if err != nil {
		return nil, nil, err
	}
	return ca.CertPEM, ca.KeyPEM, nil
}

// parseCA reads the CA from the PEM of its Secret.
func parseCA(certPEM, keyPEM []byte) (*pki.Authority, error) {
	ca, err := pki.ParseAuthority(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("signing-key Secret: %w", err)
	}
	return ca, nil
}
