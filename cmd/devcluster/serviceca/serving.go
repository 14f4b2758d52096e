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
	"log"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
)

// The annotations of the real serving-cert signer (github.com/openshift/api,
// annotations).
const (
	servingCertSecretAnnotation      = "service.beta.openshift.io/serving-cert-secret-name"
	alphaServingCertSecretAnnotation = "service.alpha.openshift.io/serving-cert-secret-name"
	signedByAnnotation               = "service.beta.openshift.io/serving-cert-signed-by"
	alphaSignedByAnnotation          = "service.alpha.openshift.io/serving-cert-signed-by"
	errorAnnotation                  = "service.beta.openshift.io/serving-cert-generation-error"
	alphaErrorAnnotation             = "service.alpha.openshift.io/serving-cert-generation-error"
	errorNumAnnotation               = "service.beta.openshift.io/serving-cert-generation-error-num"
	alphaErrorNumAnnotation          = "service.alpha.openshift.io/serving-cert-generation-error-num"
	serviceUIDAnnotation             = "service.beta.openshift.io/originating-service-uid"
	alphaServiceUIDAnnotation        = "service.alpha.openshift.io/originating-service-uid"
	serviceNameAnnotation            = "service.beta.openshift.io/originating-service-name"
	alphaServiceNameAnnotation       = "service.alpha.openshift.io/originating-service-name"
	expiryAnnotation                 = "service.beta.openshift.io/expiry"
	alphaExpiryAnnotation            = "service.alpha.openshift.io/expiry"
)

// secretNameOf returns the serving Secret the Service asks for, preferring the beta
// annotation as the real signer does.
func secretNameOf(svc *corev1.Service) string {
	if n := svc.Annotations[servingCertSecretAnnotation]; n != "" {
		return n
	}
	return svc.Annotations[alphaServingCertSecretAnnotation]
}

// syncSecretOwner re-checks the Service a serving Secret was issued for.
func (c *controller) syncSecretOwner(ctx context.Context, obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return
	}
	name := s.Annotations[serviceNameAnnotation]
	if name == "" {
		return
	}
	if svc, exists, _ := c.services.GetByKey(s.Namespace + "/" + name); exists {
		c.syncService(ctx, svc)
	}
}

// syncService makes sure a Service that asks for a serving Secret has a valid one. An
// error is only logged, because the next resync tries again.
func (c *controller) syncService(ctx context.Context, obj any) {
	svc, ok := obj.(*corev1.Service)
	if !ok || svc.DeletionTimestamp != nil || !c.serves(svc.Namespace) {
		return
	}
	name := secretNameOf(svc)
	if name == "" {
		return
	}
	if err := c.ensureServingSecret(ctx, svc, name); err != nil {
		log.Printf("service %s/%s: %v", svc.Namespace, svc.Name, err)
	}
}

// errOtherService is a Secret that belongs to another Service (or to no Service).
type errOtherService struct{ msg string }

func (e errOtherService) Error() string { return e.msg }

// ensureServingSecret keeps the Secret name of the Service holding a valid serving
// certificate. A Secret issued for another Service is never overwritten: the Service is
// annotated with the error instead, as the real signer does.
func (c *controller) ensureServingSecret(ctx context.Context, svc *corev1.Service, name string) error {
	secrets := c.cs.CoreV1().Secrets(svc.Namespace)
	existing, err := getSecretIfExists(ctx, secrets, name)
	if err != nil {
		return err
	}
	if existing != nil {
		if uid := originatingServiceUID(existing); uid != string(svc.UID) {
			msg := fmt.Sprintf("secret/%s references serviceUID %s, which does not match %s", name, uid, svc.UID)
			return c.annotateService(ctx, svc, errOtherService{msg})
		}
		if c.stillGood(existing, svc) {
			return c.annotateService(ctx, svc, nil)
		}
	}
	return c.issueServingSecret(ctx, secrets, existing, svc, name)
}

// getSecretIfExists returns the Secret, or nil when there is none, so that the caller
// can tell "create" from "update" without looking at the error again.
func getSecretIfExists(ctx context.Context, secrets typedcorev1.SecretInterface, name string) (*corev1.Secret, error) {
	s, err := secrets.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return s, nil
}

// originatingServiceUID returns the UID of the Service the Secret was issued for, from
// the beta annotation or else the alpha one, since either may have been written.
func originatingServiceUID(s *corev1.Secret) string {
	if uid := s.Annotations[serviceUIDAnnotation]; uid != "" {
		return uid
	}
	return s.Annotations[alphaServiceUIDAnnotation]
}

