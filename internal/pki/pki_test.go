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

package pki

import (
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"strings"
	"testing"
	"time"
)

func TestIssuedCertificatesVerifyForTheirNamesAndUsagesOnly(t *testing.T) {
	ca, err := NewAuthority("test-ca", 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	server, err := ca.Issue(Request{CommonName: "svc", DNSNames: []string{"svc.ns.svc"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, Server: true, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	client, err := ca.Issue(Request{CommonName: "system:node:n", Organization: []string{"system:nodes"},
		Client: true, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	serverAuth := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	clientAuth := []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	for _, tc := range []struct {
		name    string
		cert    *x509.Certificate
		host    string
		usages  []x509.ExtKeyUsage
		wantErr bool
	}{
		{"server by DNS name", server.Cert, "svc.ns.svc", serverAuth, false},
		{"server by IP", server.Cert, "127.0.0.1", serverAuth, false},
		{"server for another name", server.Cert, "other.ns.svc", serverAuth, true},
		{"server as a client", server.Cert, "", clientAuth, true},
		{"client", client.Cert, "", clientAuth, false},
		{"client as a server", client.Cert, "", serverAuth, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.cert.Verify(x509.VerifyOptions{DNSName: tc.host, Roots: roots, KeyUsages: tc.usages})
			if (err != nil) != tc.wantErr {
				t.Fatalf("Verify: %v, want error %v", err, tc.wantErr)
			}
		})
	}
	if got := client.Cert.Subject.Organization; len(got) != 1 || got[0] != "system:nodes" {
		t.Errorf("client organization %v, want [system:nodes] (Kubernetes reads groups from it)", got)
	}
	if server.Cert.SerialNumber.Cmp(client.Cert.SerialNumber) == 0 {
		t.Error("two certificates of one authority share a serial number")
	}
}

func TestAnIssuedCertificateNeverOutlivesItsAuthority(t *testing.T) {
	ca, err := NewAuthority("short-ca", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(Request{CommonName: "long", Server: true, ValidFor: 365 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if !leaf.Cert.NotAfter.Equal(ca.Cert.NotAfter) {
		t.Errorf("leaf expires %v, authority %v", leaf.Cert.NotAfter, ca.Cert.NotAfter)
	}
	if !leaf.Cert.NotBefore.Before(time.Now()) {
		t.Errorf("leaf valid only from %v: a verifier whose clock is behind would refuse it", leaf.Cert.NotBefore)
	}
	if _, err := ca.Issue(Request{CommonName: "none", ValidFor: 0}); err == nil {
		t.Error("a certificate with no validity was issued")
	}
}

func TestAuthorityRoundTripsThroughPEMAndRefusesWhatItCannotSignWith(t *testing.T) {
	ca, err := NewAuthority("round-trip", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseAuthority(ca.CertPEM, ca.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := again.Issue(Request{CommonName: "x", Server: true, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := leaf.Cert.CheckSignatureFrom(ca.Cert); err != nil {
		t.Errorf("a certificate issued by the parsed authority does not verify against the original: %v", err)
	}

	notCA, err := SelfSigned(Request{CommonName: "leaf", Server: true, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseAuthority(notCA.CertPEM, notCA.KeyPEM); err == nil || !strings.Contains(err.Error(), "not a certificate authority") {
		t.Errorf("a leaf was taken as an authority: %v", err)
	}
	// An Ed25519 authority (cheap to make; RSA key generation takes seconds in FIPS mode).
	pub, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := template(Request{CommonName: "ed25519-ca", ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = true, true, x509.KeyUsageCertSign
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, edKey)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(edKey)
	if err != nil {
		t.Fatal(err)
	}
	edPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
	if _, err := ParseAuthority(CertPEM(der), edPEM); err == nil || !strings.Contains(err.Error(), "not an ECDSA key") {
		t.Errorf("an Ed25519 authority was accepted: %v", err)
	}
}

// A TLS handshake is the use every certificate here is for: a client that trusts the
// authority connects to a server holding an issued certificate, and a client that
// trusts nothing refuses a self-signed one.
func TestHandshakesSucceedWithTheAuthorityAndFailWithASelfSignedCertificate(t *testing.T) {
	ca, err := NewAuthority("handshake-ca", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	issued, err := ca.Issue(Request{CommonName: "localhost", DNSNames: []string{"localhost"}, Server: true, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	self, err := SelfSigned(Request{CommonName: "localhost", DNSNames: []string{"localhost"}, Server: true, ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	if err := handshake(t, issued.TLS(), roots); err != nil {
		t.Errorf("handshake with the issued certificate: %v", err)
	}
	if err := handshake(t, self.TLS(), roots); err == nil {
		t.Error("a client that trusts only the authority accepted a self-signed certificate")
	}
}

// handshake connects a client that trusts roots to a TLS server on a loopback port
// that holds cert, and returns the client's verdict.
func handshake(t *testing.T, cert tls.Certificate, roots *x509.CertPool) error {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		_ = conn.(*tls.Conn).Handshake()
	}()
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	conn, err := tls.DialWithDialer(dialer, "tcp", ln.Addr().String(), &tls.Config{ServerName: "localhost", RootCAs: roots})
	if err == nil {
		conn.Close()
	}
	return err
}

func TestKeysAreP256(t *testing.T) {
	key, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if key.Curve != elliptic.P256() {
		t.Errorf("curve %s, want P-256", key.Curve.Params().Name)
	}
	data, err := KeyPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	parsed, err := x509.ParseECPrivateKey(block.Bytes)
	if err != nil || !parsed.Equal(key) {
		t.Errorf("KeyPEM does not round-trip: %v", err)
	}
}
