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

//go:debug fips140=off

package main

import (
	"crypto/fips140"
	"testing"
)

// This test process runs in Go's standard mode, not FIPS 140-3 mode, although it is
// compiled with the images' Go Cryptographic Module (the Makefile's GOFIPS140, for one
// shared compilation): its tests probe TLS servers with versions and suites that FIPS
// mode would not even offer, and a refusal must be the server's, never the client's.
// The //go:debug line above sets that for this package's test binary only.
func TestTheTestProcessIsNotInFIPSMode(t *testing.T) {
	if fips140.Enabled() {
		t.Fatal("the test process runs in FIPS 140-3 mode: a TLS refusal it sees could be its own")
	}
}
