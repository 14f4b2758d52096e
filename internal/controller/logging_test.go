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

package controller

import (
	"bytes"
	"io"
	"os"
	"sync"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// testLogger discards the operator's logs unless TEST_LOG is set, so that a failing
// test's output shows the failure rather than thousands of reconcile lines. Every log
// line is also kept in operatorLogs, for tests that check what is never logged.
func testLogger() logr.Logger {
	var w io.Writer = io.Discard
	if os.Getenv("TEST_LOG") != "" {
		w = os.Stderr
	}
	return zap.New(zap.WriteTo(io.MultiWriter(w, &operatorLogs)), zap.UseDevMode(true))
}

// operatorLogs holds everything the operator logged in this test binary.
var operatorLogs logBuffer

// logBuffer is a bytes.Buffer safe for the concurrent writers of parallel tests.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// contains reports whether s was ever logged.
func (b *logBuffer) contains(s string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Contains(b.buf.Bytes(), []byte(s))
}
