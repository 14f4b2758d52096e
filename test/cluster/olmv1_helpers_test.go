//go:build cluster

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

package cluster

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ec2-operator/ec2-operator/internal/images"
	"github.com/ec2-operator/ec2-operator/internal/pki"
)

// OLM v1 as installed by cmd/devcluster/olmv1/olmv1.yaml (operator-controller v1.2.0).
const (
	olmv1Namespace = "olmv1-system"
	// The Secrets cert-manager's Certificates would have made (names as upstream).
	catalogdCertSecret           = "catalogd-service-cert-git-version"
	operatorControllerCertSecret = "olmv1-cert"
	catalogdWebhook              = "catalogd-mutating-webhook-configuration"
	// olmv1RegistriesConf is mounted at /etc/containers in both managers (optional).
	olmv1RegistriesConf = "olmv1-registries-conf"

	// Our installation.
	olmv1CatalogName    = "ec2-operator-catalog"
	olmv1ExtensionName  = "ec2-operator"
	olmv1InstallNS      = "ec2-operator-system"
	olmv1InstallerSA    = "ec2-operator-installer"
	olmv1OperatorDeploy = "ec2-operator-controller-manager"
)

var (
	clusterCatalogGVK   = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1", Kind: "ClusterCatalog"}
	clusterExtensionGVK = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1", Kind: "ClusterExtension"}
	ec2InstanceGVK      = schema.GroupVersionKind{Group: "compute.ec2-operator.dev", Version: "v1alpha1", Kind: "EC2Instance"}
)

// olmv1PKI is what cert-manager's olmv1-ca ClusterIssuer and the two Certificates
// of upstream's cert-manager overlay would have produced: one CA, a serving cert for
// catalogd (its catalog HTTPS server and its webhook share it) and one for
// operator-controller (its metrics server), with exactly the upstream DNS names.
type olmv1PKI struct {
	caPEM                     []byte
	catalogdCert, catalogdKey []byte
	opconCert, opconKey       []byte
}