// issueServingSecret issues a new certificate for the Service and writes it into the
// Secret name, creating the Secret when existing is nil, then marks the Service signed.
func (c *controller) issueServingSecret(ctx context.Context, secrets typedcorev1.SecretInterface,
	existing *corev1.Secret, svc *corev1.Service, name string) error {
	certPEM, keyPEM, expiry, err := c.issue(svc)
	if err != nil {
		return err
	}
	annotations := servingSecretAnnotations(svc, expiry)
	data := map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM}
	if existing == nil {
		err = createServingSecret(ctx, secrets, svc, name, annotations, data)
	} else {
		err = updateServingSecret(ctx, secrets, existing, svc, annotations, data)
	}
	if err != nil {
		return err
	}
	log.Printf("issued secret %s/%s for service %s (%s), expires %s", svc.Namespace, name, svc.Name,
		strings.Join(dnsNames(svc), ","), expiry.UTC().Format(time.RFC3339))
	return c.annotateService(ctx, svc, nil)
}

// servingSecretAnnotations are the annotations the real signer puts on a serving
// Secret: the originating Service's name and UID and the certificate's expiry.
func servingSecretAnnotations(svc *corev1.Service, expiry time.Time) map[string]string {
	expires := expiry.UTC().Format(time.RFC3339)
	if svc.Annotations[servingCertSecretAnnotation] == "" {
		// Requested with the alpha annotation: the real signer then writes the alpha names.
		return map[string]string{
			alphaServiceNameAnnotation: svc.Name,
			alphaServiceUIDAnnotation:  string(svc.UID),
			alphaExpiryAnnotation:      expires,
		}
	}
	return map[string]string{
		serviceNameAnnotation: svc.Name,
		serviceUIDAnnotation:  string(svc.UID),
		expiryAnnotation:      expires,
		alphaExpiryAnnotation: expires,
	}
}

// serviceOwner makes the Service own its serving Secret, so that the garbage collector
// deletes the Secret with the Service.
func serviceOwner(svc *corev1.Service) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID}
}

// createServingSecret creates the serving Secret the Service asked for.
func createServingSecret(ctx context.Context, secrets typedcorev1.SecretInterface, svc *corev1.Service,
	name string, annotations map[string]string, data map[string][]byte) error {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: svc.Namespace, Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{serviceOwner(svc)}},
		Type: corev1.SecretTypeTLS,
		Data: data,
	}
	_, err := secrets.Create(ctx, s, metav1.CreateOptions{})
	return err
}

// updateServingSecret replaces the certificate of an existing serving Secret. Its other
// annotations and owners are kept, since someone else may have put them there.
func updateServingSecret(ctx context.Context, secrets typedcorev1.SecretInterface, existing *corev1.Secret,
	svc *corev1.Service, annotations map[string]string, data map[string][]byte) error {
	s := existing.DeepCopy()
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	for k, v := range annotations {
		s.Annotations[k] = v
	}
	if !slices.ContainsFunc(s.OwnerReferences, func(o metav1.OwnerReference) bool { return o.UID == svc.UID }) {
		s.OwnerReferences = append(s.OwnerReferences, serviceOwner(svc))
	}
	s.Data = data
	_, err := secrets.Update(ctx, s, metav1.UpdateOptions{})
	return err
}

// annotateService records who signed the Service's certificate, or why none was issued.
// The Service is only updated when its annotations differ, so that a resync of a
// Service already in order writes nothing. It returns failure, so that the caller logs it.
func (c *controller) annotateService(ctx context.Context, svc *corev1.Service, failure error) error {
	want, drop := c.serviceAnnotations(failure)
	if !annotationsDiffer(svc.Annotations, want, drop) {
		return failure
	}
	s := svc.DeepCopy()
	for k, v := range want {
		s.Annotations[k] = v
	}
	for _, k := range drop {
		delete(s.Annotations, k)
	}
	if _, err := c.cs.CoreV1().Services(s.Namespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		return err
	}
	return failure
}

// serviceAnnotations are the annotations a Service is to carry (want) and to lose
// (drop): after a success the signer and no error, after a failure the error.
func (c *controller) serviceAnnotations(failure error) (want map[string]string, drop []string) {
	want = map[string]string{}
	drop = []string{}
	if failure == nil {
		want[signedByAnnotation] = c.ca.Cert.Subject.CommonName
		want[alphaSignedByAnnotation] = c.ca.Cert.Subject.CommonName
		drop = append(drop, errorAnnotation, alphaErrorAnnotation, errorNumAnnotation, alphaErrorNumAnnotation)
	} else {
		want[errorAnnotation] = failure.Error()
		want[alphaErrorAnnotation] = failure.Error()
	}
	return want, drop
}

// annotationsDiffer reports whether have lacks a value of want or still holds a key of
// drop.
func annotationsDiffer(have, want map[string]string, drop []string) bool {
	for k, v := range want {
		if have[k] != v {
			return true
		}
	}
	for _, k := range drop {
		if _, ok := have[k]; ok {
			return true
		}
	}
	return false
}
