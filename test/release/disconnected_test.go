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
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// TestOperatorImageWorksDisconnected runs the manager from the operator image as on a
// disconnected cluster: in a network namespace with no default route and no DNS
// server, where the only reachable addresses are the API server and the EC2 and STS
// endpoints given through AWS_ENDPOINT_URL_EC2 and AWS_ENDPOINT_URL_STS, as VPC
// interface endpoints provide them. The manager must need nothing else (no public AWS
// endpoint, no instance metadata, no registry, no name lookup): an EC2Instance becomes
// Ready, and the namespace is shown to reach nothing else.
func TestOperatorImageWorksDisconnected(t *testing.T) {
	n := newIsolatedNetwork(t)
	apiURL, err := url.Parse(env.Kube.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	api, apiConns := n.expose(t, apiURL.Host)
	ec2, ec2Conns := n.expose(t, hostOf(t, env.SimURL))
	sts, stsConns := n.expose(t, hostOf(t, env.STSURL))

	// Nothing else answers from inside: not the internet, not EC2's instance metadata
	// service, not the host's own loopback services.
	for _, addr := range []string{"1.1.1.1:443", "169.254.169.254:80", apiURL.Host} {
		if err := n.dialFromInside(addr); err == nil {
			t.Fatalf("the isolated namespace reaches %s; the test would prove nothing", addr)
		}
	}
	if err := n.dialFromInside(api); err != nil {
		t.Fatalf("the isolated namespace does not reach the API server at %s: %v", api, err)
	}

	// The kubeconfig names the API server at its address inside the namespace,
	// verified under its certificate's name, as a pod's in-cluster config does.
	kc, err := clientcmd.LoadFromFile(env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		c.TLSServerName = apiURL.Hostname()
		c.Server = "https://" + api
	}
	kubeconfig, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}

	img, cf := hostImage(t, "operator")
	runImageManager(t, img, cf, imageRun{
		name:       "manager-disconnected",
		kubeconfig: kubeconfig,
		netns:      n.path,
		// The instance metadata service is not turned off: with credentials given the
		// SDK must not need it.
		env: []string{"AWS_ENDPOINT_URL_EC2=http://" + ec2, "AWS_ENDPOINT_URL_STS=http://" + sts, "AWS_EC2_METADATA_DISABLED=false"},
	}, func(c *metav1.Condition) string {
		if c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Sprintf("Ready %+v, want True", c)
		}
		return ""
	})
	t.Logf("connections from the isolated manager: API server %d, EC2 %d, STS %d", apiConns.Load(), ec2Conns.Load(), stsConns.Load())
	if ec2Conns.Load() == 0 || stsConns.Load() == 0 || apiConns.Load() == 0 {
		t.Errorf("the manager did not use every endpoint it was given (API server %d, EC2 %d, STS %d connections)", apiConns.Load(), ec2Conns.Load(), stsConns.Load())
	}
}

// hostOf returns the host:port of a URL.
func hostOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		t.Fatalf("endpoint %q: %v", raw, err)
	}
	if _, _, err := net.SplitHostPort(u.Host); err != nil {
		t.Fatalf("endpoint %q has no port", raw)
	}
	return strings.TrimSpace(u.Host)
}
