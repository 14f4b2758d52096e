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

package images

import (
	"bytes"
	"encoding/pem"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// CACertificatesPath is where the release images keep their CA bundle: the first file
// Go's crypto/x509 reads on Linux, and where Debian, Ubuntu and distroless keep it.
const CACertificatesPath = "/etc/ssl/certs/ca-certificates.crt"

// CACertificates returns Mozilla's root store (the NSS trust store as packaged in the
// golang.org/x/crypto/x509roots/fallback module that go.mod pins) as a PEM bundle. A
// pinned module, not the build machine's own store, keeps the image reproducible on any
// machine. Roots that NSS trusts only with extra constraints (a distrust-after date)
// are left out, because a PEM file cannot carry those constraints and a plain trust
// anchor would trust more than NSS does.
func CACertificates() []byte {
	var buf bytes.Buffer
	for root := range bundle.Roots() {
		if root.Constraint != nil {
			continue
		}
		_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: root.Certificate})
	}
	return buf.Bytes()
}
