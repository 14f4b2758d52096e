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

// Package tlsprofile turns a TLS security profile, as OpenShift's APIServer
// configuration names one (spec.tlsSecurityProfile: Old, Intermediate, Modern or
// Custom), into the settings of a Go TLS server, and keeps a server's settings
// current when the profile changes, without a restart.
package tlsprofile

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"
)

// The profile types, spelled as OpenShift's config.openshift.io/v1 TLSProfileType.
const (
	Old          = "Old"
	Intermediate = "Intermediate"
	Modern       = "Modern"
	Custom       = "Custom"
)

// Types are the profile types, in order of strictness.
var Types = []string{Old, Intermediate, Modern, Custom}

// Spec is a TLS security profile as OpenShift writes it: a type and, for Custom only,
// the ciphers (OpenSSL or IANA names) and the lowest protocol version.
type Spec struct {
	Type   string      `json:"type,omitempty"`
	Custom *CustomSpec `json:"custom,omitempty"`
}

// CustomSpec is a Custom profile's parameters.
type CustomSpec struct {
	Ciphers       []string `json:"ciphers,omitempty"`
	MinTLSVersion string   `json:"minTLSVersion,omitempty"`
}

// predefined are OpenShift's profiles (config/v1 TLSProfiles, after Mozilla's Server
// Side TLS recommendations). They name ciphers as OpenSSL does; those Go does not
// implement (the DHE ones) are left out when resolved, as the API allows.
var predefined = map[string]CustomSpec{
	Old: {MinTLSVersion: "VersionTLS10", Ciphers: []string{
		"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
		"ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
		"ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
		"ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
		"DHE-RSA-AES128-GCM-SHA256", "DHE-RSA-AES256-GCM-SHA384", "DHE-RSA-CHACHA20-POLY1305",
		"ECDHE-ECDSA-AES128-SHA256", "ECDHE-RSA-AES128-SHA256",
		"ECDHE-ECDSA-AES128-SHA", "ECDHE-RSA-AES128-SHA",
		"ECDHE-ECDSA-AES256-SHA384", "ECDHE-RSA-AES256-SHA384",
		"ECDHE-ECDSA-AES256-SHA", "ECDHE-RSA-AES256-SHA",
		"DHE-RSA-AES128-SHA256", "DHE-RSA-AES256-SHA256",
		"AES128-GCM-SHA256", "AES256-GCM-SHA384", "AES128-SHA256", "AES256-SHA256",
		"AES128-SHA", "AES256-SHA", "DES-CBC3-SHA",
	}},
	Intermediate: {MinTLSVersion: "VersionTLS12", Ciphers: []string{
		"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
		"ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
		"ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
		"ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
		"DHE-RSA-AES128-GCM-SHA256", "DHE-RSA-AES256-GCM-SHA384",
	}},
	Modern: {MinTLSVersion: "VersionTLS13", Ciphers: []string{
		"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
	}},
}

// versions are the protocol versions a profile may name.
var versions = map[string]uint16{
	"VersionTLS10": tls.VersionTLS10,
	"VersionTLS11": tls.VersionTLS11,
	"VersionTLS12": tls.VersionTLS12,
	"VersionTLS13": tls.VersionTLS13,
}

// Settings are what a profile asks of a Go TLS server. Go does not let TLS 1.3's
// suites be chosen (all three are always on), so CipherSuites lists the TLS 1.0-1.2
// suites only; it is empty when MinVersion is TLS 1.3.
type Settings struct {
	// Profile says where the settings come from, for logs: "Intermediate",
	// "Custom", "Intermediate (the default)".
	Profile      string
	MinVersion   uint16
	CipherSuites []uint16
}

// Apply sets the protocol floor and the suites on a server's configuration.
func (s Settings) Apply(c *tls.Config) {
	c.MinVersion = s.MinVersion
	c.CipherSuites = slices.Clone(s.CipherSuites)
}

// Equal says whether two settings make the same server.
func (s Settings) Equal(o Settings) bool {
	return s.MinVersion == o.MinVersion && slices.Equal(s.CipherSuites, o.CipherSuites)
}

// Default is Intermediate, OpenShift's default and Mozilla's recommendation.
func Default() Settings {
	s, _ := Resolve(Spec{Type: Intermediate})
	s.Profile = Intermediate + " (the default)"
	return s
}

// Resolve turns a profile into settings. A missing or empty type is Intermediate, as
// on OpenShift. A Custom profile needs a known minTLSVersion and, below TLS 1.3, at
// least one cipher Go implements; unknown cipher names are left out.
func Resolve(spec Spec) (Settings, error) {
	params, name := CustomSpec{}, spec.Type
	switch spec.Type {
	case "":
		params, name = predefined[Intermediate], Intermediate
	case Old, Intermediate, Modern:
		params = predefined[spec.Type]
	case Custom:
		if spec.Custom == nil {
			return Settings{}, fmt.Errorf("TLS profile Custom without its custom parameters")
		}
		params = *spec.Custom
	default:
		return Settings{}, fmt.Errorf("unknown TLS profile type %q (want one of %s)", spec.Type, strings.Join(Types, ", "))
	}
	minVersion, ok := versions[params.MinTLSVersion]
	if !ok {
		return Settings{}, fmt.Errorf("TLS profile %s: unknown minTLSVersion %q (want VersionTLS10 to VersionTLS13)", name, params.MinTLSVersion)
	}
	s := Settings{Profile: name, MinVersion: minVersion}
	if minVersion == tls.VersionTLS13 {
		return s, nil
	}
	s.CipherSuites = cipherSuites(params.Ciphers)
	if len(s.CipherSuites) == 0 {
		return Settings{}, fmt.Errorf("TLS profile %s: none of the ciphers %v is a TLS 1.2 cipher this build implements", name, params.Ciphers)
	}
	return s, nil
}
