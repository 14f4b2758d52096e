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

// Command service-ca stands in for the two controllers of OpenShift's service CA
// (github.com/openshift/service-ca-operator) that the ec2-operator bundle relies on, on
// a plain Kubernetes cluster, since that module is not served by the Go module proxy
// here:
//
//   - serving-cert signer: for every Service annotated
//     service.beta.openshift.io/serving-cert-secret-name (or the .alpha. form) it
//     creates that Secret, type kubernetes.io/tls, with a certificate for
//     <service>.<namespace>.svc and <service>.<namespace>.svc.cluster.local (and the
//     wildcards of both for a headless Service) signed by the service CA. As the real
//     signer does, tls.crt holds the serving certificate followed by the CA
//     certificate; the Secret carries the originating-service-name, -uid and expiry
//     annotations and is owned by the Service; the Service gets serving-cert-signed-by
//     (or serving-cert-generation-error when the Secret belongs to another Service).
//   - CA bundle injector: every ConfigMap annotated
//     service.beta.openshift.io/inject-cabundle: "true" gets the CA PEM in key
//     service-ca.crt.
//
// The CA is kept in the Secret signing-key (tls.crt, tls.key) of its own namespace
// (POD_NAMESPACE, default openshift-service-ca), the name the real one uses; it is
// created on first start. Not imitated: CA rotation, the StatefulSet, APIService,
// CRD, webhook and Secret-annotation injectors, and the service-UID certificate
// extension.
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/big"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// The annotations of the real service CA (github.com/openshift/api, annotations).
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
	injectCABundleAnnotation         = "service.beta.openshift.io/inject-cabundle"
	alphaInjectCABundleAnnotation    = "service.alpha.openshift.io/inject-cabundle"
	injectionDataKey                 = "service-ca.crt"
	signingSecretName                = "signing-key"
)

var (
	caValidity      = 26 * 30 * 24 * time.Hour // about 26 months, as the real CA
	servingValidity = 2 * 365 * 24 * time.Hour // two years, as the real serving certs
	// A serving certificate this close to expiry, or no longer verifying against the
	// CA, is issued again.
	refreshBefore = time.Hour
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file; empty means in-cluster")
	namespace := flag.String("namespace", envOr("POD_NAMESPACE", "openshift-service-ca"), "namespace of the CA's signing-key Secret")
	resync := flag.Duration("resync", 30*time.Second, "how often every Service and ConfigMap is checked again")
	only := flag.String("namespaces", "", "comma-separated namespaces to serve; empty means all (as the real one)")
	flag.Parse()

	var cfg *rest.Config
	var err error
	if *kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", *kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		log.Fatalf("kubernetes config: %v", err)
	}
	cfg.UserAgent = "service-ca-standin"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	ca, err := loadOrCreateCA(ctx, cs, *namespace)
	if err != nil {
		log.Fatalf("service CA: %v", err)
	}
	log.Printf("service CA %q from secret %s/%s", ca.cert.Subject.CommonName, *namespace, signingSecretName)

	c := &controller{cs: cs, ca: ca}
	if *only != "" {
		c.namespaces = map[string]bool{}
		for _, n := range strings.Split(*only, ",") {
			c.namespaces[strings.TrimSpace(n)] = true
		}
	}
	factory := informers.NewSharedInformerFactory(cs, *resync)
	services := factory.Core().V1().Services().Informer()
	configMaps := factory.Core().V1().ConfigMaps().Informer()
	secrets := factory.Core().V1().Secrets().Informer()
	c.services = services.GetStore()
	handle := func(f func(context.Context, any)) cache.ResourceEventHandler {
		return cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { f(ctx, obj) },
			UpdateFunc: func(_, obj any) { f(ctx, obj) },
		}
	}
	for _, reg := range []struct {
		inf cache.SharedIndexInformer
		f   func(context.Context, any)
	}{{services, c.syncService}, {configMaps, c.syncConfigMap}} {
		if _, err := reg.inf.AddEventHandler(handle(reg.f)); err != nil {
			log.Fatal(err)
		}
	}
	// A deleted or changed serving Secret is issued again, as the real signer does.
	if _, err := secrets.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { c.syncSecretOwner(ctx, obj) },
		DeleteFunc: func(obj any) { c.syncSecretOwner(ctx, obj) },
	}); err != nil {
		log.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	log.Print("watching Services and ConfigMaps")
	<-ctx.Done()
	factory.Shutdown()
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

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

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err)
	}
	return n
}

func pemCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func pemKey(key *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

type controller struct {
	cs       kubernetes.Interface
	ca       *signer
	services cache.Store
	// namespaces limits the namespaces served; nil serves all.
	namespaces map[string]bool
}

func (c *controller) serves(ns string) bool { return c.namespaces == nil || c.namespaces[ns] }

// dnsNames are the names the real signer puts in a serving certificate.
func dnsNames(svc *corev1.Service) []string {
	base := svc.Name + "." + svc.Namespace + ".svc"
	names := []string{base, base + ".cluster.local"}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		names = append(names, "*."+base, "*."+base+".cluster.local")
	}
	return names
}

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

