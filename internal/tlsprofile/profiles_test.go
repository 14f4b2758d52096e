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
	"slices"
	"strings"
	"testing"
)

func TestResolveGivesEachProfilesFloorAndTheSuitesGoImplements(t *testing.T) {
	intermediate := []uint16{
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
		tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	}
	tests := []struct {
		name    string
		spec    Spec
		min     uint16
		suites  []uint16
		wantErr string
	}{
		{name: "no type is Intermediate, as on OpenShift", spec: Spec{}, min: tls.VersionTLS12, suites: intermediate},
		{name: "Intermediate leaves out DHE, which Go lacks", spec: Spec{Type: Intermediate}, min: tls.VersionTLS12, suites: intermediate},
		{name: "Modern is TLS 1.3 only", spec: Spec{Type: Modern}, min: tls.VersionTLS13},
		{name: "Custom with OpenSSL and IANA names, TLS 1.3 names dropped, repeats once", spec: Spec{Type: Custom, Custom: &CustomSpec{
			MinTLSVersion: "VersionTLS12",
			Ciphers:       []string{"TLS_AES_128_GCM_SHA256", "ECDHE-RSA-AES256-GCM-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES256-GCM-SHA384", "DHE-RSA-AES128-GCM-SHA256"},
		}}, min: tls.VersionTLS12, suites: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}},
		{name: "Custom at TLS 1.3 needs no TLS 1.2 cipher", spec: Spec{Type: Custom, Custom: &CustomSpec{MinTLSVersion: "VersionTLS13"}}, min: tls.VersionTLS13},
		{name: "Custom without parameters", spec: Spec{Type: Custom}, wantErr: "without its custom parameters"},
		{name: "Custom with no cipher Go serves", spec: Spec{Type: Custom, Custom: &CustomSpec{MinTLSVersion: "VersionTLS12", Ciphers: []string{"DHE-RSA-AES128-GCM-SHA256"}}}, wantErr: "none of the ciphers"},
		{name: "Custom with an unknown version", spec: Spec{Type: Custom, Custom: &CustomSpec{MinTLSVersion: "TLSv1.2", Ciphers: []string{"AES128-SHA"}}}, wantErr: "unknown minTLSVersion"},
		{name: "an unknown type", spec: Spec{Type: "Paranoid"}, wantErr: "unknown TLS profile type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.MinVersion != tt.min || !slices.Equal(got.CipherSuites, tt.suites) {
				t.Errorf("min %s suites %v; want %s %v", tls.VersionName(got.MinVersion), got.CipherSuites, tls.VersionName(tt.min), tt.suites)
			}
		})
	}
}

// Old reaches down to TLS 1.0 and keeps every suite of OpenShift's list that Go has,
// the CBC and RSA key exchange ones included. Only what Go does not implement is
// dropped: DHE, the SHA-384 and SHA-256 CBC suites below, and TLS 1.3's names (always
// on in Go).
func TestOldKeepsEveryCipherGoImplements(t *testing.T) {
	notInGo := []string{
		"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
		"DHE-RSA-AES128-GCM-SHA256", "DHE-RSA-AES256-GCM-SHA384", "DHE-RSA-CHACHA20-POLY1305",
		"DHE-RSA-AES128-SHA256", "DHE-RSA-AES256-SHA256",
		"ECDHE-ECDSA-AES256-SHA384", "ECDHE-RSA-AES256-SHA384", "AES256-SHA256",
	}
	got, err := Resolve(Spec{Type: Old})
	if err != nil {
		t.Fatal(err)
	}
	if got.MinVersion != tls.VersionTLS10 {
		t.Errorf("min %s, want TLS 1.0", tls.VersionName(got.MinVersion))
	}
	var missing []string
	for _, name := range predefined[Old].Ciphers {
		id, known := openSSLNames[name]
		switch {
		case known && !slices.Contains(got.CipherSuites, id):
			missing = append(missing, name)
		case !known && !slices.Contains(notInGo, name):
			missing = append(missing, name+" (no mapping)")
		}
	}
	if len(missing) > 0 {
		t.Errorf("Old lacks %v", missing)
	}
	if want := len(predefined[Old].Ciphers) - len(notInGo); len(got.CipherSuites) != want {
		t.Errorf("%d suites, want %d", len(got.CipherSuites), want)
	}
}
