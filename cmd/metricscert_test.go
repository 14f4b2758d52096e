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

package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestMetricsSwitchToTheMountedCertificateWhenItAppears(t *testing.T) {
	dir := t.TempDir()
	m, err := newMetricsCert(dir, "tls.crt", "tls.key")
	if err != nil {
		t.Fatal(err)
	}
	m.poll = 20 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()

	before, err := m.GetCertificate(nil)
	if err != nil || before != m.fallback {
		t.Fatalf("before the Secret exists, want the self-signed certificate, got %v %v", before, err)
	}

	// The service CA writes the Secret after the pod started.
	issued, err := selfSignedCertificate()
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(issued.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "tls.key"), "PRIVATE KEY", keyDER)
	writePEM(t, filepath.Join(dir, "tls.crt"), "CERTIFICATE", issued.Certificate[0])

	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := m.GetCertificate(nil)
		if err == nil && got != nil && bytes.Equal(got.Certificate[0], issued.Certificate[0]) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the mounted certificate was never served")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Start: %v", err)
	}
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
