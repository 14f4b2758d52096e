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
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/ec2-operator/ec2-operator/internal/pki"
)

// certLifetime is long enough for a cluster kept for exploring; the node is for tests.
const certLifetime = 5 * 365 * 24 * time.Hour

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
		by *pki.Authority
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

// ensureCA returns the CA kept in pki/<name>.crt and .key, making it the first time.
func ensureCA(l layout, name, cn string) (*pki.Authority, error) {
	if !exists(l.pki(name + ".crt")) {
		ca, err := pki.NewAuthority(cn, certLifetime)
		if err != nil {
			return nil, err
		}
		if err := writePair(l, name, ca.CertPEM, ca.KeyPEM); err != nil {
			return nil, err
		}
	}
	certPEM, err := os.ReadFile(l.pki(name + ".crt"))
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(l.pki(name + ".key"))
	if err != nil {
		return nil, err
	}
	return pki.ParseAuthority(certPEM, keyPEM)
}

// ensureLeaf writes the certificate lf describes, signed by by, unless it exists. Every
// certificate authenticates a client; a server's also authenticates its server.
func ensureLeaf(l layout, by *pki.Authority, lf leaf) error {
	if exists(l.pki(lf.name + ".crt")) {
		return nil
	}
	req := pki.Request{CommonName: lf.cn, Organization: lf.orgs, DNSNames: lf.dns,
		Client: true, Server: lf.server, ValidFor: certLifetime}
	for _, ip := range lf.ips {
		req.IPAddresses = append(req.IPAddresses, net.ParseIP(ip))
	}
	pair, err := by.Issue(req)
	if err != nil {
		return err
	}
	return writePair(l, lf.name, pair.CertPEM, pair.KeyPEM)
}

// ensureServiceAccountKey is the key pair that signs and verifies ServiceAccount tokens.
func ensureServiceAccountKey(l layout) error {
	if exists(l.pki("sa.key")) {
		return nil
	}
	key, err := pki.NewKey()
	if err != nil {
		return err
	}
	keyPEM, err := pki.KeyPEM(key)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	if err := writeFile(l.pki("sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644); err != nil {
		return err
	}
	return writeFile(l.pki("sa.key"), keyPEM, 0o600)
}

// writePair writes a certificate and its key, the key first: a certificate without
// its key would be taken as complete.
func writePair(l layout, name string, certPEM, keyPEM []byte) error {
	if err := writeFile(l.pki(name+".key"), keyPEM, 0o600); err != nil {
		return err
	}
	return writeFile(l.pki(name+".crt"), certPEM, 0o644)
}

// writeFile writes data through a rename (writeAtomic), creating the directory.
func writeFile(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeAtomic(path, data, mode)
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

// writeKubeconfig writes a kubeconfig for user with the client certificate cert,
// embedding the files so the kubeconfig can be copied elsewhere.
func writeKubeconfig(l layout, user, cert string) error {
	path := l.kubeconfig(user)
	if exists(path) {
		return nil
	}
	files := map[string][]byte{"ca.crt": nil, cert + ".crt": nil, cert + ".key": nil}
	for name := range files {
		data, err := os.ReadFile(l.pki(name))
		if err != nil {
			return err
		}
		files[name] = data
	}
	const name = "ec2op-cluster"
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   fmt.Sprintf("https://%s:%d", nodeIP, apiserverPort),
		CertificateAuthorityData: files["ca.crt"],
	}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{
		ClientCertificateData: files[cert+".crt"],
		ClientKeyData:         files[cert+".key"],
	}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: user}
	cfg.CurrentContext = name
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	return writeFile(path, data, 0o600)
}
