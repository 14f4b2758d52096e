package controller

import (
	"io"
	"os"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// testLogger discards the operator's logs unless TEST_LOG is set, so that a failing
// test's output shows the failure rather than thousands of reconcile lines.
func testLogger() logr.Logger {
	var w io.Writer = io.Discard
	if os.Getenv("TEST_LOG") != "" {
		w = os.Stderr
	}
	return zap.New(zap.WriteTo(w), zap.UseDevMode(true))
}
