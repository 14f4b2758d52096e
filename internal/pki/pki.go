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

// Package pki makes every X.509 certificate the project needs: the manager's
// self-signed metrics certificate until a real one is mounted, and the certificate
// authorities and certificates of the development cluster (cmd/devcluster), its service
// CA stand-in and the tests. One place decides the key type, serial numbers, validity
// and key usages, so that no copy drifts from another.
//
// Keys are ECDSA P-256: approved in FIPS 140-3 mode (the binaries run with
// fips140=on), accepted by every TLS peer here, and cheap to generate in tests.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// backdate makes certificates valid from a little before they are made, so that a
// verifier whose clock is behind the issuer's (a kubeconfig copied to another
// machine, a container started right after) still accepts them.
const backdate = time.Hour

// Request describes a certificate to make.
type Request struct {
	CommonName   string
	Organization []string
	DNSNames     []string
	IPAddresses  []net.IP
	// Server and Client are what the certificate authenticates (its extended key
	// usages): a TLS server, a TLS client, or both.
	Server, Client bool
	// ValidFor counts from now. An issued certificate never outlives its authority,
	// since it would not verify after the authority expires anyway.
	ValidFor time.Duration
}

// KeyPair is a certificate and its private key, parsed and as PEM.
type KeyPair struct {
	Cert    *x509.Certificate
	Key     *ecdsa.PrivateKey
	CertPEM []byte
	KeyPEM  []byte
}

// TLS returns the pair as crypto/tls takes it.
func (p *KeyPair) TLS() tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{p.Cert.Raw}, PrivateKey: p.Key, Leaf: p.Cert}
}

// Authority is a self-signed certificate authority that issues certificates.
type Authority struct {
	KeyPair
}

// NewAuthority makes a certificate authority named commonName.
func NewAuthority(commonName string, validFor time.Duration) (*Authority, error) {
	tmpl, err := template(Request{CommonName: commonName, ValidFor: validFor})
	if err != nil {
		return nil, err
	}
	tmpl.IsCA = true
	tmpl.BasicConstraintsValid = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	pair, err := sign(tmpl, nil)
	if err != nil {
		return nil, fmt.Errorf("making the certificate authority %q: %w", commonName, err)
	}
	return &Authority{KeyPair: *pair}, nil
}

// ParseAuthority reads an authority from its certificate and key in PEM. Only ECDSA
// keys are accepted: that is what NewAuthority makes and Issue signs with.
func ParseAuthority(certPEM, keyPEM []byte) (*Authority, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("the certificate authority's key is not an ECDSA key")
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, err
	}
	if !cert.IsCA {
		return nil, fmt.Errorf("%q is not a certificate authority", cert.Subject.CommonName)
	}
	return &Authority{KeyPair{Cert: cert, Key: key, CertPEM: CertPEM(cert.Raw), KeyPEM: keyPEM}}, nil
}

// Issue makes a certificate signed by the authority.
func (a *Authority) Issue(r Request) (*KeyPair, error) {
	tmpl, err := template(r)
	if err != nil {
		return nil, err
	}
	if tmpl.NotAfter.After(a.Cert.NotAfter) {
		tmpl.NotAfter = a.Cert.NotAfter
	}
	pair, err := sign(tmpl, a)
	if err != nil {
		return nil, fmt.Errorf("issuing a certificate for %q: %w", r.CommonName, err)
	}
	return pair, nil
}

// SelfSigned makes a certificate that signs itself, for a server that has nothing
// better yet: a client that verifies TLS refuses it, as it should.
func SelfSigned(r Request) (*KeyPair, error) {
	tmpl, err := template(r)
	if err != nil {
		return nil, err
	}
	pair, err := sign(tmpl, nil)
	if err != nil {
		return nil, fmt.Errorf("making a self-signed certificate for %q: %w", r.CommonName, err)
	}
	return pair, nil
}

// NewKey makes a private key of the kind every certificate here has.
func NewKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

// KeyPEM encodes a private key as SEC 1 PEM ("EC PRIVATE KEY"), the form kubelet,
// kube-apiserver and crypto/tls read.
func KeyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// CertPEM encodes a DER certificate as PEM.
func CertPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// template is the part of a certificate that does not depend on its issuer.
func template(r Request) (*x509.Certificate, error) {
	if r.ValidFor <= 0 {
		return nil, fmt.Errorf("certificate %q: validity %v is not positive", r.CommonName, r.ValidFor)
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: r.CommonName, Organization: r.Organization},
		DNSNames:     r.DNSNames,
		IPAddresses:  r.IPAddresses,
		NotBefore:    now.Add(-backdate),
		NotAfter:     now.Add(r.ValidFor),
		// An ECDSA key only signs (RFC 5480 section 3): no key encipherment.
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	if r.Server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if r.Client {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	return tmpl, nil
}

// sign makes a key for tmpl and signs the certificate with the issuer's key, or with
// its own when issuer is nil.
func sign(tmpl *x509.Certificate, issuer *Authority) (*KeyPair, error) {
	key, err := NewKey()
	if err != nil {
		return nil, err
	}
	parent, signer := tmpl, key
	if issuer != nil {
		parent, signer = issuer.Cert, issuer.Key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyPEM, err := KeyPEM(key)
	if err != nil {
		return nil, err
	}
	return &KeyPair{Cert: cert, Key: key, CertPEM: CertPEM(der), KeyPEM: keyPEM}, nil
}

// serialNumber is a random positive number of at most 128 bits: unique without
// coordination, and within RFC 5280's 20 octets.
func serialNumber() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("drawing a certificate serial number: %w", err)
	}
	return n.Add(n, big.NewInt(1)), nil
}
