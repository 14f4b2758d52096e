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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// certLifetime is long enough for a cluster kept for exploring; the node is for tests.
const certLifetime = 5 * 365 * 24 * time.Hour

// issuer is a CA that signs the node's certificates.
type issuer struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// leaf describes one certificate the node needs.
type leaf struct {
	name   string // file name, without .crt/.key
	cn     string
	orgs   []string
	dns    []string
	ips    []string
	server bool
}

// ensurePKI writes the CAs, certificates, service-account keys and kubeconfigs once;
// later runs keep them, so kubeconfigs handed out stay valid across restarts.
func ensurePKI(l layout) error {
	if err := os.MkdirAll(l.path("pki"), 0o700); err != nil {
		return err
	}
	ca, err := ensureCA(l, "ca", "ec2op-cluster-ca")
	if err != nil {
		return err
	}
	front, err := ensureCA(l, "front-proxy-ca", "ec2op-cluster-front-proxy-ca")
	if err != nil {
		return err
	}
	nodeDNS := []string{nodeName, "localhost"}
	apiDNS := []string{"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "localhost"}
	leaves := []struct {
		by *issuer
		leaf
	}{
		{ca, leaf{name: "apiserver", cn: "kube-apiserver", dns: apiDNS, ips: []string{nodeIP, kubernetesServiceIP, "127.0.0.1"}, server: true}},
		{ca, leaf{name: "apiserver-kubelet-client", cn: "kube-apiserver-kubelet-client", orgs: []string{"system:masters"}}},
		{ca, leaf{name: "kubelet", cn: nodeName, dns: nodeDNS, ips: []string{nodeIP, "127.0.0.1"}, server: true}},
		{ca, leaf{name: "admin", cn: "kubernetes-admin", orgs: []string{"system:masters"}}},
		{ca, leaf{name: "controller-manager", cn: "system:kube-controller-manager"}},
		{ca, leaf{name: "scheduler", cn: "system:kube-scheduler"}},
		{ca, leaf{name: "kube-proxy", cn: "system:kube-proxy"}},
		{ca, leaf{name: "kubelet-client", cn: "system:node:" + nodeName, orgs: []string{"system:nodes"}}},
		{front, leaf{name: "front-proxy-client", cn: "front-proxy-client"}},
	}
	for _, lf := range leaves {
		if err := ensureLeaf(l, lf.by, lf.leaf); err != nil {
			return err
		}
	}
	if err := ensureServiceAccountKey(l); err != nil {
		return err
	}
	for user, cert := range map[string]string{"admin": "admin", "controller-manager": "controller-manager",
		"scheduler": "scheduler", "kube-proxy": "kube-proxy", "kubelet": "kubelet-client"} {
		if err := writeKubeconfig(l, user, cert); err != nil {
			return err
		}
	}
	return nil
}

func ensureCA(l layout, name, cn string) (*issuer, error) {
	if exists(l.pki(name + ".crt")) {
		return loadIssuer(l, name)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(certLifetime),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	if err := writePair(l, name, der, key); err != nil {
		return nil, err
	}
	return loadIssuer(l, name)
}

func ensureLeaf(l layout, by *issuer, lf leaf) error {
	if exists(l.pki(lf.name + ".crt")) {
		return nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: lf.cn, Organization: lf.orgs},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(certLifetime),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, DNSNames: lf.dns,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if lf.server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	for _, ip := range lf.ips {
		tmpl.IPAddresses = append(tmpl.IPAddresses, net.ParseIP(ip))
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, by.cert, &key.PublicKey, by.key)
	if err != nil {
		return err
	}
	return writePair(l, lf.name, der, key)
}

// ensureServiceAccountKey is the key pair that signs and verifies ServiceAccount tokens.
func ensureServiceAccountKey(l layout) error {
	if exists(l.pki("sa.key")) {
		return nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	if err := writePEM(l.pki("sa.pub"), "PUBLIC KEY", pub, 0o644); err != nil {
		return err
	}
	return writePEM(l.pki("sa.key"), "EC PRIVATE KEY", der, 0o600)
}

func writePair(l layout, name string, der []byte, key *ecdsa.PrivateKey) error {
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	// The key first: a certificate without its key would be taken as complete.
	if err := writePEM(l.pki(name+".key"), "EC PRIVATE KEY", kder, 0o600); err != nil {
		return err
	}
	return writePEM(l.pki(name+".crt"), "CERTIFICATE", der, 0o644)
}

func loadIssuer(l layout, name string) (*issuer, error) {
	cert, err := readPEM(l.pki(name + ".crt"))
	if err != nil {
		return nil, err
	}
	key, err := readPEM(l.pki(name + ".key"))
	if err != nil {
		return nil, err
	}
	c, err := x509.ParseCertificate(cert)
	if err != nil {
		return nil, err
	}
	k, err := x509.ParseECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &issuer{cert: c, key: k}, nil
}

func readPEM(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%s holds no PEM block", path)
	}
	return block.Bytes, nil
}

func writePEM(path, typ string, der []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeAtomic(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), mode)
}

// writeAtomic replaces path with data through a rename, so a crash leaves the old file
// or the new one, never half of one.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err)
	}
	return n
}

// writeKubeconfig writes a kubeconfig for user with the client certificate cert,
// embedding the files so the kubeconfig can be copied elsewhere.
func writeKubeconfig(l layout, user, cert string) error {
	path := l.kubeconfig(user)
	if exists(path) {
		return nil
	}
	read := func(name string) (string, error) {
		data, err := os.ReadFile(l.pki(name))
		return base64(data), err
	}
	ca, err := read("ca.crt")
	if err != nil {
		return err
	}
	crt, err := read(cert + ".crt")
	if err != nil {
		return err
	}
	key, err := read(cert + ".key")
	if err != nil {
		return err
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: ec2op-cluster
  cluster:
    server: https://%s:%d
    certificate-authority-data: %s
users:
- name: %s
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: ec2op-cluster
  context: {cluster: ec2op-cluster, user: %s}
current-context: ec2op-cluster
`, nodeIP, apiserverPort, ca, user, crt, key, user)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeAtomic(path, []byte(cfg), 0o600)
}
