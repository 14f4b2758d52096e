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
//
// The files of this command: main.go reads the flags, builds the clients and runs the
// watch loop; ca.go keeps the signing CA in its Secret; pem.go encodes keys and
// certificates; serving.go writes serving Secrets for Services and annotates the
// Services, servingcert.go issues and checks their certificates; inject.go injects the
// CA bundle into ConfigMaps.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ec2-operator/ec2-operator/internal/pki"
)

// options are the command-line flags, kept together so that main reads as the order of
// start-up rather than as a list of flag definitions.
type options struct {
	kubeconfig string
	namespace  string
	resync     time.Duration
	namespaces string
}

func main() {
	opts := parseFlags()
	cs, err := newClientset(opts.kubeconfig)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	ca, err := loadOrCreateCA(ctx, cs, opts.namespace)
	if err != nil {
		log.Fatalf("service CA: %v", err)
	}
	log.Printf("service CA %q from secret %s/%s", ca.Cert.Subject.CommonName, opts.namespace, signingSecretName)

	c := &controller{cs: cs, ca: ca, namespaces: namespaceSet(opts.namespaces)}
	factory := informers.NewSharedInformerFactory(cs, opts.resync)
	if err := c.watch(ctx, factory); err != nil {
		log.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	log.Print("watching Services and ConfigMaps")
	<-ctx.Done()
	factory.Shutdown()
}

// parseFlags defines and parses the flags; the namespace of the CA defaults to
// POD_NAMESPACE so that the Deployment need not repeat its own namespace.
func parseFlags() options {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file; empty means in-cluster")
	namespace := flag.String("namespace", envOr("POD_NAMESPACE", "openshift-service-ca"), "namespace of the CA's signing-key Secret")
	resync := flag.Duration("resync", 30*time.Second, "how often every Service and ConfigMap is checked again")
	only := flag.String("namespaces", "", "comma-separated namespaces to serve; empty means all (as the real one)")
	flag.Parse()
	return options{kubeconfig: *kubeconfig, namespace: *namespace, resync: *resync, namespaces: *only}
}

// newClientset connects with the kubeconfig file when one is given, so that the command
// can also run outside the cluster, and with the Pod's service account otherwise.
func newClientset(kubeconfig string) (kubernetes.Interface, error) {
	var cfg *rest.Config
	var err error
	if kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("kubernetes config: %w", err)
	}
	cfg.UserAgent = "service-ca-standin"
	return kubernetes.NewForConfig(cfg)
}

// namespaceSet turns the comma-separated -namespaces flag into a set. An empty flag
// gives nil, which the controller reads as every namespace, as the real service CA
// serves them all.
func namespaceSet(only string) map[string]bool {
	if only == "" {
		return nil
	}
	set := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		set[strings.TrimSpace(n)] = true
	}
	return set
}

// envOr returns the environment variable, or def when it is unset or empty, so that a
// flag's default can come from the Pod's environment.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// controller holds what both the serving-cert signer and the CA bundle injector need:
// the client, the CA and the cache of Services.
type controller struct {
	cs       kubernetes.Interface
	ca       *pki.Authority
	services cache.Store
	// namespaces limits the namespaces served; nil serves all.
	namespaces map[string]bool
}

// serves reports whether objects in namespace ns are to be handled, so that -namespaces
// can keep the stand-in from touching other namespaces of a shared cluster.
func (c *controller) serves(ns string) bool { return c.namespaces == nil || c.namespaces[ns] }

// watch registers the event handlers on the factory's informers. Services and
// ConfigMaps are synced when added or changed; the factory's resync brings every one of
// them back periodically, which is how an expiring certificate is noticed.
func (c *controller) watch(ctx context.Context, factory informers.SharedInformerFactory) error {
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
			return err
		}
	}
	// A deleted or changed serving Secret is issued again, as the real signer does.
	_, err := secrets.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { c.syncSecretOwner(ctx, obj) },
		DeleteFunc: func(obj any) { c.syncSecretOwner(ctx, obj) },
	})
	return err
}