func newOLMv1PKI(t *testing.T) olmv1PKI {
	t.Helper()
	ca, err := pki.NewAuthority("olmv1-ca", 365*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	leaf := func(cn string, dns ...string) ([]byte, []byte) {
		pair, err := ca.Issue(pki.Request{CommonName: cn, DNSNames: dns, Server: true, Client: true, ValidFor: 90 * 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return pair.CertPEM, pair.KeyPEM
	}
	p := olmv1PKI{caPEM: ca.CertPEM}
	p.catalogdCert, p.catalogdKey = leaf("catalogd-service",
		"localhost", "catalogd-service.olmv1-system.svc", "catalogd-service.olmv1-system.svc.cluster.local")
	p.opconCert, p.opconKey = leaf("operator-controller-service",
		"operator-controller-service.olmv1-system.svc", "operator-controller-service.olmv1-system.svc.cluster.local")
	return p
}

// secrets are the two Secrets the Deployments mount, in cert-manager's layout
// (type kubernetes.io/tls plus ca.crt).
func (p olmv1PKI) secrets() []*corev1.Secret {
	mk := func(name string, cert, key []byte) *corev1.Secret {
		return &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: olmv1Namespace},
			Type:       corev1.SecretTypeTLS,
			Data:       map[string][]byte{"tls.crt": cert, "tls.key": key, "ca.crt": p.caPEM},
		}
	}
	return []*corev1.Secret{
		mk(catalogdCertSecret, p.catalogdCert, p.catalogdKey),
		mk(operatorControllerCertSecret, p.opconCert, p.opconKey),
	}
}

// createOrReplace creates obj, or replaces an existing one (a rerun of the test).
func createOrReplace(t *testing.T, c *Cluster, obj client.Object) {
	t.Helper()
	ctx := context.Background()
	err := c.Client.Create(ctx, obj)
	if apierrors.IsAlreadyExists(err) {
		cur := obj.DeepCopyObject().(client.Object)
		if err = c.Client.Get(ctx, client.ObjectKeyFromObject(obj), cur); err == nil {
			obj.SetResourceVersion(cur.GetResourceVersion())
			err = c.Client.Update(ctx, obj)
		}
	}
	if err != nil {
		t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
	}
}

// olmv1Registry is an in-process OCI registry on the node's address, holding the
// catalog and bundle images under the repositories their quay.io references name.
// catalogd and operator-controller pull images themselves with containers/image
// (docker:// transport only), NOT through containerd, so an image imported into
// containerd is invisible to them: they need a registry. registries.conf rewrites
// quay.io/ec2-operator/* to this registry over plain HTTP (insecure = true).
type olmv1Registry struct {
	Addr string // host:port on the node's address
	srv  *http.Server
}

func startOLMv1Registry(t *testing.T, c *Cluster) *olmv1Registry {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(c.NodeIP, "0"))
	if err != nil {
		t.Fatalf("registry for OLM v1: %v", err)
	}
	r := &olmv1Registry{Addr: ln.Addr().String(),
		srv: &http.Server{Handler: registry.New(registry.Logger(log.New(io.Discard, "", 0))), ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = r.srv.Serve(ln) }()
	t.Cleanup(func() { _ = r.srv.Close() })
	return r
}

// push copies the image index of an OCI layout (bin/images/NAME, as `make images`
// writes it) to the registry, by digest, under the path of its reference name
// (quay.io/ec2-operator/ec2-operator-catalog:v0.1.0 -> ADDR/ec2-operator/ec2-operator-catalog).
// It returns the index digest.
func (r *olmv1Registry) push(t *testing.T, layoutDir string) string {
	t.Helper()
	idx, ref, err := images.ReadLayout(layoutDir)
	if err != nil {
		t.Fatalf("%v (run make images)", err)
	}
	digest, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	src, err := name.ParseReference(ref)
	if err != nil {
		t.Fatalf("reference %q in %s: %v", ref, layoutDir, err)
	}
	dst, err := name.NewDigest(r.Addr+"/"+src.Context().RepositoryStr()+"@"+digest.String(), name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(dst, idx); err != nil {
		t.Fatalf("pushing %s: %v", dst, err)
	}
	t.Logf("pushed %s (%s) to %s", layoutDir, ref, dst)
	return digest.String()
}

// registriesConf sends every quay.io/ec2-operator image to the registry. The
// managers read /etc/containers/registries.conf (mounted from olmv1RegistriesConf)
// and reload it on every pull.
func (r *olmv1Registry) registriesConf() string {
	return fmt.Sprintf(`# Written by test/cluster/olmv1_test.go: quay.io/ec2-operator/* is served by a
# registry on the node, over plain HTTP.
[[registry]]
prefix = "quay.io/ec2-operator"
location = "%s/ec2-operator"
insecure = true
`, r.Addr)
}

// installOLMv1 installs catalogd and operator-controller and waits until both serve.
func installOLMv1(t *testing.T, c *Cluster, reg *olmv1Registry) {
	t.Helper()
	ctx := context.Background()
	// The namespace first, so the Secrets and registries.conf exist before the
	// pods start (the kubelet retries a missing Secret volume only with backoff).
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: olmv1Namespace}}
	if err := c.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// Keep the certificates of an earlier run: pods that mount them would otherwise
	// serve the old ones until the kubelet refreshes the Secret volumes.
	var caPEM []byte
	existing := &corev1.Secret{}
	err := c.Client.Get(ctx, client.ObjectKey{Namespace: olmv1Namespace, Name: catalogdCertSecret}, existing)
	switch {
	case err == nil && len(existing.Data["ca.crt"]) > 0:
		caPEM = existing.Data["ca.crt"]
	case err == nil || apierrors.IsNotFound(err):
		pki := newOLMv1PKI(t)
		for _, s := range pki.secrets() {
			createOrReplace(t, c, s)
		}
		caPEM = pki.caPEM
	default:
		t.Fatal(err)
	}
	createOrReplace(t, c, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: olmv1RegistriesConf, Namespace: olmv1Namespace},
		Data:       map[string]string{"registries.conf": reg.registriesConf()},
	})
	c.Apply(t, filepath.Join(c.Root, "cmd/devcluster/olmv1/olmv1.yaml"))
	// What cert-manager's CA injector would do: the API server must trust catalogd's
	// webhook (failurePolicy Fail: without it no ClusterCatalog can be created).
	c.Kubectl(t, "patch", "mutatingwebhookconfiguration", catalogdWebhook, "--type=json", "-p",
		fmt.Sprintf(`[{"op":"add","path":"/webhooks/0/clientConfig/caBundle","value":%q}]`,
			base64.StdEncoding.EncodeToString(caPEM)))
	for _, d := range []string{"catalogd-controller-manager", "operator-controller-controller-manager"} {
		c.Kubectl(t, "-n", olmv1Namespace, "rollout", "status", "deployment/"+d, "--timeout=5m")
	}
}

// getUnstructured reads an object, or returns nil when it does not exist.
func getUnstructured(t *testing.T, c *Cluster, gvk schema.GroupVersionKind, ns, nm string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	err := c.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: nm}, u)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return u, err
}

// condition returns the status, reason and message of a condition of u.
func condition(u *unstructured.Unstructured, typ string) (status, reason, message string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, ci := range conds {
		m, _ := ci.(map[string]any)
		if m["type"] == typ {
			s, _ := m["status"].(string)
			r, _ := m["reason"].(string)
			msg, _ := m["message"].(string)
			return s, r, msg
		}
	}
	return "", "", ""
}

// waitCondition waits until the cluster-scoped object's condition is True, logging
// the condition's reason and message while it is not.
func waitCondition(t *testing.T, c *Cluster, timeout time.Duration, gvk schema.GroupVersionKind, nm, typ string) {
	t.Helper()
	last := ""
	c.WaitFor(t, timeout, gvk.Kind+" "+nm+" "+typ, func() (bool, error) {
		u, err := getUnstructured(t, c, gvk, "", nm)
		if err != nil || u == nil {
			return false, err
		}
		s, r, m := condition(u, typ)
		if now := s + " " + r + ": " + m; now != last {
			t.Logf("%s %s: %s=%s", gvk.Kind, nm, typ, now)
			last = now
		}
		return s == "True", nil
	})
}

// writeManifest writes a YAML document to a temporary file for c.Apply.
func writeManifest(t *testing.T, nm, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), nm+".yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// envArgs renders env for `kubectl set env` in a stable order.
func envArgs(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// digestOf returns the sha256:... part of an image reference.
func digestOf(ref string) string {
	if i := strings.LastIndex(ref, "@"); i >= 0 {
		return ref[i+1:]
	}
	return ""
}
