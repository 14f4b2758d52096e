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

package sdkhttp

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// gate holds the transport's write loop right after it sent a request body through
// the connection's ReadFrom (the path net/http takes for a body it does not know to be
// in memory), until the SDK has the response headers and has closed the request body:
// the ordering a fast server produces now and then, made certain.
type gate struct {
	once    sync.Once
	armed   chan struct{} // closed when a body was sent and the write loop waits
	release chan struct{} // closed to let the write loop go on
	closed  chan struct{} // closed when the transport closes the connection
}

func newGate() *gate {
	return &gate{armed: make(chan struct{}), release: make(chan struct{}), closed: make(chan struct{})}
}

type gatedConn struct {
	net.Conn
	g        *gate
	closeOne sync.Once
}

// ReadFrom sends the body, then waits for the response to have been taken.
func (c *gatedConn) ReadFrom(r io.Reader) (int64, error) {
	n, err := io.Copy(c.Conn, r)
	c.g.once.Do(func() {
		close(c.g.armed)
		select {
		case <-c.g.release:
		case <-time.After(5 * time.Second):
		}
	})
	return n, err
}

func (c *gatedConn) Close() error {
	c.closeOne.Do(func() { close(c.g.closed) })
	return c.Conn.Close()
}

// holdingBody lets the write loop go on when the SDK starts reading the response body
// (smithy-go has closed the request body by then), and waits a moment for what the
// write loop does next.
type holdingBody struct {
	io.ReadCloser
	g    *gate
	once sync.Once
}

func (b *holdingBody) Read(p []byte) (int, error) {
	b.once.Do(func() {
		select {
		case <-b.g.armed:
			close(b.g.release)
			select {
			case <-b.g.closed:
			case <-time.After(200 * time.Millisecond):
			}
		case <-time.After(200 * time.Millisecond):
			// The body went through the transport's buffer: nothing waits.
		}
	})
	return b.ReadCloser.Read(p)
}

type holdingClient struct {
	next aws.HTTPClient
	g    *gate
}

func (c holdingClient) Do(r *http.Request) (*http.Response, error) {
	resp, err := c.next.Do(r)
	if err == nil {
		resp.Body = &holdingBody{ReadCloser: resp.Body, g: c.g}
	}
	return resp, err
}

func describeRegions(t *testing.T, wrap func(aws.HTTPClient) aws.HTTPClient) error {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		w.Header().Set("Content-Type", "text/xml")
		// An answer larger than the transport's read buffer, so that reading it needs
		// the connection after the headers (as a RunInstances answer does).
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><DescribeRegionsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">`+
			`<requestId>r-1</requestId><regionInfo>`+strings.Repeat(`<item><regionName>us-east-1</regionName></item>`, 500)+`</regionInfo></DescribeRegionsResponse>`)
	}))
	defer srv.Close()
	g := newGate()
	transport := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		var d net.Dialer
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &gatedConn{Conn: conn, g: g}, nil
		}
	})
	var hc aws.HTTPClient = holdingClient{next: transport, g: g}
	if wrap != nil {
		hc = wrap(hc)
	}
	client := ec2.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")},
		func(o *ec2.Options) {
			o.BaseEndpoint = aws.String(srv.URL)
			o.HTTPClient = hc
			o.RetryMaxAttempts = 1
		})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := client.DescribeRegions(ctx, &ec2.DescribeRegionsInput{})
	return err
}

// Without WholeBodies, the SDK's closed request body makes the transport close the
// connection under the answer of a call the server carried out; with it, the answer
// is read. The ordering that loses the answer is forced, not waited for.
func TestWholeBodiesKeepTheAnswerOfAFastServer(t *testing.T) {
	if err := describeRegions(t, nil); err == nil {
		t.Fatal("the SDK's own client read the answer: the ordering this test forces no longer loses it, so WholeBodies may be unneeded")
	} else {
		t.Logf("without WholeBodies: %v", err)
	}
	if err := describeRegions(t, WholeBodies); err != nil {
		t.Fatalf("with WholeBodies: %v", err)
	}
}
