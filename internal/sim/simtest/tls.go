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

package simtest

import (
	"crypto/tls"
	"net"
	"time"
)

// TLSHandshake says whether a client limited to one TLS version (and, below TLS 1.3,
// to the given suites; none: Go's defaults) completes a handshake with the server at
// addr within ten seconds. Only the negotiation is tested: the server's certificate is
// not verified.
func TLSHandshake(addr string, version uint16, suites ...uint16) error {
	dialer := &tls.Dialer{
		NetDialer: &net.Dialer{Timeout: 10 * time.Second},
		Config: &tls.Config{
			InsecureSkipVerify: true, //nolint:gosec // only the negotiation is tested, not the certificate
			MinVersion:         version, MaxVersion: version, CipherSuites: suites,
		},
	}
	conn, err := dialer.Dial("tcp", addr)
	if err == nil {
		_ = conn.Close()
	}
	return err
}
