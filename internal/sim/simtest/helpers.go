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
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/ec2-operator/ec2-operator/internal/cloud/sdkhttp"
)

// This file holds the small helpers that the tests of several packages used to copy:
// a test-scoped context, polling, a free port, error codes, sorted map keys, and real
// SDK clients pointed at an emulator. It imports no emulator, so that the emulators'
// own in-package tests can use it without an import cycle.

// CtxTimeout is the deadline of Ctx: generous, so that only a hung call hits it.
const CtxTimeout = 10 * time.Second

// Ctx returns a context that ends CtxTimeout from now or when the test ends.
func Ctx(t testing.TB) context.Context {
	return CtxWithin(t, CtxTimeout)
}

// CtxWithin returns a context that ends after d or when the test ends.
func CtxWithin(t testing.TB, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}

// Eventually calls cond every interval until it returns "" and fails the test once
// timeout has passed. cond returns what is still missing, which the failure shows.
func Eventually(t testing.TB, timeout, interval time.Duration, cond func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		missing := cond()
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s: %s", timeout, missing)
		}
		time.Sleep(interval)
	}
}

// FreeAddr returns a loopback address with a port that was free a moment ago.
// Another process could take it before the caller binds it; a server that then
// fails to start must say so.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// ErrCode returns the service error code an SDK error carries, or "".
func ErrCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// ErrMessage returns the service error message an SDK error carries, or "".
func ErrMessage(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorMessage()
	}
	return ""
}

// WantCode fails the test unless err carries the service error code want ("" for
// success or an error without a code), and returns the service error, if any, so
// that the caller can check its message.
func WantCode(t testing.TB, err error, want string) smithy.APIError {
	t.Helper()
	if got := ErrCode(err); got != want {
		if err == nil {
			t.Fatalf("call succeeded, want error %s", want)
		}
		t.Fatalf("error code = %q (err %v), want %q", got, err, want)
	}
	var ae smithy.APIError
	errors.As(err, &ae)
	return ae
}

// SortedKeys returns the keys of m in order, for stable output.
func SortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// Serve serves h on a loopback httptest server that closes when the test ends, and
// returns its URL.
func Serve(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// FastRetryer is the SDK's standard retryer with a fixed 5 ms backoff, so that tests
// of throttling and transient faults stay quick.
func FastRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 5 * time.Millisecond, nil })
	})
}

// SDKConfig is an SDK configuration for an emulator: the region, static credentials
// and FastRetryer. The emulators accept any signature, so any key does; STS knows only
// the keys it was given. Set Retryer to nil for the SDK's default retries.
func SDKConfig(region, keyID, secret string) aws.Config {
	return aws.Config{
		Region:      region,
		Credentials: credentials.NewStaticCredentialsProvider(keyID, secret, ""),
		Retryer:     FastRetryer,
	}
}

// EC2Client returns a real SDK EC2 client with cfg that sends to url. The SDK clients
// here send whole request bodies (sdkhttp.WholeBodies), as the operator's do, so that
// an emulator answering on loopback never loses an answer to the SDK closing the
// request body early.
func EC2Client(cfg aws.Config, url string) *ec2.Client {
	return ec2.NewFromConfig(cfg, func(o *ec2.Options) {
		o.BaseEndpoint = aws.String(url)
		o.HTTPClient = sdkhttp.WholeBodies(o.HTTPClient)
	})
}

// SQSClient returns a real SDK SQS client with cfg that sends to url.
func SQSClient(cfg aws.Config, url string) *sqs.Client {
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) {
		o.BaseEndpoint = aws.String(url)
		o.HTTPClient = sdkhttp.WholeBodies(o.HTTPClient)
	})
}

// STSClient returns a real SDK STS client with cfg that sends to url.
func STSClient(cfg aws.Config, url string) *sts.Client {
	return sts.NewFromConfig(cfg, func(o *sts.Options) {
		o.BaseEndpoint = aws.String(url)
		o.HTTPClient = sdkhttp.WholeBodies(o.HTTPClient)
	})
}