func (c *controller) ensureServingSecret(ctx context.Context, svc *corev1.Service, name string) error {
	secrets := c.cs.CoreV1().Secrets(svc.Namespace)
	existing, err := secrets.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		existing = nil
	case err != nil:
		return err
	}
	if existing != nil {
		uid := existing.Annotations[serviceUIDAnnotation]
		if uid == "" {
			uid = existing.Annotations[alphaServiceUIDAnnotation]
		}
		if uid != string(svc.UID) {
			msg := fmt.Sprintf("secret/%s references serviceUID %s, which does not match %s", name, uid, svc.UID)
			return c.annotateService(ctx, svc, errOtherService{msg})
		}
		if c.stillGood(existing, svc) {
			return c.annotateService(ctx, svc, nil)
		}
	}
	certPEM, keyPEM, expiry, err := c.issue(svc)
	if err != nil {
		return err
	}
	annotations := map[string]string{
		serviceNameAnnotation: svc.Name,
		serviceUIDAnnotation:  string(svc.UID),
		expiryAnnotation:      expiry.UTC().Format(time.RFC3339),
	}
	if svc.Annotations[servingCertSecretAnnotation] == "" {
		// Requested with the alpha annotation: the real signer then writes the alpha names.
		annotations = map[string]string{
			alphaServiceNameAnnotation: svc.Name,
			alphaServiceUIDAnnotation:  string(svc.UID),
			alphaExpiryAnnotation:      expiry.UTC().Format(time.RFC3339),
		}
	} else {
		annotations[alphaExpiryAnnotation] = annotations[expiryAnnotation]
	}
	data := map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM}
	owner := metav1.OwnerReference{APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID}
	if existing == nil {
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: svc.Namespace, Annotations: annotations,
				OwnerReferences: []metav1.OwnerReference{owner}},
			Type: corev1.SecretTypeTLS,
			Data: data,
		}
		if _, err := secrets.Create(ctx, s, metav1.CreateOptions{}); err != nil {
			return err
		}
	} else {
		s := existing.DeepCopy()
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		for k, v := range annotations {
			s.Annotations[k] = v
		}
		if !slices.ContainsFunc(s.OwnerReferences, func(o metav1.OwnerReference) bool { return o.UID == svc.UID }) {
			s.OwnerReferences = append(s.OwnerReferences, owner)
		}
		s.Data = data
		if _, err := secrets.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	log.Printf("issued secret %s/%s for service %s (%s), expires %s", svc.Namespace, name, svc.Name,
		strings.Join(dnsNames(svc), ","), expiry.UTC().Format(time.RFC3339))
	return c.annotateService(ctx, svc, nil)
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
	roots.AddCert(c.ca.cert)
	_, err = cert.Verify(x509.VerifyOptions{DNSName: cert.DNSNames[0], Roots: roots,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err == nil
}

func (c *controller) issue(svc *corev1.Service) (certPEM, keyPEM []byte, expiry time.Time, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	now := time.Now()
	expiry = now.Add(servingValidity)
	if expiry.After(c.ca.cert.NotAfter) {
		expiry = c.ca.cert.NotAfter
	}
	names := dnsNames(svc)
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: names[0]},
		DNSNames:     names,
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     expiry,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.ca.cert, &key.PublicKey, c.ca.key)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	// The serving certificate, then its issuer, as the real signer writes it.
	return append(pemCert(der), c.ca.certPEM...), pemKey(key), expiry, nil
}

// annotateService records who signed the Service's certificate, or why none was issued.
func (c *controller) annotateService(ctx context.Context, svc *corev1.Service, failure error) error {
	want := map[string]string{}
	drop := []string{}
	if failure == nil {
		want[signedByAnnotation] = c.ca.cert.Subject.CommonName
		want[alphaSignedByAnnotation] = c.ca.cert.Subject.CommonName
		drop = append(drop, errorAnnotation, alphaErrorAnnotation, errorNumAnnotation, alphaErrorNumAnnotation)
	} else {
		want[errorAnnotation] = failure.Error()
		want[alphaErrorAnnotation] = failure.Error()
	}
	changed := false
	for k, v := range want {
		if svc.Annotations[k] != v {
			changed = true
		}
	}
	for _, k := range drop {
		if _, ok := svc.Annotations[k]; ok {
			changed = true
		}
	}
	if !changed {
		if failure != nil {
			return failure
		}
		return nil
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

func (c *controller) syncConfigMap(ctx context.Context, obj any) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.DeletionTimestamp != nil || !c.serves(cm.Namespace) {
		return
	}
	if !strings.EqualFold(cm.Annotations[injectCABundleAnnotation], "true") &&
		!strings.EqualFold(cm.Annotations[alphaInjectCABundleAnnotation], "true") {
		return
	}
	if cm.Data[injectionDataKey] == string(c.ca.certPEM) {
		return
	}
	u := cm.DeepCopy()
	// The real injector owns the whole data of an injected ConfigMap.
	u.Data = map[string]string{injectionDataKey: string(c.ca.certPEM)}
	if _, err := c.cs.CoreV1().ConfigMaps(u.Namespace).Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		log.Printf("configmap %s/%s: %v", cm.Namespace, cm.Name, err)
		return
	}
	log.Printf("injected the CA bundle into configmap %s/%s", cm.Namespace, cm.Name)
}
