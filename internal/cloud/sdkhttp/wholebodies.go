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

// Package sdkhttp adapts the HTTP client the AWS SDK uses.
package sdkhttp

import (
	"bytes"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// WholeBodies returns an HTTP client that hands the transport each request body as
// an in-memory reader.
//
// Why: smithy-go closes a request's body as soon as the response headers arrive,
// and its closed body answers a further read through WriteTo with io.EOF as an
// error. net/http, after sending a body of known length, reads once more to make sure
// nothing is left (transferWriter.writeBody); a server that answers quickly (an
// emulator on loopback, or any fast endpoint) lets that read meet the closed body,
// the transport takes the error for a failed write and closes the connection while
// the response body is still being read. The SDK then reports "use of closed
// network connection" for a call EC2 carried out, and retries it: harmless for
// calls with a client token, but AllocateAddress takes none, so its retry allocates
// a second address. An in-memory body is one net/http recognises and reads itself,
// so nothing smithy-go closes is read after the answer (aws-sdk-go-v2 issues #1825
// and #2737 describe the symptom).
//
// The bodies of the query and JSON protocols the operator uses are small (at most
// the instance's user data, 16 KB before base64), so reading them first costs
// nothing that matters.
func WholeBodies(c aws.HTTPClient) aws.HTTPClient {
	if c == nil {
		c = http.DefaultClient
	}
	return wholeBodies{next: c}
}

type wholeBodies struct {
	next aws.HTTPClient
}

// Do reads the request's body into memory and sends the request with it.
func (c wholeBodies) Do(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return c.next.Do(r)
	}
	data, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	r.ContentLength = int64(len(data))
	return c.next.Do(r)
}
