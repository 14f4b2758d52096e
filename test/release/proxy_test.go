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

package release

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ec2-operator/ec2-operator/internal/sim/ec2sim"
	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// TestOperatorImageReachesEC2ThroughTheClusterProxyAndTheAPIServerDirectly runs the
// manager from the operator image as OLM runs it on a cluster with a cluster-wide
// proxy: HTTPS_PROXY, HTTP_PROXY and NO_PROXY in its environment (OLM copies them
// from the cluster Proxy object), EC2 at its real endpoint name reachable only
// through the proxy, which inspects TLS with a CA the cluster trusts (mounted from
// the trusted CA bundle), and the API server under a name NO_PROXY covers. An
// EC2Instance becomes Ready, the proxy saw the EC2 endpoint, and never the API server.
func TestOperatorImageReachesEC2ThroughTheClusterProxyAndTheAPIServerDirectly(t *testing.T) {
	const ec2Host = "ec2." + ec2sim.DefaultRegion + ".amazonaws.com"
	const apiHost = "api.cluster.test"
	caPEM, cert := testCA(t, ec2Host)
	srv := httptest.NewUnstartedServer(ec2sim.New(ec2sim.Config{}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	proxy := newConnectProxy(t, srv.Listener.Addr().String())

	// The API server under a name only /etc/hosts knows, verified as localhost (the
	// name its serving certificate has), so the Kubernetes client's only way there is
	// a direct connection.
	kc, err := clientcmd.LoadFromFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		u, err := url.Parse(c.Server)
		if err != nil {
			t.Fatal(err)
		}
		c.TLSServerName = u.Hostname()
		c.Server = "https://" + net.JoinHostPort(apiHost, u.Port())
	}
	kubeconfig, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}

	img, cf := hostImage(t, "operator")
	run := imageRun{
		name:       "manager-behind-proxy",
		kubeconfig: kubeconfig,
		files: map[string][]byte{
			filepath.Join(trustedCAMountPath(t), "ca-bundle.crt"): caPEM,
			"/etc/hosts": []byte(localHosts + "127.0.0.1\t" + apiHost + "\n"),
		},
		env: []string{
			"HTTPS_PROXY=http://" + proxy.addr,
			"HTTP_PROXY=http://" + proxy.addr,
			"NO_PROXY=" + apiHost + ",.cluster.local,.svc",
		},
	}
	runImageManager(t, img, cf, run, func(c *metav1.Condition) string {
		if c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Sprintf("Ready %+v, want True", c)
		}
		return ""
	})
	targets := proxy.targets()
	if len(targets) == 0 || targets[0] != ec2Host+":443" {
		t.Errorf("the proxy tunnelled %v, want only %s:443", targets, ec2Host)
	}
	for _, target := range targets {
		if strings.HasPrefix(target, apiHost) {
			t.Errorf("the Kubernetes client went through the proxy (%s) although NO_PROXY names the API server", target)
		}
	}
}

// connectProxy is an HTTP proxy that tunnels every CONNECT to one address, as a
// proxy in front of the internet does for the host asked for, and remembers the
// targets. It refuses plain HTTP requests.
type connectProxy struct {
	addr string
	mu   sync.Mutex
	seen map[string]bool
}

func newConnectProxy(t *testing.T, upstream string) *connectProxy {
	t.Helper()
	p := &connectProxy{seen: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen[r.Host] = true
		p.mu.Unlock()
		if r.Method != http.MethodConnect {
			http.Error(w, "this proxy only tunnels", http.StatusBadGateway)
			return
		}
		up, err := net.Dial("tcp", upstream)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		hj, ok := w.(http.Hijacker)
		if !ok {
			up.Close()
			http.Error(w, "no hijacking", http.StatusInternalServerError)
			return
		}
		conn, buf, err := hj.Hijack()
		if err != nil {
			up.Close()
			return
		}
		if _, err := conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
			conn.Close()
			up.Close()
			return
		}
		go func() {
			defer up.Close()
			defer conn.Close()
			_, _ = io.Copy(up, buf)
		}()
		go func() {
			defer up.Close()
			defer conn.Close()
			_, _ = io.Copy(conn, up)
		}()
	}))
	t.Cleanup(srv.Close)
	p.addr = srv.Listener.Addr().String()
	return p
}

// targets lists the hosts the proxy was asked for, sorted.
func (p *connectProxy) targets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return simtest.SortedKeys(p.seen)
}
