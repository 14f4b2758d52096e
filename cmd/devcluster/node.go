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
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

// controlPlane are the node's control-plane daemons in start order.
func controlPlane(l layout) []daemon {
	pki := l.pki
	return []daemon{
		{name: "etcd", bin: l.bin("etcd"), args: []string{
			"--name=default", "--data-dir=" + l.path("etcd"),
			"--listen-client-urls=" + etcdURL(), "--advertise-client-urls=" + etcdURL(),
			"--listen-peer-urls=http://127.0.0.1:" + strconv.Itoa(etcdPeerPort),
			"--initial-advertise-peer-urls=http://127.0.0.1:" + strconv.Itoa(etcdPeerPort),
			"--initial-cluster=default=http://127.0.0.1:" + strconv.Itoa(etcdPeerPort),
			"--listen-metrics-urls=http://127.0.0.1:12381",
			// A test cluster: losing the last writes in a host crash is fine, a slow disk is not.
			"--unsafe-no-fsync=true",
		}},
		{name: "kube-apiserver", bin: l.bin("kube-apiserver"), args: []string{
			"--advertise-address=" + nodeIP, "--bind-address=" + nodeIP, "--secure-port=" + strconv.Itoa(apiserverPort),
			"--etcd-servers=" + etcdURL(), "--service-cluster-ip-range=" + serviceCIDR,
			"--client-ca-file=" + pki("ca.crt"), "--tls-cert-file=" + pki("apiserver.crt"), "--tls-private-key-file=" + pki("apiserver.key"),
			"--kubelet-client-certificate=" + pki("apiserver-kubelet-client.crt"), "--kubelet-client-key=" + pki("apiserver-kubelet-client.key"),
			"--kubelet-certificate-authority=" + pki("ca.crt"),
			// The node's name is in no DNS; its address is.
			"--kubelet-preferred-address-types=InternalIP",
			"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
			"--service-account-key-file=" + pki("sa.pub"), "--service-account-signing-key-file=" + pki("sa.key"),
			"--authorization-mode=Node,RBAC", "--enable-admission-plugins=NodeRestriction", "--allow-privileged=true",
			// packageserver (OLM) and other aggregated API servers need the front proxy.
			"--requestheader-client-ca-file=" + pki("front-proxy-ca.crt"), "--requestheader-allowed-names=front-proxy-client",
			"--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
			"--requestheader-extra-headers-prefix=X-Remote-Extra-",
			"--proxy-client-cert-file=" + pki("front-proxy-client.crt"), "--proxy-client-key-file=" + pki("front-proxy-client.key"),
			"--enable-aggregator-routing=true", "--profiling=false",
		}},
		{name: "kube-controller-manager", bin: l.bin("kube-controller-manager"), args: []string{
			"--kubeconfig=" + l.kubeconfig("controller-manager"),
			"--authentication-kubeconfig=" + l.kubeconfig("controller-manager"),
			"--authorization-kubeconfig=" + l.kubeconfig("controller-manager"),
			"--bind-address=127.0.0.1", "--secure-port=10257", "--leader-elect=false",
			"--cluster-signing-cert-file=" + pki("ca.crt"), "--cluster-signing-key-file=" + pki("ca.key"),
			"--root-ca-file=" + pki("ca.crt"), "--service-account-private-key-file=" + pki("sa.key"),
			"--use-service-account-credentials=true", "--service-cluster-ip-range=" + serviceCIDR,
			"--allocate-node-cidrs=false", "--controllers=*,bootstrapsigner,tokencleaner",
		}},
		{name: "kube-scheduler", bin: l.bin("kube-scheduler"), args: []string{
			"--kubeconfig=" + l.kubeconfig("scheduler"),
			"--authentication-kubeconfig=" + l.kubeconfig("scheduler"),
			"--authorization-kubeconfig=" + l.kubeconfig("scheduler"),
			"--bind-address=127.0.0.1", "--secure-port=10259", "--leader-elect=false",
		}},
	}
}

// workerDaemons run pods and Services, in start order.
func workerDaemons(l layout) []daemon {
	return []daemon{
		{name: "containerd", bin: "/usr/bin/containerd", args: []string{"--config=" + l.path("containerd.toml")}},
		{name: "kubelet", bin: l.bin("kubelet"), args: []string{
			"--config=" + l.path("kubelet.yaml"), "--kubeconfig=" + l.kubeconfig("kubelet"),
			"--root-dir=" + l.path("kubelet"), "--hostname-override=" + nodeName, "--node-ip=" + nodeIP,
		}},
		{name: "kube-proxy", bin: l.bin("kube-proxy"), args: []string{"--config=" + l.path("kube-proxy.yaml")}},
	}
}

func etcdURL() string { return "http://127.0.0.1:" + strconv.Itoa(etcdPort) }

// apiserverReady asks the API server's readyz as the admin.
func apiserverReady(l layout) func() error {
	return func() error {
		cert, err := tls.LoadX509KeyPair(l.pki("admin.crt"), l.pki("admin.key"))
		if err != nil {
			return err
		}
		caPEM, err := os.ReadFile(l.pki("ca.crt"))
		if err != nil {
			return err
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(caPEM)
		client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS12}}}
		resp, err := client.Get(fmt.Sprintf("https://%s:%d/readyz", nodeIP, apiserverPort))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("readyz: %s", resp.Status)
		}
		return nil
	}
}

func httpOK(url string) func() error {
	return func() error {
		resp, err := (&http.Client{Timeout: 2 * time.Second}).Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", url, resp.Status)
		}
		return nil
	}
}

func socketUp(path string) func() error {
	return func() error {
		c, err := net.DialTimeout("unix", path, time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	}
}
