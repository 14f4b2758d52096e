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

package tlsprofile

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// serve starts an HTTPS server configured as the metrics server is: the server's own
// options first (here a certificate and HTTP/1.1 only), Current's option last.
func serve(t *testing.T, current *Current) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	srv.StartTLS() // makes the test certificate
	cert := srv.TLS.Certificates[0]
	srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{NextProtos: []string{"http/1.1"}}
	cfg.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &cert, nil }
	current.ServerOption()(cfg)
	// The refused handshakes are the point of the tests: they need no log line.
	s := &http.Server{Handler: srv.Config.Handler, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = s.Serve(tls.NewListener(l, cfg)) }()
	t.Cleanup(func() { _ = s.Close() })
	return l.Addr().String()
}

func mustResolve(t *testing.T, spec Spec) Settings {
	t.Helper()
	s, err := Resolve(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A change of the settings reaches the next handshake of a server already serving,
// with the certificate and protocols the server's other options set.
func TestAServerFollowsTheCurrentSettingsAtEachHandshake(t *testing.T) {
	current := NewCurrent(mustResolve(t, Spec{Type: Modern}))
	addr := serve(t, current)

	if err := simtest.TLSHandshake(addr, tls.VersionTLS12); err == nil {
		t.Error("Modern: a TLS 1.2 client was served")
	}
	if err := simtest.TLSHandshake(addr, tls.VersionTLS13); err != nil {
		t.Errorf("Modern: a TLS 1.3 client was refused: %v", err)
	}

	if !current.Set(mustResolve(t, Spec{Type: Intermediate})) {
		t.Error("Set from Modern to Intermediate reported no change")
	}
	if err := simtest.TLSHandshake(addr, tls.VersionTLS12); err != nil {
		t.Errorf("Intermediate: a TLS 1.2 client was refused: %v", err)
	}
	if err := simtest.TLSHandshake(addr, tls.VersionTLS11); err == nil {
		t.Error("Intermediate: a TLS 1.1 client was served")
	}
	if err := simtest.TLSHandshake(addr, tls.VersionTLS12, tls.TLS_RSA_WITH_AES_128_CBC_SHA); err == nil {
		t.Error("Intermediate: a TLS 1.2 client offering only a CBC suite was served")
	}

	current.Set(mustResolve(t, Spec{Type: Custom, Custom: &CustomSpec{MinTLSVersion: "VersionTLS12", Ciphers: []string{"ECDHE-RSA-AES256-GCM-SHA384"}}}))
	if err := simtest.TLSHandshake(addr, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384); err != nil {
		t.Errorf("Custom: a client offering its one cipher was refused: %v", err)
	}
	if err := simtest.TLSHandshake(addr, tls.VersionTLS12, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256); err == nil {
		t.Error("Custom: a client offering only another cipher was served")
	}
	if current.Set(current.Get()) {
		t.Error("Set with the same settings reported a change")
	}
}

// An APIServer object the follower cannot use leaves the settings in force: a typo in
// the cluster's profile must not weaken, or stop, the operator's servers.
func TestTheFollowerKeepsTheSettingsInForceOnAnInvalidProfile(t *testing.T) {
	current := NewCurrent(mustResolve(t, Spec{Type: Modern}))
	f := &Follower{Current: current, Log: logr.Discard()}
	apiserver := func(profile map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"tlsSecurityProfile": profile}}}
	}
	f.observe(apiserver(map[string]any{"type": Custom}))
	f.observe(apiserver(map[string]any{"type": "Custom", "custom": map[string]any{"minTLSVersion": "VersionTLS12", "ciphers": []any{"DHE-RSA-AES128-GCM-SHA256"}}}))
	f.observe(apiserver(map[string]any{"type": int64(12)}))
	if got := current.Get(); got.MinVersion != tls.VersionTLS13 {
		t.Errorf("after invalid profiles the floor is %s, want Modern's TLS 1.3 kept", tls.VersionName(got.MinVersion))
	}
	f.observe(apiserver(map[string]any{"type": Old, "old": map[string]any{}}))
	if got := current.Get(); got.MinVersion != tls.VersionTLS10 {
		t.Errorf("after Old the floor is %s", tls.VersionName(got.MinVersion))
	}
	// No APIServer object, or one without a profile: OpenShift's default, Intermediate.
	f.observe(nil)
	if got := current.Get(); got.MinVersion != tls.VersionTLS12 || len(got.CipherSuites) != 6 {
		t.Errorf("without an APIServer: %s with %d suites, want Intermediate", tls.VersionName(got.MinVersion), len(got.CipherSuites))
	}
}
