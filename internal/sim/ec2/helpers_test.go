package ec2sim

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"

	"github.com/ec2-operator/ec2-operator/internal/sim/simtest"
)

// newFakeClock returns a manually advanced clock at simtest.Epoch for lifecycle tests.
func newFakeClock() *simtest.Clock { return simtest.NewClock(simtest.Epoch) }

// newClient starts sim behind an httptest server and returns a real SDK
// client pointed at it, with fast retries so throttling tests stay quick.
func newClient(t *testing.T, sim *Sim) *ec2.Client {
	t.Helper()
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	cfg := aws.Config{
		Region:      DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
		Retryer: func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) {
					return 5 * time.Millisecond, nil
				})
			})
		},
	}
	return ec2.NewFromConfig(cfg, func(o *ec2.Options) { o.BaseEndpoint = aws.String(srv.URL) })
}

// newEnv builds a Sim from cfg and a client for it.
func newEnv(t *testing.T, cfg Config) (*Sim, *ec2.Client) {
	t.Helper()
	sim := New(cfg)
	return sim, newClient(t, sim)
}

// ctx returns a test-scoped context with a generous deadline.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// basicRun is the smallest RunInstances input the operator would send.
func basicRun() *ec2.RunInstancesInput {
	return &ec2.RunInstancesInput{
		ImageId:      aws.String(DefaultImageID),
		InstanceType: types.InstanceTypeT3Micro,
		MinCount:     aws.Int32(1),
		MaxCount:     aws.Int32(1),
		SubnetId:     aws.String(DefaultSubnetIDs[0]),
	}
}

// runOne launches one instance and returns its id.
func runOne(t *testing.T, c *ec2.Client, in *ec2.RunInstancesInput) string {
	t.Helper()
	out, err := c.RunInstances(ctx(t), in)
	if err != nil {
		t.Fatalf("RunInstances: %v", err)
	}
	if len(out.Instances) != 1 {
		t.Fatalf("RunInstances returned %d instances", len(out.Instances))
	}
	return aws.ToString(out.Instances[0].InstanceId)
}

// describeOne returns the single instance DescribeInstances reports for id.
func describeOne(t *testing.T, c *ec2.Client, id string) types.Instance {
	t.Helper()
	out, err := c.DescribeInstances(ctx(t), &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
	if err != nil {
		t.Fatalf("DescribeInstances(%s): %v", id, err)
	}
	if len(out.Reservations) != 1 || len(out.Reservations[0].Instances) != 1 {
		t.Fatalf("DescribeInstances(%s) returned %+v", id, out.Reservations)
	}
	return out.Reservations[0].Instances[0]
}

// errCode extracts the EC2 error code from an SDK error, or "".
func errCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// errMessage extracts the EC2 error message from an SDK error, or "".
func errMessage(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorMessage()
	}
	return ""
}

// wantCode fails unless err carries the EC2 error code want.
func wantCode(t *testing.T, err error, want string) {
	t.Helper()
	if got := errCode(err); got != want {
		t.Fatalf("error code = %q (err %v), want %q", got, err, want)
	}
}

// httpPost sends a raw query-protocol request, for cases the SDK cannot
// express (such as an unknown Action).
func httpPost(t *testing.T, sim *Sim, form url.Values) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	sim.ServeHTTP(rec, req)
	return rec
}
